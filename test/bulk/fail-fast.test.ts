// A bulk run stops when every row would fail the same way, as gh and stripe
// do: a refused key (exit 4, at most --concurrency requests sent) or a
// service out of reach (exit 3 within seconds, not every row's retries one
// after another). Rows never sent stay pending, and the rerun after the fix
// sends each row exactly once. Over HTTP against the emulator.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'FastKey0123456789abcdefABCDEF0123456789ab';
const WRONG = 'WrongKey0123456789abcdefABCDEF012345678';
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** The emulator, counting the Link/Create requests that reach it. */
async function emulator() {
  const creates = { n: 0 };
  emu = await startEmulator({
    port: 0,
    db: ':memory:',
    apiKeys: [KEY],
    hooks: {
      before(x) {
        if (/link\/create$/i.test(x.path)) creates.n += 1;
        return false;
      },
    },
  });
  return { url: emu.url, creates };
}

function linksFile(n: number): { path: string; urls: string[] } {
  const urls = Array.from({ length: n }, (_, i) => `https://example.com/fast/${i}`);
  const path = join(tempDir(), 'links.csv');
  writeFileSync(path, `fullLink\n${urls.join('\n')}\n`);
  return { path, urls };
}

/** A port on 127.0.0.1 that nothing listens on: one the system gave, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Rows of the journal by state (the last line of each row wins). */
function journalStates(input: string): Record<string, number> {
  const states = new Map<number, string>();
  for (const line of readFileSync(`${input}.journal`, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as { row?: number; state?: string };
    if (typeof entry.row === 'number' && entry.state) states.set(entry.row, entry.state);
  }
  const tally: Record<string, number> = {};
  for (const state of states.values()) tally[state] = (tally[state] ?? 0) + 1;
  return tally;
}

describe('a refused key', () => {
  it('50 rows with a wrong key: at most --concurrency requests, exit 4 with the single command\'s message; the rerun with the right key makes 50 links, none twice', async () => {
    const { url, creates } = await emulator();
    const { path, urls } = linksFile(50);
    const wrong = { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: WRONG };
    const single = await runCli(['link', 'create', 'https://example.com/one'], { env: wrong });
    expect(single.code).toBe(4);
    creates.n = 0;

    const r = await runCli(['link', 'create', '--from-file', path, '--concurrency', '4', '-q'], { env: wrong });
    expect(r.code).toBe(4);
    expect(creates.n).toBeGreaterThanOrEqual(1);
    expect(creates.n).toBeLessThanOrEqual(4);
    // The single command's error, word for word (its hint included), after the summary.
    expect(r.stderr.endsWith(single.stderr)).toBe(true);
    const pending = 50 - creates.n;
    expect(r.stderr).toContain(`link create: 0 done, ${creates.n} failed of 50 rows`);
    expect(r.stderr).toContain(`Stopped: the service refused the key, as it would for every row. ${pending} rows not sent: they stay pending in the journal`);
    expect(r.stdout).toBe('');
    expect(journalStates(path)).toEqual({ failed: creates.n });

    creates.n = 0;
    const rerun = await runCli(['link', 'create', '--from-file', path, '-q'], { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY } });
    expect(rerun.code).toBe(0);
    expect(creates.n).toBe(50);
    const listed = await runCli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'], { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY } });
    const made = listed.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { fullLink: string }).fullLink);
    expect(made.sort()).toEqual([...urls].sort());
  }, 60_000);

  it('a refused key on a file whose every row went out leaves none pending: the summary says only that a rerun sends the failed rows', async () => {
    const { url, creates } = await emulator();
    const { path } = linksFile(2);
    const r = await runCli(['link', 'create', '--from-file', path, '--concurrency', '4', '-q'], { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: WRONG } });
    expect(r.code).toBe(4);
    expect(creates.n).toBe(2);
    expect(r.stderr).toContain('link create: 0 done, 2 failed of 2 rows');
    expect(r.stderr).toContain('Stopped: the service refused the key, as it would for every row. Once this is fixed, rerun the same command: it sends the failed rows, each once.');
    expect(r.stderr).not.toContain('not sent');
  }, 60_000);
});

describe('a service out of reach', () => {
  it('50 rows against a closed port: exit 3 after the first rows, the rows never sent left pending', async () => {
    const port = await closedPort();
    const { path } = linksFile(50);
    const r = await runCli(['link', 'create', '--from-file', path, '--concurrency', '4'], { env: { SMSLINK_BASE_URL: `http://127.0.0.1:${port}`, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: link create: connection refused by 127.0.0.1:${port}`);
    expect(r.stderr).toContain('Is the service up at that address?');
    const failed = Number(/0 done, (\d+) failed of 50 rows/.exec(r.stderr)?.[1]);
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(failed).toBeLessThanOrEqual(4);
    expect(r.stderr).toContain(`Stopped: the service could not be reached, and no row got through. ${50 - failed} rows not sent`);
    expect(journalStates(path)).toEqual({ failed });
  }, 60_000);
});
