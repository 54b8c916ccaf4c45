// A base URL copied from the service's docs ends in /service, which smslink
// adds to every request itself: it is taken as its host, with a note,
// wherever it is given (config set, login, --base-url, SMSLINK_BASE_URL, a
// profile saved before), and requests reach the service, not
// /service/service/... Against the emulator over a real socket.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutServicePath } from '../../../src/client/base-url.js';
import { servicePathNote } from '../../../src/config/resolve.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

const KEY = 'ServiceKey0123456789abcdefABCDEF012345';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
});
afterAll(() => emu.close());

/** How many times `text` holds `part`. */
const times = (text: string, part: string) => text.split(part).length - 1;

describe('a base URL ending in /service', () => {
  it('config set saves its host and says so; later runs reach the service without a note', async () => {
    const env = { SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_API_KEY: KEY };
    const typed = `${emu.url}/service/`;
    const set = await runCli(['config', 'set', 'base-url', typed], { env });
    expect(set.code).toBe(0);
    expect(set.stderr).toContain(`${servicePathNote('base-url', typed, emu.url, 'saved')}\n`);
    expect((await runCli(['config', 'get', 'base-url'], { env })).stdout).toBe(`${emu.url}\n`);
    const created = await runCli(['link', 'create', 'https://example.com/saved'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('');
  });

  it('login takes its host, says so once, checks the key there and saves the host', async () => {
    const dir = tempDir();
    const typed = `${emu.url}/service`;
    const r = await runCli(['login', '--base-url', typed, '--with-key'], { env: { SMSLINK_CONFIG_DIR: dir }, stdin: `${KEY}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(times(r.stderr, 'ends in /service')).toBe(1);
    expect(r.stderr).toContain(servicePathNote('--base-url', typed, emu.url, 'using'));
    expect(r.stderr).toContain(`${emu.url} accepted the key`);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { baseUrl: string }> };
    expect(saved.profiles.default.baseUrl).toBe(emu.url);
  });

  it.each([
    ['--base-url', (url: string) => ({ args: ['--base-url', url], env: {} }), '--base-url'],
    ['SMSLINK_BASE_URL', (url: string) => ({ args: [], env: { SMSLINK_BASE_URL: url } }), 'base-url from SMSLINK_BASE_URL'],
  ])('%s: used as its host, with one note on stderr, the output untouched', async (_name, given, name) => {
    const typed = `${emu.url}/service/`;
    const { args, env } = given(typed);
    const r = await runCli([...args, 'link', 'create', `https://example.com/${name.length}`, '--json'], { env: { SMSLINK_API_KEY: KEY, ...env } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${servicePathNote(name, typed, emu.url, 'using')}\n`);
    const id = (JSON.parse(r.stdout) as { id: number }).id;
    expect((await emu.call('Link/Get', { id })).code).toBe(0);
  });

  it('a profile saved with /service before is used as its host too, naming the profile', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: `${emu.url}/service`, apiKey: KEY } } }), { mode: 0o600 });
    const r = await runCli(['link', 'list', '--json'], { env: { SMSLINK_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${servicePathNote('base-url from profile "default"', `${emu.url}/service`, emu.url, 'using')}\n`);
  });

  it('the sandbox, which uses no base URL, says nothing of it', async () => {
    const r = await runCli(['--sandbox', 'link', 'list', '--json'], { env: { SMSLINK_BASE_URL: `${emu.url}/service` } });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('/service');
  });

  it('keeps a path before /service, and leaves other URLs alone', () => {
    expect(withoutServicePath('https://api.example.com/service/')).toBe('https://api.example.com');
    expect(withoutServicePath('https://api.example.com/service')).toBe('https://api.example.com');
    expect(withoutServicePath('https://gw.example.com/sms/service')).toBe('https://gw.example.com/sms');
    expect(withoutServicePath('https://api.example.com')).toBeUndefined();
    expect(withoutServicePath('https://api.example.com/services')).toBeUndefined();
    expect(withoutServicePath('https://service.example.com/')).toBeUndefined();
    expect(withoutServicePath('not a url/service')).toBeUndefined();
  });
});
