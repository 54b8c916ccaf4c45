// `smslink login`: asks for the base URL and key at a real terminal (or takes
// --base-url and --with-key), checks the key against the emulator over a real
// socket, and saves both only when the service accepted it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { KEYS, runInPty, screenText } from '../../helpers/pty.js';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

const KEY = 'LoginKey0123456789abcdefABCDEF0123456789';
const WRONG = 'WrongKey0123456789abcdefABCDEF0123456789';
const MASKED = '********6789';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
});
afterAll(() => emu.close());
// A stand-in for answers the emulator never gives (code 13), emptied before each test.
const recording = useRecordingServer(KEY);

function configAt() {
  const dir = tempDir();
  const file = join(dir, 'config.json');
  return {
    env: { SMSLINK_CONFIG_DIR: dir },
    stored: () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { currentProfile?: string; profiles?: Record<string, Record<string, string>> }) : undefined),
  };
}

describe('login at a terminal', () => {
  it('asks for the base URL and the hidden key, checks them against the service, and says which profile was written', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['login'], {
      env,
      steps: [
        { waitFor: 'Base URL (your regional API host, e.g. https://api.example.com): ', write: `not a url${KEYS.enter}` },
        { waitFor: 'must be an http(s):// URL', write: `${emu.url}/${KEYS.enter}` },
        { waitFor: 'Paste your API key: ', write: `${KEY}${KEYS.enter}` },
      ],
    });
    const screen = screenText(r.output);
    expect(r.code, screen).toBe(0);
    expect(r.output).not.toContain(KEY);
    // At 80 columns these lines break at spaces.
    expect(screen.replace(/\n/g, ' ')).toContain(`✓ ${emu.url} accepted the key ${MASKED} (Message/GetSMSStatus,`);
    expect(screen).toMatch(/✓ Saved base-url and api-key in profile "default"\s\(.*config\.json\)\./);
    // The request reached the emulator with the typed key; a trailing slash of the URL is dropped.
    expect(stored()?.profiles?.default).toEqual({ baseUrl: emu.url, apiKey: KEY });
  });

  it('Enter keeps the profile\'s base URL; a refused key saves nothing and exits 4', async () => {
    const { env, stored } = configAt();
    await runCli(['--profile', 'work', 'config', 'set', 'base-url', emu.url], { env });
    const r = await runInPty(['--profile', 'work', 'login'], {
      env,
      steps: [
        { waitFor: `Base URL [${emu.url}]: `, write: KEYS.enter },
        { waitFor: 'Paste your API key: ', write: `${WRONG}${KEYS.enter}` },
      ],
    });
    const screen = screenText(r.output);
    expect(r.code, screen).toBe(4);
    // At 80 columns the error breaks at a space, not inside a word.
    expect(screen).toContain('error: login: the service refused the key: authentication failed (missing, wrong\nor expired API key) (code 8)');
    expect(screen).toContain('Nothing was saved.');
    expect(r.output).not.toContain(WRONG);
    expect(stored()?.profiles?.work).toEqual({ baseUrl: emu.url });
  });

  it('Ctrl-C at the key prompt exits 130 and saves nothing', async () => {
    const { env, stored } = configAt();
    const r = await runInPty(['login', '--base-url', emu.url], { env, steps: [{ waitFor: 'Paste your API key: ', write: KEYS.ctrlC }] });
    expect(r.code).toBe(130);
    expect(stored()).toBeUndefined();
  });
});

describe('login without a terminal', () => {
  it('--with-key reads the key from stdin; --profile picks the profile, and the hint says how to use it', async () => {
    const { env, stored } = configAt();
    const r = await runCli(['--profile', 'ci', 'login', '--base-url', emu.url, '--with-key'], { env, stdin: `${KEY}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Saved base-url and api-key in profile "ci"`);
    expect(r.stderr).toContain('make it the default with `smslink config use ci`');
    expect(stored()?.profiles?.ci).toEqual({ baseUrl: emu.url, apiKey: KEY });
    // The saved profile works.
    expect((await runCli(['--profile', 'ci', 'status', '-q'], { env })).code).toBe(0);
  });

  it('warns when the environment overrides what was saved', async () => {
    const { env } = configAt();
    const r = await runCli(['login', '--base-url', emu.url, '--with-key'], { env: { ...env, SMSLINK_API_KEY: WRONG }, stdin: KEY });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: SMSLINK_API_KEY is set and is used instead of the profile');
  });

  it('refuses what cannot work, clearly and with exit 2', async () => {
    const { env, stored } = configAt();
    const cases: Array<[string[], string | undefined, RegExp]> = [
      [['login', '--base-url', emu.url], KEY, /stdin is not a terminal, so nothing can be asked; pipe the key in with --with-key/],
      [['login', '--with-key'], KEY, /login: give --base-url/],
      [['login', '--base-url', 'ftp://x', '--with-key'], KEY, /--base-url: "ftp:\/\/x" must be an http\(s\):\/\/ URL/],
      [['login', '--base-url', emu.url, '--with-key'], '\n', /no API key was given on stdin; nothing was saved/],
      [['login', '--api-key', KEY, '--base-url', emu.url], undefined, /--api-key would leave the key in your shell history/],
      [['--sandbox', 'login'], undefined, /the sandbox needs no login/],
    ];
    for (const [args, stdin, message] of cases) {
      const r = await runCli(args, { env, stdin });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect(stored()).toBeUndefined();
  });

  it('code 13 names the regional host the service gave; nothing is saved', async () => {
    const { env, stored } = configAt();
    recording.server.respond(() => ({ body: { code: 13, data: { domain: 'api.example.kz' }, message: 'wrong region' } }));
    const r = await runCli(['login', '--base-url', recording.server.url, '--with-key'], { env, stdin: KEY });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the service refused the key: wrong regional API server for this account (code 13)');
    expect(r.stderr).toContain('This account lives on https://api.example.kz: set it with `smslink config set base-url https://api.example.kz`');
    expect(stored()).toBeUndefined();
  });

  it('an unreachable service exits 3 and saves nothing', async () => {
    const { env, stored } = configAt();
    const r = await runCli(['login', '--base-url', 'http://127.0.0.1:1', '--with-key', '--retries', '0'], { env, stdin: KEY });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/connection refused[\s\S]*Nothing was saved\./);
    // `smslink status` would show the base URL of before, not the one login could not reach.
    expect(r.stderr).not.toContain('`smslink status`');
    expect(stored()).toBeUndefined();
  });
});
