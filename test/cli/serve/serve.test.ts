// `smslink serve`, `--sandbox` and `smslink sandbox`: the emulator as users start it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/run.js';
import { runCli, binEnv, tempDir } from '../../helpers/run-cli.js';
import { TOOK } from '../../helpers/emulator.js';

const BIN = fileURLToPath(new URL('../../../bin/smslink.js', import.meta.url));

/** Starts `serve` in-process; resolves with its URL once the first line is out. */
async function serveInProcess(args: string[], env: Record<string, string> = {}) {
  const ac = new AbortController();
  let out = '';
  let err = '';
  let announce: (url: string) => void;
  const ready = new Promise<string>((resolve) => (announce = resolve));
  const done = run(['serve', '--port', '0', ...args], {
    stdout: {
      write: (s: string) => {
        out += s;
        const m = /^listening on (\S+)$/m.exec(out);
        if (m) announce(m[1]);
        return true;
      },
    },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: process.stdin,
    env: { SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir(), ...env },
    signal: ac.signal,
  });
  const url = await Promise.race([ready, done.then((code) => Promise.reject(new Error(`serve exited ${code}: ${err}`)))]);
  return { url, stop: async () => (ac.abort(), done), output: () => out, errors: () => err };
}

describe('smslink serve', () => {
  it('answers a GET without output and api, with an empty from, as public client libraries send it, and its help says so', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--api-key', 'key-one-123456']);
    try {
      const res = await request(`${s.url}/service/message/sendsmsmessage?recipient=77011234567&from=&text=hi&apiKey=key-one-123456`);
      expect(await res.body.json()).toMatchObject({ code: 0, data: { messageId: expect.stringMatching(/^\d+$/), status: 2 } });
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const help = await runCli(['serve', '--help']);
    expect(help.stdout).toContain('output and api may be left out');
    expect(help.stdout).toContain('setConfig({ apiServer');
  });

  it('prints where it listens and its keys, serves every key, and stops with exit 0', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--api-key', 'key-one-123456', '--api-key', 'key-two-123456']);
    // Masked: keys of fewer than 16 characters show stars only.
    expect(s.output().split('\n').slice(0, 2)).toEqual([`listening on ${s.url}`, 'accepting API keys: ************, ************']);
    const env = { SMSLINK_BASE_URL: s.url };
    const made = await runCli(['link', 'create', 'https://example.com/served', '-q'], { env: { ...env, SMSLINK_API_KEY: 'key-one-123456' } });
    expect(made.stdout).toMatch(new RegExp(`^${s.url}/[0-9A-Za-z]{4,}\\n$`));
    expect((await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_API_KEY: 'key-two-123456' } })).stdout).toBe('');
    expect((await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_API_KEY: 'wrong-key-1234' } })).code).toBe(4);
    expect(await s.stop()).toBe(0);
  });

  it('--balance and --currency set what User/GetOwnBalance answers, which `smslink api` reaches', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--api-key', 'key-one-123456', '--balance', '5', '--currency', 'USD', '--price', '0.05']);
    try {
      const env = { SMSLINK_BASE_URL: s.url, SMSLINK_API_KEY: 'key-one-123456' };
      expect((await runCli(['message', 'send', '--to', '+77011234567', '--text', 'hi', '-q'], { env })).code).toBe(0);
      const r = await runCli(['api', 'User/GetOwnBalance'], { env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ balance: '4.9500', currency: 'USD' });
    } finally {
      expect(await s.stop()).toBe(0);
    }
    const help = (await runCli(['serve', '--help'])).stdout;
    expect(help).toContain('--balance <amount>');
    expect(help).toContain('--currency <code>');
    expect((await runCli(['api', '--help'])).stdout).toContain('smslink api User/GetOwnBalance');
  });

  it('refuses bad flags with exit 2', async () => {
    expect((await runCli(['serve', '--port', 'x'])).stderr).toContain('--port: invalid value "x"');
    const balance = await runCli(['serve', '--port', '0', '--db', ':memory:', '--balance', '-1']);
    expect([balance.code, balance.stderr]).toEqual([2, expect.stringContaining('--balance: invalid value "-1": must be zero or more')]);
    const currency = await runCli(['serve', '--port', '0', '--db', ':memory:', '--currency', 'tenge']);
    expect([currency.code, currency.stderr]).toEqual([2, expect.stringContaining('--currency: invalid value "tenge": must be an ISO 4217 code')]);
    expect((await runCli(['serve', '--port', '0', '--db', ':memory:', '--block-pattern', '(', '--fault-rate', '0'])).code).toBe(2);
    expect((await runCli(['serve', '--fault-rate', '2'])).code).toBe(2);
    for (const origin of ['*', 'localhost:3000', 'http://localhost:3000/app', 'file:///tmp']) {
      const cors = await runCli(['serve', '--port', '0', '--db', ':memory:', '--cors', origin]);
      expect([cors.code, cors.stderr]).toEqual([2, expect.stringContaining(`--cors: invalid value "${origin}": must be the scheme, host and port of the web app`)]);
    }
    for (const [args, message] of [
      [['--tz', 'Mars/Olympus'], '--tz: invalid value "Mars/Olympus": must be a time zone such as Asia/Almaty, Europe/Berlin or UTC'],
      [['--api-key', ''], '--api-key: invalid value "": must not be empty'],
      [['--sender', 'SHOP', '--sender', ''], '--sender: invalid value "": must not be empty'],
      [['--control-token', ''], '--control-token: invalid value "": must not be empty'],
      [['--short-base', 'notaurl'], '--short-base: invalid value "notaurl": must be an http(s):// URL of a host (and path), such as https://sho.rt'],
      [['--short-base', 'ftp://x.example/'], '--short-base: invalid value "ftp://x.example/"'],
    ] as const) {
      const r = await runCli(['serve', '--port', '0', '--db', ':memory:', ...args]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  });

  it('as a real process: SIGTERM finishes and exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:'], { env: binEnv() });
    let out = '';
    const url = await new Promise<string>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]);
      }),
    );
    const res = await request(`${url}/service/Link/List?output=json&api=v1&apiKey=sandbox`, { method: 'POST' });
    expect(JSON.parse(await res.body.text())).toMatchObject({ code: 0 });
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
  });

  it('as a real process: prints one line per request (time, operation, code, ms, key masked); never the key', async () => {
    const key = 'served-key-0123456789abcdef';
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:', '--api-key', key], { env: binEnv() });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const until = async (pattern: RegExp) => {
      for (let i = 0; i < 600 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      return pattern.exec(out);
    };
    try {
      const url = (await until(/listening on (\S+)/))![1];
      const call = async (path: string, body: string, apiKey: string) =>
        JSON.parse(await (await request(`${url}/service/${path}?output=json&api=v1&apiKey=${apiKey}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).body.text());
      const made = await call('Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Flogged', key);
      await (await request(made.data.shortLink as string)).body.text();
      await call('Link/List', '', `${key}x`);
      const lines = (await until(/Link\/List.*\n/)) && out.split('\n').filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}/.test(l));
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(String.raw`^\S+ \S+ {2}Link\/Create {2}code 0 {2}${TOOK} {2}key \*{8}cdef$`)),
        expect.stringMatching(new RegExp(String.raw`^\S+ \S+ {2}visit \/\w+ {2}302 {2}${TOOK}$`)),
        expect.stringMatching(new RegExp(String.raw`^\S+ \S+ {2}Link\/List {2}code 8 {2}${TOOK} {2}key \*{8}defx$`)),
      ]);
      expect(out).toContain('accepting API keys: ********cdef\n');
      expect(out).not.toContain(key.slice(0, 8));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    }
  });

  it('--quiet prints no request lines', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--quiet']);
    await (await request(`${s.url}/service/Link/List?output=json&api=v1&apiKey=sandbox`, { method: 'POST' })).body.text();
    expect(await s.stop()).toBe(0);
    expect(s.output()).not.toMatch(/Link\/List/);
    const loud = await serveInProcess(['--db', ':memory:']);
    await (await request(`${loud.url}/service/Link/List?output=json&api=v1&apiKey=sandbox`, { method: 'POST' })).body.text();
    // Lines go out together, within 50 ms.
    await expect.poll(() => loud.output(), { timeout: 5_000 }).toMatch(new RegExp(String.raw`^2\S+ \S+ {2}Link\/List {2}code 0 {2}${TOOK} {2}key \*{12}$`, 'm'));
    // A line still waiting when serve stops is written before it exits.
    await (await request(`${loud.url}/service/Link/Get?output=json&api=v1&apiKey=sandbox&id=1`, { method: 'POST' })).body.text();
    expect(await loud.stop()).toBe(0);
    expect(loud.output()).toMatch(/ {2}Link\/Get {2}code 2 /);
  });

  it('under load every request has its line, once: lines go out in batches, by time or by count', async () => {
    const s = await serveInProcess(['--db', ':memory:']);
    const calls = Array.from({ length: 300 }, () => request(`${s.url}/service/User/GetOwnBalance?output=json&api=v1&apiKey=sandbox`, { method: 'POST' }).then((r) => r.body.text()));
    await Promise.all(calls);
    expect(await s.stop()).toBe(0);
    expect(s.output().match(/ {2}User\/GetOwnBalance {2}code 0 /g)).toHaveLength(300);
  });

  it('serve checks --faults even without --fault-rate', async () => {
    const r = await runCli(['serve', '--port', '0', '--db', ':memory:', '--faults', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--faults: unknown fault "bogus"');
  });
});

describe('serve: inspector, seed files, control token', () => {
  it('prints the inspector URL; --no-inspector turns the inspector off', async () => {
    const s = await serveInProcess(['--db', ':memory:']);
    expect(s.output().split('\n')[2]).toBe(`inspector: ${s.url}/`);
    expect(await (await request(`${s.url}/`)).body.text()).toContain('<h1>Messages</h1>');
    await s.stop();
    const off = await serveInProcess(['--db', ':memory:', '--no-inspector']);
    expect(off.output()).not.toContain('inspector');
    expect(await (await request(`${off.url}/`)).body.text()).toContain('This is the smslink emulator');
    await off.stop();
  });

  it('serve init writes a starter seed that serve --seed starts with; it never replaces a file unasked', async () => {
    const dir = tempDir();
    const file = join(dir, 'seed.yaml');
    const made = await runCli(['serve', 'init', file]);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain(`Wrote ${file}`);
    expect(readFileSync(file, 'utf8')).toMatch(/^# A seed for the smslink emulator/);
    const again = await runCli(['serve', 'init', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file} already exists; pass --force to replace it`);
    writeFileSync(file, 'changed');
    expect((await runCli(['serve', 'init', file, '--force'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^# A seed/);

    const s = await serveInProcess(['--db', ':memory:', '--seed', file]);
    expect(s.output()).toContain('accepting API keys: ************, ************');
    expect(s.errors()).toContain(`seeded from ${file}`);
    const links = await runCli(['link', 'list', '-o', 'json'], { env: { SMSLINK_BASE_URL: s.url, SMSLINK_API_KEY: 'test-key-1' } });
    expect((JSON.parse(links.stdout) as Array<{ shortLink: string }>).map((l) => l.shortLink)).toContain(`${s.url}/spring`);
    await s.stop();

    const json = join(dir, 'seed.json');
    expect((await runCli(['serve', 'init', json])).code).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8')).keys).toEqual(['test-key-1', 'test-key-2']);
  });

  it('serve init names smslink-seed.yaml in the current directory by default', async () => {
    const dir = tempDir();
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect((await runCli(['serve', 'init'])).code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    expect(existsSync(join(dir, 'smslink-seed.yaml'))).toBe(true);
  });

  it('refuses a bad seed file with exit 2, naming the file, the entry and the rule', async () => {
    const file = join(tempDir(), 'bad.yaml');
    writeFileSync(file, 'links:\n  - { fullLink: https://example.com/a, expirationDate: 2030-02-30 }\n');
    const r = await runCli(['serve', '--port', '0', '--db', ':memory:', '--seed', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: --seed ${file}: links[0].expirationDate: invalid value "2030-02-30": must be a real date written YYYY-MM-DD\n`);
    const missing = await runCli(['serve', '--port', '0', '--seed', join(tempDir(), 'none.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: --seed: cannot read ".*none\.yaml": there is no such file\n$/);
  });

  it('still takes a whole-number --seed as the fault seed, with a warning; --fault-seed is checked', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--seed', '7', '--fault-rate', '0']);
    expect(s.errors()).toContain('warning: --seed 7: a number here is the fault seed, now --fault-seed');
    await s.stop();
    const bad = await runCli(['serve', '--port', '0', '--fault-seed', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fault-seed: invalid value "x": must be a whole number');
  });

  it('needs the --control-token for the control API when one is given, and never prints it', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--control-token', 'my-control-token-123']);
    expect((await request(`${s.url}/_emulator/messages`)).statusCode).toBe(401);
    expect((await request(`${s.url}/_emulator/messages`, { headers: { authorization: 'Bearer my-control-token-123' } })).statusCode).toBe(200);
    await s.stop();
    expect(s.output() + s.errors()).not.toContain('my-control-token-123');
  });
});

describe('--sandbox', () => {
  it('SMSLINK_SANDBOX is a switch: yes or on are the sandbox too, and a value it does not know is refused rather than read as off', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir(), SMSLINK_BASE_URL: 'https://api.example.com', SMSLINK_API_KEY: 'RealKey0123456789abcdefABCDEF0123456789ab' };
    for (const on of ['yes', 'On', 'true']) {
      const r = await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_SANDBOX: on } });
      expect(r.code).toBe(0);
    }
    const typo = await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_SANDBOX: 'yess' } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('SMSLINK_SANDBOX: invalid value "yess": must be 1, true, yes, on (the local emulator) or 0, false, no, off');
    expect((await runCli(['link', 'list', '-q', '--dry-run'], { env: { ...env, SMSLINK_SANDBOX: 'no' } })).stdout).toContain('https://api.example.com/service/Link/List');
  });

  it('keeps state between commands in the data directory, and serve opens the same links', async () => {
    const data = tempDir();
    const env = { SMSLINK_DATA_DIR: data };
    const made = JSON.parse((await runCli(['--sandbox', 'link', 'create', 'https://example.com/some/long/path'], { env })).stdout) as { id: number; code: string };
    expect(existsSync(join(data, 'sandbox.db'))).toBe(true);
    expect((await runCli(['link', 'get', String(made.id)], { env: { ...env, SMSLINK_SANDBOX: '1' } })).code).toBe(0);
    expect((await runCli(['sandbox', 'path'], { env })).stdout).toBe(`${join(data, 'sandbox.db')}\n`);

    // serve on the same database redirects the sandbox's short link
    const s = await serveInProcess([], env);
    const res = await request(`${s.url}/${made.code}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/some/long/path');
    await s.stop();

    expect((await runCli(['sandbox', 'reset'], { env })).stderr).toContain('Sandbox emptied');
    expect((await runCli(['--sandbox', 'link', 'get', String(made.id)], { env })).code).toBe(6);
  });

  it('says so on a terminal the first time in a data directory (and with --verbose), and needs no key or base URL', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir() };
    const first = await runCli(['--sandbox', 'link', 'list', '--no-color'], { env, tty: true });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('Using the sandbox');
    const again = await runCli(['--sandbox', 'link', 'list', '--no-color'], { env, tty: true });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('Using the sandbox');
    expect((await runCli(['--sandbox', 'link', 'list', '-q'], { env, tty: true })).stderr).toBe('');
    expect((await runCli(['--sandbox', 'link', 'list', '--verbose'], { env, tty: true })).stderr).toContain('Using the sandbox');
  });
});
