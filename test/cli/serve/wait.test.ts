// `smslink serve wait`: a CI job's wait for the emulator it started in the
// background. Exit 0 once /_emulator/readyz answers; 3 at --timeout, with
// what it saw last.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { runCli, startCli } from '../../helpers/run-cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback port nothing listens on (taken from the system, then let go). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe('smslink serve wait', () => {
  it('waits for a serve that starts late, and exits 0 as soon as it is ready', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const waiting = startCli(['serve', 'wait', url, '--timeout', '30s']);
    let finished = false;
    void waiting.done.then(() => (finished = true));
    await sleep(1500);
    expect(finished).toBe(false);
    const emulator = await startEmulator({ port, db: ':memory:' });
    try {
      const r = await waiting.done;
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^${url} is ready \\(after \\d+\\.\\d s\\)\\n$`));
    } finally {
      await emulator.close();
    }
  });

  it('takes the base URL when no URL is given, and -q says nothing', async () => {
    const emulator = await startEmulator({ port: 0, db: ':memory:', inspector: false, controlToken: 'tok-0123456789' });
    try {
      expect(await runCli(['serve', 'wait', '-q'], { env: { SMSLINK_BASE_URL: emulator.url } })).toEqual({ code: 0, stdout: '', stderr: '' });
    } finally {
      await emulator.close();
    }
  });

  it('exits 3 at --timeout, saying what it saw: nothing listening, or something that is not serve', async () => {
    const port = await freePort();
    const refused = await runCli(['serve', 'wait', `http://127.0.0.1:${port}`, '--timeout', '1s']);
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(refused.stderr).toBe(`error: the emulator at http://127.0.0.1:${port} was not ready within 1s (--timeout): connection refused\n`);

    const other = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not here</html>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const r = await runCli(['serve', 'wait', url, '--timeout', '1s']);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(`error: the emulator at ${url} was not ready within 1s (--timeout): HTTP 404, not smslink serve (is something else on that port?)\n`);
    } finally {
      other.close();
    }
  });

  it('refuses a bad --timeout or URL before waiting (exit 2)', async () => {
    expect((await runCli(['serve', 'wait', '--timeout', 'soon'])).stderr).toBe('error: --timeout: invalid value "soon": must be a duration such as 90s, 10m or 1h\n');
    for (const url of ['ftp://127.0.0.1:1', '127.0.0.1:8080', 'http://[::1', '']) {
      expect(await runCli(['serve', 'wait', url])).toMatchObject({ code: 2, stderr: `error: "${url}" is not an http:// or https:// URL, such as http://127.0.0.1:8080\n` });
    }
  });
});
