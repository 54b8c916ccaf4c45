// `smslink status`: which profile, base URL and key (masked, with where each
// comes from) are in use, and whether the service accepts the key; exit 0, 4
// (refused or not configured) or 3 (unreachable), as README "Exit codes" says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runInPty, screenText } from '../../helpers/pty.js';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

const KEY = 'StatusKey0123456789abcdefABCDEF012345678';
const MASKED = '********5678';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
});
afterAll(() => emu.close());
// A stand-in for answers the emulator never gives (code 13), emptied before each test.
const recording = useRecordingServer(KEY);

describe('smslink status', () => {
  it('-o json: each setting with its source, and the key accepted after one cheap call', async () => {
    const r = await runCli(['status', '-o', 'json'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      profile: 'default',
      profileSource: 'default',
      sandbox: false,
      baseUrl: emu.url,
      baseUrlSource: 'SMSLINK_BASE_URL',
      apiKey: MASKED,
      apiKeySource: 'SMSLINK_API_KEY',
      keyAccepted: true,
      checkedWith: 'Message/GetSMSStatus',
      problem: null,
      // The balance beside the key: the emulator's opening 100 KZT.
      balance: 100,
      currency: 'KZT',
      balanceProblem: null,
    });
    expect(typeof report.ms).toBe('number');
  });

  it('a balance the key may not read is unknown, with why, and the key check still passes', async () => {
    recording.server.respond((req) => (req.path.toLowerCase() === '/service/user/getownbalance' ? { body: { code: 9, data: null, message: 'access denied' } } : undefined));
    const r = await runCli(['status', '-o', 'table', '--no-color'], { env: { SMSLINK_BASE_URL: recording.server.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^service +key accepted +Message\/GetSMSStatus, (\d+|\d\.\d) ms$/m);
    expect(r.stdout).toMatch(/^balance +unknown +User\/GetOwnBalance failed with code 9/m);
  });

  it('the check is one Message/GetSMSStatus of one id', async () => {
    const r = await runCli(['status', '-q'], { env: { SMSLINK_BASE_URL: recording.server.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    expect(recording.server.requests.map((q) => [q.path, q.body])).toEqual([['/service/Message/GetSMSStatus', 'ids=1']]);
  });

  it('a refused key exits 4 and says so; the profile is named as the source', async () => {
    const env = { SMSLINK_CONFIG_DIR: tempDir() };
    await runCli(['--profile', 'prod', 'config', 'set', 'base-url', emu.url], { env });
    await runCli(['--profile', 'prod', 'config', 'set', 'api-key', '-'], { env, stdin: 'NotTheKey0123456789abcdef' });
    const r = await runCli(['--profile', 'prod', 'status', '-o', 'table', '--no-color'], { env });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^profile +prod +--profile$/m);
    expect(r.stdout).toMatch(/^base-url +http:\/\/127\.0\.0\.1:\d+ +profile "prod"$/m);
    expect(r.stdout).toMatch(/^api-key +\*{8}cdef +profile "prod"$/m);
    expect(r.stdout).toMatch(/^service +key not accepted +Message\/GetSMSStatus, (\d+|\d\.\d) ms$/m);
    expect(JSON.parse((await runCli(['--profile', 'prod', 'status', '-o', 'json'], { env })).stdout)).toMatchObject({ keyAccepted: false, keyRefused: true });
    expect(r.stderr).toContain('error: the service refused the key: authentication failed (missing, wrong or expired API key) (code 8)');
  });

  it('nothing configured exits 4 and points to login, without a request', async () => {
    const r = await runCli(['status', '-o', 'json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ baseUrl: null, baseUrlSource: 'not set', apiKey: null, apiKeySource: 'not set', keyAccepted: false, checkedWith: null });
    expect(r.stderr).toContain('no base URL and no API key: run `smslink login`');
  });

  it('a profile that does not exist is named, with how to create it', async () => {
    const r = await runCli(['--profile', 'nope', 'status', '-o', 'json']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('profile "nope" (from --profile) does not exist; create it with `smslink --profile nope login`');
  });

  it('an id given to status points to message status (exit 2)', async () => {
    const r = await runCli(['status', '123456']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('status takes no arguments; for the delivery status of a message, run `smslink message status 123456`');
  });

  it('an unreachable service exits 3, and the key is not said to be refused: it was not checked', async () => {
    const env = { SMSLINK_BASE_URL: 'http://127.0.0.1:1', SMSLINK_API_KEY: KEY };
    const r = await runCli(['status', '--retries', '0', '-o', 'json'], { env });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ keyAccepted: false, keyRefused: false, checkedWith: null, ms: null, problem: expect.stringMatching(/connection refused/) });
    const table = await runCli(['status', '--retries', '0', '-o', 'table', '--no-color'], { env });
    expect(table.stdout).toMatch(/^service +not checked +-$/m);
    // The table above shows the base URL: status does not send the user to run status.
    expect(table.stderr).toContain('connection refused by 127.0.0.1:1\nIs the service up at that address?\n');
    expect(table.stderr).not.toContain('`smslink status`');
    // Refused before anything is sent: not checked either.
    const insecure = await runCli(['status', '-o', 'table', '--no-color'], { env: { ...env, SMSLINK_BASE_URL: 'http://remote.example.com' } });
    expect(insecure.code).toBe(2);
    expect(insecure.stdout).toMatch(/^service +not checked +-$/m);
  });

  it('code 13 names the right regional host from the answer', async () => {
    recording.server.respond(() => ({ body: { code: 13, data: 'api.example.uz', message: '' } }));
    const r = await runCli(['status', '-o', 'json'], { env: { SMSLINK_BASE_URL: recording.server.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('This account lives on https://api.example.uz');
  });

  it('--sandbox checks the local emulator', async () => {
    const r = await runCli(['--sandbox', 'status', '-o', 'json'], { env: { SMSLINK_DATA_DIR: tempDir() } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sandbox: true, baseUrlSource: '--sandbox', keyAccepted: true });
  });

  it('SMSLINK_SANDBOX=1 is named as the source, as every setting from the environment is', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir(), SMSLINK_SANDBOX: '1' };
    const table = await runCli(['status', '-o', 'table', '--no-color'], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^base-url +local emulator \(.+\) +SMSLINK_SANDBOX$/m);
    expect(table.stdout).toMatch(/^api-key +the sandbox key +SMSLINK_SANDBOX$/m);
    const json = JSON.parse((await runCli(['status', '-o', 'json'], { env })).stdout);
    expect(json).toMatchObject({ sandbox: true, baseUrlSource: 'SMSLINK_SANDBOX', apiKeySource: 'SMSLINK_SANDBOX' });
    // The flag, given as well, is what is in force.
    expect(JSON.parse((await runCli(['--sandbox', 'status', '-o', 'json'], { env })).stdout)).toMatchObject({ baseUrlSource: '--sandbox' });
  });

  it('at a terminal: a table of the settings, the key masked', async () => {
    const r = await runInPty(['status'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY, NO_COLOR: '1' } });
    const screen = screenText(r.output);
    expect(r.code, screen).toBe(0);
    expect(r.output).not.toContain(KEY);
    expect(screen).toMatch(/^api-key +\*{8}5678 +SMSLINK_API_KEY$/m);
    expect(screen).toMatch(/^service +key accepted +Message\/GetSMSStatus, (\d+|\d\.\d) ms$/m);
    expect(screen).toMatch(/^balance +100\.0000 KZT +User\/GetOwnBalance$/m);
  });
});
