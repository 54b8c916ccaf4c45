// `smslink balance`: the account's money and currency (User/GetOwnBalance),
// and --min as a gate: exit 8 when the balance is below it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli } from '../../helpers/run-cli.js';

const KEY = 'BalanceKey0123456789abcdefABCDEF01234567';
let emu: TestEmulator;
let env: Record<string, string>;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY], balance: 1, price: 0.25, currency: 'USD' });
  env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
});
afterAll(() => emu.close());

describe('smslink balance', () => {
  it('prints the amount and currency (a table as status says money, json as a number, -q the amount alone), and falls with each message', async () => {
    expect(JSON.parse((await runCli(['balance', '-o', 'json'], { env })).stdout)).toEqual({ balance: 1, currency: 'USD' });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'one segment' });
    const table = await runCli(['balance', '-o', 'table', '--no-color'], { env });
    expect(table.stdout).toBe('balance  0.7500 USD\n');
    // Both fields when asked for, and in csv as the service gives them.
    expect((await runCli(['balance', '-o', 'table', '--no-color', '--fields', 'balance,currency'], { env })).stdout).toMatch(/^balance +0\.7500\ncurrency +USD\n$/);
    expect((await runCli(['balance', '-o', 'csv'], { env })).stdout).toBe('balance,currency\n0.75,USD\n');
    expect(await runCli(['balance', '-q'], { env })).toMatchObject({ code: 0, stdout: '0.75\n' });
  });

  it('--min passes at or above the amount, and exits 8 below it, the balance shown either way', async () => {
    const at = await runCli(['balance', '-q', '--min', '0.75'], { env });
    expect(at).toMatchObject({ code: 0, stdout: '0.75\n' });
    const below = await runCli(['balance', '-q', '--min', '50'], { env });
    expect(below).toMatchObject({ code: 8, stdout: '0.75\n' });
    expect(below.stderr).toBe('error: the balance is 0.7500 USD, below --min 50.0000 USD\n');
  });

  it('refuses an amount that is no amount (exit 2), before asking', async () => {
    const r = await runCli(['balance', '--min', '-5'], { env: { SMSLINK_BASE_URL: 'http://127.0.0.1:1', SMSLINK_API_KEY: KEY } });
    expect(r).toMatchObject({ code: 2 });
    expect(r.stderr).toContain('--min: invalid value "-5": must be an amount of money such as 50 or 12.5');
    expect((await runCli(['balance', '--min', '1e3'], { env })).code).toBe(2);
  });

  it('--dry-run shows the request and sends nothing', async () => {
    const r = await runCli(['balance', '--min', '50', '--dry-run', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ dryRun: true, operation: 'User/GetOwnBalance', method: 'POST' });
  });
});
