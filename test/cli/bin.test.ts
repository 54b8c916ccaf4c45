// The built bin as a user runs it: real process, real exit codes, data on
// stdout and messages on stderr.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy } from '../helpers/forward-proxy.js';
import { LIVE_LINK, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { binEnv, tempDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

function bin(args: string[], env: Record<string, string> = {}, input?: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    // spawnSync would block the event loop that serves the recording server.
    import('node:child_process').then(({ spawn }) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: binEnv(env),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  });
}

describe('bin/smslink.js', () => {
  it('--version prints the package version', () => {
    const r = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8', env: binEnv() });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('puts data on stdout and nothing on stderr on success', async () => {
    const r = await bin(['link', 'create', 'https://example.com', '-q'], { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' });
    expect(r).toEqual({ status: 0, stdout: 'https://sho.rt/ddoj\n', stderr: '' });
  });

  // The bundle hands env-paths Node's modules itself, not esbuild's copies of them (scripts/bundle.mjs).
  it('keeps its config and sandbox where env-paths puts them when no SMSLINK_*_DIR says otherwise', async () => {
    const home = tempDir();
    const env = { SMSLINK_CONFIG_DIR: undefined, SMSLINK_DATA_DIR: undefined, HOME: home, XDG_CONFIG_HOME: join(home, 'cfg'), XDG_DATA_HOME: join(home, 'data') } as unknown as Record<string, string>;
    expect(await bin(['config', 'path'], env)).toEqual({ status: 0, stdout: `${join(home, 'cfg', 'smslink', 'config.json')}\n`, stderr: '' });
    expect(await bin(['sandbox', 'path'], env)).toEqual({ status: 0, stdout: `${join(home, 'data', 'smslink', 'sandbox.db')}\n`, stderr: '' });
    const set = await bin(['config', 'set', 'base-url', 'https://api.example.com'], env);
    expect(set.status).toBe(0);
    expect((await bin(['config', 'get', 'base-url'], env)).stdout).toBe('https://api.example.com\n');
  });

  // The bin leaves its keep-alive connection to the exit (RunContext releases the client, no graceful close).
  it('writes the whole of a large output before it exits, and the server sees the connection closed', async () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ ...LIVE_LINK, id: String(i + 1), comment: `row ${i + 1} ${'x'.repeat(200)}` }));
    server.respond((req) => (req.path.endsWith('/Link/List') ? { body: { code: 0, data: { items, totalItemCount: String(items.length) }, message: '' } } : undefined));
    const closed = new Promise<void>((resolve) => server.server.once('connection', (socket) => socket.on('close', () => resolve())));
    try {
      const r = await bin(['link', 'list', '-o', 'ndjson'], { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' });
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(3000);
      expect(JSON.parse(lines[2999])).toMatchObject({ id: 3000, comment: `row 3000 ${'x'.repeat(200)}` });
      await closed;
    } finally {
      server.respond(undefined);
    }
  });

  // The bin aborts the run's AbortSignal on the first Ctrl-C.
  describe('Ctrl-C', () => {
    /** Starts the bin, sends SIGINT once `ready()` holds, and resolves with its exit. */
    async function interrupted(args: string[], env: Record<string, string>, ready: () => boolean) {
      const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.on('data', (d) => (stdout += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await expect.poll(ready, { timeout: 10_000 }).toBe(true);
      child.kill('SIGINT');
      const code = await exited;
      return { code, stdout, stderr };
    }

    it('stops a request in flight that would never be answered: exit 130', async () => {
      const held: Socket[] = [];
      const silent = createServer((socket) => held.push(socket.on('data', () => undefined)));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const port = (silent.address() as { port: number }).port;
        // No answer comes, and the timeout is longer than the test: only Ctrl-C can end the run.
        const env = { SMSLINK_BASE_URL: `http://127.0.0.1:${port}`, SMSLINK_API_KEY: 'BinKey0123456789', SMSLINK_TIMEOUT: '600' };
        const r = await interrupted(['link', 'get', '1'], env, () => held.length > 0);
        expect(r.code).toBe(130);
        expect(r.stderr).toContain('link get: interrupted');
      } finally {
        for (const socket of held) socket.destroy();
        silent.close();
      }
    });

    it('ends a --wait between polls: exit 130', async () => {
      server.respond((req) => (req.path.endsWith('/Message/GetSMSStatus') ? { body: { code: 0, data: [{ id: '5', status: 'ENQUEUD' }], message: '' } } : undefined));
      try {
        const before = server.requests.length;
        const r = await interrupted(
          ['message', 'status', '5', '--wait', '--wait-timeout', '5m'],
          { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' },
          () => server.requests.length > before,
        );
        // The wait would go on for 5 minutes: the run ended because of Ctrl-C.
        expect(r.code).toBe(130);
        expect(r.stderr).toContain('interrupted while waiting; not final yet: 5');
        // What was read so far is still printed: a script keeps the statuses it got.
        expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ id: 5, status: 'ENQUEUD' })]);
      } finally {
        server.respond(undefined);
      }
    });

    it('ends message send --wait with the sent message on stdout: a script keeps its messageId', async () => {
      server.respond((req) => (req.path.endsWith('/Message/GetSMSStatus') ? { body: { code: 0, data: [{ id: '123456', status: 'ENQUEUD' }], message: '' } } : undefined));
      try {
        const before = server.requests.length;
        const r = await interrupted(
          ['message', 'send', '--to', '77011234567', '--text', 'hi', '--wait', '--wait-timeout', '5m'],
          { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' },
          () => server.requests.slice(before).some((q) => q.path.endsWith('/Message/GetSMSStatus')),
        );
        expect(r.code).toBe(130);
        expect(r.stderr).toContain('interrupted while waiting; not final yet: 123456');
        expect(JSON.parse(r.stdout)).toMatchObject({ messageId: 123456, deliveryStatus: 'ENQUEUD' });
      } finally {
        server.respond(undefined);
      }
    });
  });

  it('exits 2 on invalid input with the message on stderr only', async () => {
    const r = await bin(['link', 'create', 'nope'], { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: <fullLink>: invalid value "nope"/);
  });

  it('exits 4 without configuration and 5 on partial deletes', async () => {
    expect((await bin(['link', 'get', '1'])).status).toBe(4);
    const partial = await bin(['link', 'delete', '1', '999'], { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' });
    expect(partial.status).toBe(5);
    expect(JSON.parse(partial.stdout)).toEqual({ processed: [1], notProcessed: [999] });
    expect(partial.stderr).toContain('999');
  });

  // Paths the bundle reaches through dynamic imports of built-ins and packages (csv-parse, node:fs/promises, node:tls).
  it('checks a CSV file with --validate-only and reads --ca-file', async () => {
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, 'fullLink,status\nhttps://example.com/a,active\nnope,active\n');
    const checked = await bin(['link', 'create', '--from-file', file, '--validate-only']);
    expect(checked.status).toBe(2);
    expect(checked.stderr).toContain('2 rows checked: 1 valid, 1 invalid');
    const ca = fileURLToPath(new URL('../fixtures/tls/ca.pem', import.meta.url));
    const got = await bin(['link', 'get', '417863', '-q', '--ca-file', ca], { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789' });
    expect(got).toEqual({ status: 0, stdout: 'https://sho.rt/ddoj\n', stderr: '' });
  });

  // The bin runs the bundle, whose undici is a smaller entry (scripts/undici-cli.js): all three agents must be in it.
  it('sends through a proxy from HTTP_PROXY and from --proxy, and to loopback directly', async () => {
    const proxy = await startForwardProxy();
    try {
      // api.smslink.test is not loopback for smslink; only the test proxy knows it is this machine.
      const remote = `http://api.smslink.test:${new URL(server.url).port}`;
      const env = { SMSLINK_BASE_URL: remote, SMSLINK_API_KEY: 'BinKey0123456789' };
      const args = ['link', 'get', '417863', '-q', '--allow-insecure-http'];
      const fromEnv = await bin(args, { ...env, HTTP_PROXY: proxy.url });
      const fromFlag = await bin([...args, '--proxy', proxy.url], env);
      const direct = await bin(args, { ...env, SMSLINK_BASE_URL: server.url, HTTP_PROXY: proxy.url });
      expect([fromEnv, fromFlag, direct].map((r) => [r.status, r.stdout])).toEqual(Array(3).fill([0, 'https://sho.rt/ddoj\n']));
      expect(proxy.proxied).toEqual([`CONNECT ${new URL(remote).host}`, `CONNECT ${new URL(remote).host}`]);
    } finally {
      proxy.close();
    }
  });

  it('a closed pipe ends the command quietly, without a crash', async () => {
    server.respond((req) =>
      req.path.endsWith('List')
        ? { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => ({ id: String(i), comment: 'x'.repeat(2000) })), totalItemCount: '100000' }, message: '' } }
        : undefined,
    );
    const child = spawn(process.execPath, [BIN, 'link', 'list', '--all', '-o', 'ndjson'], {
      env: binEnv({ SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'BinKey0123456789abcdef' }),
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    server.respond(undefined);
    expect(stderr).not.toContain('crashed');
    expect(stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(code).not.toBe(1);
  });
});
