// `smslink inbox wait`: the message an app sent, as soon as the emulator has
// it (a long poll of the control API), for a test that reads a one-time
// code; exit 3 when none came in time, and clear failures when the emulator
// cannot be reached or used.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, startCli, tempDir } from '../../helpers/run-cli.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CODE = '.text | capture("(?<code>[0-9]{4,6})").code';

describe('smslink inbox wait', () => {
  it('prints the message sent 2 s after it started waiting, and --jq picks the code from it', async () => {
    emu = await startTestEmulator();
    const env = { SMSLINK_BASE_URL: emu.url };
    const waiting = startCli(['inbox', 'wait', '--to', '+7 701 123 45 67', '--text', 'code', '--timeout', '30s', '--jq', CODE], { env });
    let finished = false;
    void waiting.done.then(() => (finished = true));
    await sleep(2000);
    expect(finished).toBe(false);
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Your code is 482913' });
    const r = await waiting.done;
    expect(r).toEqual({ code: 0, stdout: '482913\n', stderr: '' });
  });

  it('answers at once with a message already there: the newest; -q prints its text, -o json all of it', async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Your code is 1111' });
    emu.clock.advance(1000);
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'Your code is 2222' });
    const env = { SMSLINK_BASE_URL: emu.url };
    expect(await runCli(['inbox', 'wait', '--to', '77011234567', '-q'], { env })).toMatchObject({ code: 0, stdout: 'Your code is 2222\n' });
    const json = await runCli(['inbox', 'wait', '--to', '77011234567', '-o', 'json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 2, to: '77011234567', from: 'SMSLINK', status: 'NEW', createdAt: '2025-01-15 10:00:01', timeline: [{ status: 'NEW' }] });
  });

  it('exits 3 when no matching message came within --timeout, naming what it waited for', async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77019990001', text: 'to someone else' });
    const r = await runCli(['inbox', 'wait', '--base-url', emu.url, '--to', '77011234567', '--timeout', '1s'], {});
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr).toBe('error: no message to 77011234567 came within 1 s (--timeout)\n');
  });

  // It said `since 2026-11-20T05:50:00.000Z came within 2s`: a time in UTC and ISO, a duration as typed.
  it('says the --since it waited from and the --timeout it gave up after as every time and duration is said', async () => {
    emu = await startTestEmulator();
    const now = () => new Date(2026, 10, 20, 6, 0, 0);
    const r = await runCli(['inbox', 'wait', '--base-url', emu.url, '--to', '77011234567', '--since', '10m', '--timeout', '1000ms'], { now });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('error: no message to 77011234567 since "10m" (10 min ago, 2026-11-20 05:50:00) came within 1 s (--timeout)\n');
  });

  it('--sandbox waits in the sandbox, for a message another command sends there', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir() };
    const waiting = startCli(['--sandbox', 'inbox', 'wait', '--to', '77011234567', '--timeout', '30s', '-q'], { env });
    await sleep(500);
    const sent = await runCli(['--sandbox', 'message', 'send', '--to', '+77011234567', '--text', 'Your code is 4711', '-q'], { env });
    expect(sent.code).toBe(0);
    expect(await waiting.done).toEqual({ code: 0, stdout: 'Your code is 4711\n', stderr: '' });
  });

  it('refuses what it cannot wait for, before asking anything (exit 2)', async () => {
    const env = { SMSLINK_BASE_URL: 'http://127.0.0.1:1' };
    expect(await runCli(['inbox', 'wait'], { env })).toMatchObject({ code: 2, stderr: 'error: inbox wait needs --to or --text: which message to wait for\n' });
    expect((await runCli(['inbox', 'wait', '--to', 'abc'], { env })).stderr).toContain('--to: invalid value "abc": must be a phone number or some of its digits');
    expect((await runCli(['inbox', 'wait', '--to', '7701', '--timeout', 'soon'], { env })).stderr).toContain('--timeout: invalid value "soon": must be a duration such as 90s, 10m or 1h');
    expect((await runCli(['inbox', 'wait', '--to', '7701', '--since', 'yesterday'], { env })).stderr).toContain('--since: invalid value "yesterday"');
  });

  it('says plainly when the emulator is not there (3), wants its control token (4) or the URL is not an emulator (4)', async () => {
    const unreachable = await runCli(['inbox', 'wait', '--base-url', 'http://127.0.0.1:1', '--to', '7701']);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain('cannot reach the emulator at http://127.0.0.1:1 (connection refused): is `smslink serve` running there?');

    emu = await startTestEmulator({ controlToken: 'tok-0123456789' });
    const locked = await runCli(['inbox', 'wait', '--base-url', emu.url, '--to', '7701', '--timeout', '1s']);
    expect(locked.code).toBe(4);
    expect(locked.stderr).toBe("error: the emulator's control API needs its control token: set SMSLINK_CONTROL_TOKEN to the --control-token serve was started with\n");
    const unlocked = await runCli(['inbox', 'wait', '--base-url', emu.url, '--to', '7701', '--timeout', '1s'], { env: { SMSLINK_CONTROL_TOKEN: 'tok-0123456789' } });
    expect(unlocked.code).toBe(3);
    expect(unlocked.stdout + unlocked.stderr).not.toContain('tok-0123456789');
    const wrong = await runCli(['inbox', 'wait', '--base-url', emu.url, '--to', '7701', '--timeout', '1s'], { env: { SMSLINK_CONTROL_TOKEN: 'tok-mistyped-89' } });
    expect(wrong.code).toBe(4);
    // Said once, in the CLI's terms: it sent SMSLINK_CONTROL_TOKEN, the user wrote no header.
    expect(wrong.stderr).toBe("error: the emulator's control API refused SMSLINK_CONTROL_TOKEN: it is not the --control-token serve was started with\n");
    expect(wrong.stdout + wrong.stderr).not.toContain('tok-mistyped-89');

    const other = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not here</html>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const r = await runCli(['inbox', 'wait', '--base-url', url, '--to', '7701']);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`${url}/_emulator/messages answered HTTP 404, not the emulator's control API`);
    } finally {
      other.close();
    }
  });
});
