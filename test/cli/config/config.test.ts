// The config store and settings precedence: flag > env > profile > default.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

const KEY = 'StoredKey0123456789abcdefABCDEF0123456789';

function setup() {
  const dir = join(tempDir(), 'cfg');
  const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(args, { ...opts, env: { SMSLINK_CONFIG_DIR: dir, ...opts.env } });
  return { dir, cli };
}

describe('config', () => {
  it('set, get, list with sources, unset; the key is read from stdin and masked', async () => {
    const { dir, cli } = setup();
    expect((await cli(['config', 'set', 'base-url', server.url])).code).toBe(0);
    const saved = await cli(['config', 'set', 'api-key', '-'], { stdin: `${KEY}\n` });
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain('Saved api-key = ********6789 in profile "default"');
    expect(saved.stderr).not.toContain(KEY);
    expect((await cli(['config', 'get', 'base-url'])).stdout).toBe(`${server.url}\n`);
    expect((await cli(['config', 'get', 'api-key'])).stdout).toBe('********6789\n');

    const list = JSON.parse((await cli(['config', 'list'])).stdout) as Array<{ setting: string; value: string; source: string }>;
    expect(list.find((r) => r.setting === 'api-key')).toEqual({ setting: 'api-key', value: '********6789', source: 'profile "default"' });
    expect(list.find((r) => r.setting === 'timeout')).toEqual({ setting: 'timeout', value: '30', source: 'default' });

    // The stored settings are used for requests.
    const r = await cli(['link', 'get', '1']);
    expect(r.code).toBe(0);
    expect(server.requests.at(-1)!.query.get('apiKey')).toBe(KEY);

    await cli(['config', 'unset', 'base-url']);
    expect((await cli(['config', 'get', 'base-url'])).code).toBe(6);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain('baseUrl');
  });

  it('a key read from stdin with a second line, or a space, is refused and not saved (nor quoted back)', async () => {
    const { dir, cli } = setup();
    for (const stdin of [`${KEY}\nsecond line\n`, `${KEY} x\n`]) {
      const r = await cli(['config', 'set', 'api-key', '-'], { stdin });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('config set api-key: the value holds a space or a line break, which no key has; nothing was saved');
      expect(r.stderr).not.toContain(KEY);
    }
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('writes the file 0600 in a 0700 directory', async () => {
    const { dir, cli } = setup();
    await cli(['config', 'set', 'output', 'csv']);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect((await cli(['config', 'path'])).stdout).toBe(`${join(dir, 'config.json')}\n`);
  });

  it('refuses a config file that others can read, naming the chmod to run', async () => {
    const { dir, cli } = setup();
    await cli(['config', 'set', 'api-key', KEY]);
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await cli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: server.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('can be read by other users (mode 0644)');
    expect(r.stderr).toContain(`chmod 600 ${join(dir, 'config.json')}`);
  });

  it('precedence: flag > env > profile > default, with the source named', async () => {
    const { cli } = setup();
    await cli(['config', 'set', 'timeout', '12']);
    const source = async (args: string[], env: Record<string, string> = {}) =>
      (JSON.parse((await cli([...args, 'config', 'list'], { env })).stdout) as Array<{ setting: string; value: string; source: string }>).find(
        (r) => r.setting === 'timeout',
      );
    expect(await source([])).toMatchObject({ value: '12', source: 'profile "default"' });
    expect(await source([], { SMSLINK_TIMEOUT: '20' })).toMatchObject({ value: '20', source: 'SMSLINK_TIMEOUT' });
    expect(await source(['--timeout', '5'], { SMSLINK_TIMEOUT: '20' })).toMatchObject({ value: '5', source: '--timeout' });
  });

  it('every setting but sender has a flag of its own on every command, named as the source by config list', async () => {
    const { cli } = setup();
    const key = 'FlagKey0123456789abcdefABCDEF';
    const args = ['--profile', 'ci', '--api-key', key, '--base-url', 'https://flag.example.com', '-o', 'json', '--timeout', '7', '--retries', '1'];
    const r = await cli([...args, 'config', 'list']);
    expect(r.code).toBe(0);
    const sources = Object.fromEntries((JSON.parse(r.stdout) as Array<{ setting: string; source: string }>).map((row) => [row.setting, row.source]));
    expect(sources).toEqual({
      profile: '--profile',
      'api-key': '--api-key',
      'base-url': '--base-url',
      output: '--output',
      timeout: '--timeout',
      retries: '--retries',
      sender: 'not set',
    });
  });

  it('profiles: --profile, SMSLINK_PROFILE and config use pick the profile', async () => {
    const { cli } = setup();
    await cli(['config', 'set', 'base-url', 'https://prod.example.com']);
    await cli(['--profile', 'staging', 'config', 'set', 'base-url', 'https://staging.example.com']);
    expect((await cli(['config', 'get', 'base-url'])).stdout).toBe('https://prod.example.com\n');
    expect((await cli(['config', 'get', 'base-url', '--profile', 'staging'])).stdout).toBe('https://staging.example.com\n');
    expect((await cli(['config', 'get', 'base-url'], { env: { SMSLINK_PROFILE: 'staging' } })).stdout).toBe('https://staging.example.com\n');
    await cli(['config', 'use', 'staging']);
    expect((await cli(['config', 'get', 'base-url'])).stdout).toBe('https://staging.example.com\n');
    expect((await cli(['config', 'get', 'base-url', '--base-url', 'https://flag.example.com'])).stdout).toBe('https://flag.example.com\n');
  });

  it('config use refuses a profile that does not exist, so a typo does not break every later command', async () => {
    const { cli } = setup();
    await cli(['--profile', 'staging', 'config', 'set', 'base-url', 'https://staging.example.com']);
    const r = await cli(['config', 'use', 'stagign']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('config use: unknown profile "stagign" (did you mean staging?); profiles: staging; create it first with `smslink --profile stagign config set base-url https://...`');
    expect((await cli(['config', 'get', 'base-url', '--profile', 'staging'])).code).toBe(0);
    expect((await cli(['config', 'use', 'default'])).code).toBe(0);
  });

  it('a new profile is named with letters, digits, ".", "_" and "-" only; an odd name saved before still loads, with a warning', async () => {
    const { dir, cli } = setup();
    for (const name of ['a b', '$(touch pwned)', 'x`id`', "it's", 'über', '']) {
      for (const args of [['--profile', name, 'config', 'set', 'base-url', 'https://odd.example.com'], ['--profile', name, 'config', 'unset', 'sender']]) {
        const r = await cli(args);
        if (name === '') continue; // an empty --profile is no profile: the default one
        expect([r.code, r.stderr], name).toEqual([2, `error: profile "${name}": a new profile's name is letters, digits, ".", "_" and "-" only; nothing was saved\n`]);
      }
    }
    const set = await cli(['--profile', 'ok.Name_2-b', 'config', 'set', 'base-url', 'https://ok.example.com']);
    expect(set.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles)).toEqual(['default', 'ok.Name_2-b']);
    // A file written before the rule: the odd profile is read, used and changed as before, with a warning.
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.profiles['my prod $(id)'] = { baseUrl: 'https://old.example.com' };
    writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
    const old = await cli(['--profile', 'my prod $(id)', 'config', 'get', 'base-url']);
    expect(old.code).toBe(0);
    expect(old.stdout).toBe('https://old.example.com\n');
    expect(old.stderr).toBe(
      'warning: profile "my prod $(id)" has a name new profiles cannot have (letters, digits, ".", "_" and "-" only); it still works: save its settings under such a name (`smslink --profile <name> login`) and remove it from the config file.\n',
    );
    expect((await cli(['--profile', 'my prod $(id)', 'config', 'set', 'output', 'json'])).code).toBe(0);
    expect((await cli(['config', 'get', 'base-url'])).stderr).toBe('');
  });

  it('a profile that does not exist is a configuration error (exit 4)', async () => {
    const { cli } = setup();
    const r = await cli(['--profile', 'nope', 'link', 'get', '1'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('profile "nope" (from --profile) does not exist');
  });

  it('a key from the environment or --api-key with a line break or spaces around it (a CI secret pasted so) is sent without them', async () => {
    const { cli } = setup();
    for (const [args, env] of [
      [['link', 'get', '1'], { SMSLINK_API_KEY: `${KEY}\n` }],
      [['link', 'get', '1', '--api-key', ` ${KEY}\r\n`], {}],
    ] as const) {
      const r = await cli([...args], { env: { SMSLINK_BASE_URL: server.url, ...env } });
      expect(r.code).toBe(0);
      expect(server.requests.at(-1)!.query.get('apiKey')).toBe(KEY);
    }
    // Only spaces is no key at all.
    const blank = await cli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: ' \n' } });
    expect([blank.code, blank.stderr.split('\n')[0]]).toEqual([4, 'error: no API key is set']);
  });

  it('rejects unknown settings and bad values with exit 2', async () => {
    const { cli } = setup();
    expect((await cli(['config', 'set', 'colour', 'red'])).stderr).toMatch(/unknown setting "colour"; settings: api-key, base-url/);
    const bad = await cli(['config', 'set', 'output', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('config set output: invalid value "xml": must be one of table, json, ndjson, csv, tsv');
    const unset = await cli(['config', 'get', 'sender']);
    expect(unset.code).toBe(6);
    expect(unset.stdout).toBe('');
    expect(unset.stderr).toContain('sender is not set (no flag, environment variable or value in profile "default")');
    const zero = await cli(['config', 'set', 'timeout', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('config set timeout: invalid value "0": must be a number of seconds from 0.001 to 3600');
    // Below a millisecond the flag is refused by its own rule, not by the client's (which would name its timeoutMs option).
    const tiny = await cli(['link', 'get', '1', '--timeout', '0.0001'], { env: { SMSLINK_BASE_URL: 'https://api.example.com', SMSLINK_API_KEY: KEY } });
    expect(tiny.code).toBe(2);
    expect(tiny.stderr).toContain('--timeout: invalid value "0.0001": must be a number of seconds from 0.001 to 3600');
    expect(tiny.stderr).not.toContain('timeoutMs');
    // A duration, as `inbox wait --timeout 30s` takes it: said to be each request's limit, with the flag a wait takes.
    // A flag is a usage error (2), the environment a configuration one (4).
    for (const [args, env, code] of [
      [['message', 'status', '1', '--wait', '--timeout', '2m'], {}, 2],
      [['link', 'list'], { SMSLINK_TIMEOUT: '30s' }, 4],
    ] as const) {
      const unit = await cli([...args], { env: { SMSLINK_BASE_URL: 'https://api.example.com', SMSLINK_API_KEY: KEY, ...env } });
      expect(unit.code).toBe(code);
      expect(unit.stderr).toMatch(/must be a number of seconds from 0\.001 to 3600, without a unit: it limits each request \(how long --wait waits is --wait-timeout\)\n$/);
    }
  });

  it('a key and a base URL given the wrong way round are refused, the key shown masked, wherever they come from', async () => {
    const { cli } = setup();
    const key = 'Ab3dEf6hIj9kLm2nOp5rSt8vWx1zAb3dEf6hIj9k';
    // A URL of its own: what is given as the key stays a secret of this (test) process.
    const swapped = await cli(['--base-url', key, '--api-key', 'https://swapped.example.net', 'link', 'get', '1']);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toBe('error: --api-key: invalid value "********.net": is a URL, not a key: are the base URL and the key given the wrong way round?\n');
    const keyAsUrl = await cli(['--base-url', key, 'link', 'get', '1'], { env: { SMSLINK_API_KEY: KEY } });
    expect(keyAsUrl.code).toBe(2);
    expect(keyAsUrl.stderr).toBe('error: --base-url: invalid value "********Ij9k": must be an http(s):// URL such as https://api.example.com\n');
    const fromEnv = await cli(['status'], { env: { SMSLINK_BASE_URL: key, SMSLINK_API_KEY: KEY } });
    expect(fromEnv.stderr).toContain('base-url from SMSLINK_BASE_URL: invalid value "********Ij9k"');
    for (const r of [swapped, keyAsUrl, fromEnv]) expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('a base URL with a user name and password, a query or a fragment is refused, the password never quoted back', async () => {
    const { cli } = setup();
    const withPassword = await cli(['config', 'set', 'base-url', 'https://user:s3cret-pw@api.example.com']);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('config set base-url: invalid value "https://***@api.example.com": must not hold a user name or password');
    const fromEnv = await cli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: 'https://user:s3cret-pw@api.example.com', SMSLINK_API_KEY: KEY } });
    expect(fromEnv.code).toBe(4);
    expect(fromEnv.stderr).toContain('base-url from SMSLINK_BASE_URL: invalid value "https://***@api.example.com"');
    for (const r of [withPassword, fromEnv]) expect(r.stdout + r.stderr).not.toContain('s3cret-pw');
    for (const url of ['https://api.example.com/v1?region=kz', 'https://api.example.com/#top']) {
      const r = await cli(['--base-url', url, 'link', 'get', '1'], { env: { SMSLINK_API_KEY: KEY } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--base-url: invalid value "${url}": must not hold a query (?...) or a fragment (#...)`);
    }
  });

  it('a bad value in the environment names where it came from (exit 4)', async () => {
    const { cli } = setup();
    const r = await cli(['link', 'get', '1'], { env: { SMSLINK_TIMEOUT: 'soon', SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('timeout from SMSLINK_TIMEOUT: invalid value "soon": must be a number of seconds');
  });

  it('the output setting picks the default format', async () => {
    const { cli } = setup();
    await cli(['config', 'set', 'output', 'csv']);
    const r = await cli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY } });
    expect(r.stdout.split('\n')[0]).toBe('id,code,shortLink,fullLink,status,moderatorStatus,clickCnt,createTs,expirationDate,comment');
  });

  it('an unreadable or broken file is reported, not ignored', async () => {
    const { dir, cli } = setup();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{oops', { mode: 0o600 });
    const r = await cli(['link', 'get', '1']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('is not valid JSON');
    expect(existsSync(join(dir, 'config.json'))).toBe(true);
  });

  it.each([
    ['an array', '[{"profiles":{}}]', 'is not a JSON object (it holds an array)'],
    ['null', 'null', 'is not a JSON object (it holds null)'],
    ['a number', '42', 'is not a JSON object (it holds a number)'],
    ['nested 100,000 deep', `{"profiles":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'is nested more than 16 levels deep'],
  ])('a config file holding %s is refused (exit 4, its path named) and never overwritten', async (_what, text, message) => {
    const { dir, cli } = setup();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, text, { mode: 0o600 });
    for (const args of [['config', 'set', 'base-url', server.url], ['config', 'unset', 'sender'], ['config', 'use', 'default'], ['link', 'get', '1']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(4);
      expect(r.stderr).toContain(`config file ${file} ${message}`);
      expect(r.stderr).not.toMatch(/RangeError|\n\s+at /);
      expect(r.stderr).not.toContain('Saved');
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a save that cannot get the lock in time says so, exits 4 and saves nothing', async () => {
    const { dir, cli } = setup();
    expect((await cli(['config', 'set', 'base-url', server.url])).code).toBe(0);
    const file = join(dir, 'config.json');
    const before = readFileSync(file, 'utf8');
    // Another smslink process saving: the same lock, held for longer than a save waits. smslink takes over a lock
    // not refreshed for 5 s; this one is refreshed every second. With the library's defaults (refreshed every 5 s)
    // it looked stale to the save now and then, which took it over and saved: the test failed under load.
    const { lock } = await import('proper-lockfile');
    const release = await lock(file, { realpath: false, lockfilePath: `${file}.lock`, stale: 5_000, update: 1_000 });
    try {
      const r = await cli(['config', 'set', 'sender', 'ACME']);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`config file ${file} is being saved by another smslink process, and it was still locked after 10 s; nothing was saved`);
      expect(r.stderr).not.toContain('Saved');
    } finally {
      await release();
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect((await cli(['config', 'set', 'sender', 'ACME'])).stderr).toContain('Saved sender = ACME');
  }, 60_000);
});
