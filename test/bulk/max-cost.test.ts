// A bulk `message send` says what its rows will cost before it sends any:
// segments × the price of a segment (the account's last message's) beside
// the balance. --max-cost refuses a run estimated above it, nothing sent
// (exit 8); at a terminal the run asks to go on. Against the emulator.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { KEYS, runInPty, screenText } from '../helpers/pty.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const KEY = 'CostKey0123456789abcdefABCDEF0123456789ab';
/** Three rows: 1 + 2 + 1 segments (the second text is 200 GSM-7 characters). */
const ROWS = `recipient,text\n77010000001,Hello\n77010000002,${'x'.repeat(200)}\n77010000003,Bye\n`;

async function setUp(sentBefore: boolean) {
  emu = await startTestEmulator({ apiKeys: [KEY], price: 0.05, balance: 10, currency: 'USD' });
  if (sentBefore) await emu.call('Message/SendSmsMessage', { recipient: '77019990001', text: 'the price is learnt from this one' });
  const dir = tempDir();
  const input = join(dir, 'customers.csv');
  writeFileSync(input, ROWS);
  return { input, env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY, NO_COLOR: '1' } };
}

const messagesSent = async () => Number(((await emu!.call('Message/List')).data as { totalItemCount: string }).totalItemCount);

describe('message send --from-file --max-cost', () => {
  it('refuses a run estimated above it: exit 8, nothing sent, no journal', async () => {
    const { input, env } = await setUp(true);
    const r = await runCli(['message', 'send', '--from-file', input, '--max-cost', '0.15'], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toBe('error: the estimated cost, 0.2000 USD for 3 messages, 4 segments, is above --max-cost 0.1500 USD; nothing was sent\n');
    expect(r.stdout).toBe('');
    expect(await messagesSent()).toBe(1);
    expect(existsSync(`${input}.journal`)).toBe(false);
  });

  it('sends a run at or below it, after saying what it comes to', async () => {
    const { input, env } = await setUp(true);
    const r = await runCli(['message', 'send', '--from-file', input, '--max-cost', '0.2', '-q'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('3 messages, 4 segments: about 0.2000 USD at 0.0500 USD a segment (the last message\'s price); balance 9.9500 USD\n');
    expect(await messagesSent()).toBe(4);
  });

  it('cannot be applied before the price of a segment is known (exit 2, nothing sent); without it a script is asked nothing', async () => {
    const { input, env } = await setUp(false);
    const r = await runCli(['message', 'send', '--from-file', input, '--max-cost', '100'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: --max-cost: the cost of 3 messages, 4 segments cannot be estimated: the price of a segment is not known until the account has sent a message; nothing was sent\n',
    );
    expect(await messagesSent()).toBe(0);
    const script = await runCli(['message', 'send', '--from-file', input, '-q'], { env });
    expect(script.code).toBe(0);
    expect(script.stderr).not.toContain('segments');
    expect(await messagesSent()).toBe(3);
  });

  it('refuses a value that is no amount, and --max-cost without --from-file (exit 2)', async () => {
    const { input, env } = await setUp(true);
    expect((await runCli(['message', 'send', '--from-file', input, '--max-cost', 'lots'], { env })).stderr).toContain('--max-cost: invalid value "lots": must be an amount of money');
    expect((await runCli(['message', 'send', '--to', '77010000001', '--text', 'x', '--max-cost', '1'], { env })).stderr).toBe('error: --max-cost only applies with --from-file\n');
    expect(await messagesSent()).toBe(1);
  });
});

describe('message send --from-file at a terminal', () => {
  it('shows the estimate and the balance, then asks; n sends nothing, y sends', async () => {
    const { input, env } = await setUp(true);
    const question = 'Send 3 messages? [y/N] ';
    const no = await runInPty(['message', 'send', '--from-file', input, '--journal', join(tempDir(), 'j1')], { env, columns: 200, steps: [{ waitFor: question, write: `n${KEYS.enter}` }] });
    const noScreen = screenText(no.output);
    expect(no.code, noScreen).toBe(2);
    expect(noScreen).toContain("3 messages, 4 segments: about 0.2000 USD at 0.0500 USD a segment (the last message's price); balance 9.9500 USD");
    expect(noScreen).toContain('Nothing sent.');
    expect(await messagesSent()).toBe(1);
    const yes = await runInPty(['message', 'send', '--from-file', input, '--journal', join(tempDir(), 'j2'), '-q'], { env, columns: 200, steps: [{ waitFor: question, write: `y${KEYS.enter}` }] });
    expect(yes.code, screenText(yes.output)).toBe(0);
    expect(await messagesSent()).toBe(4);
  });

  it('warns when the estimate is more than the balance; --validate-only asks nothing', async () => {
    const { env } = await setUp(true);
    const many = join(tempDir(), 'many.csv');
    writeFileSync(many, `recipient,text\n${Array.from({ length: 250 }, (_, i) => `7701${String(i).padStart(7, '0')},hi`).join('\n')}\n`);
    const r = await runCli(['message', 'send', '--from-file', many, '--max-cost', '100', '--validate-only'], { env });
    expect(r.code).toBe(0);
    const run = await runCli(['message', 'send', '--from-file', many, '--max-cost', '100', '-q'], { env, tty: true });
    // At a terminal with no answer typed: the estimate, the warning, then the question answered by nothing.
    expect(run.stderr).toContain('250 messages, 250 segments: about 12.5000 USD');
    expect(run.stderr).toContain('warning: the estimate is more than the balance: the run may stop when the money runs out');
    expect(run.code).toBe(2);
    expect(await messagesSent()).toBe(1);
  });
});
