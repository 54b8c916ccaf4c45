// `smslink serve`, `--sandbox` and `smslink sandbox`: the emulator as users start it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { runCli, binEnv, tempDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));

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
  it('prints where it listens and its keys, serves every key, and stops with exit 0', async () => {
    const s = await serveInProcess(['--db', ':memory:', '--api-key', 'key-one-123456', '--api-key', 'key-two-123456']);
    expect(s.output().split('\n').slice(0, 2)).toEqual([`listening on ${s.url}`, 'accepting API keys: key-one-123456, key-two-123456']);
    const env = { SMSLINK_BASE_URL: s.url };
    const made = await runCli(['link', 'create', 'https://example.com/served', '-q'], { env: { ...env, SMSLINK_API_KEY: 'key-one-123456' } });
    expect(made.stdout).toMatch(new RegExp(`^${s.url}/[0-9A-Za-z]{4,}\\n$`));
    expect((await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_API_KEY: 'key-two-123456' } })).stdout).toBe('');
    expect((await runCli(['link', 'list', '-q'], { env: { ...env, SMSLINK_API_KEY: 'wrong-key-1234' } })).code).toBe(4);
    expect(await s.stop()).toBe(0);
  });

  it('refuses bad flags with exit 2', async () => {
    expect((await runCli(['serve', '--port', 'x'])).stderr).toContain('--port: invalid value "x"');
    expect((await runCli(['serve', '--port', '0', '--db', ':memory:', '--block-pattern', '(', '--fault-rate', '0'])).code).toBe(2);
    expect((await runCli(['serve', '--fault-rate', '2'])).code).toBe(2);
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
});

describe('--sandbox', () => {
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
