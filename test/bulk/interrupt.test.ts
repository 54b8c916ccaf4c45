// A bulk run stopped part way: Ctrl-C (once: what is in flight finishes;
// twice: it stops at once), a closed output pipe, kill -9. Each time the
// summary says what happened, the journal is right, and the rerun ends with
// every row in the service exactly once. The real bin runs in a process of
// its own where a real signal or pipe is needed; the emulator, or a
// recording server with a fake service, runs in this process.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { binEnv, runCli, runInterrupted, tempDir } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { fakeService, type FakeService } from '../helpers/fake-service.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
const KEY = 'ProcKey0123456789abcdefABCDEF0123456789ab';
const emulators: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of emulators.splice(0)) await e.close();
});

async function emulator(opts: { faultRate?: number; faults?: string } = {}) {
  const emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY], ...opts });
  emulators.push(emu);
  const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
  return { emu, env, cli: (args: string[]) => runCli(args, { env }) };
}

const ndjson = (text: string) => (text.trim() ? text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exited = (child: ReturnType<typeof spawn>) => new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

/** The journal of an input as it is now ('' before the run made it). */
function journalOf(input: string): string {
  try {
    return readFileSync(`${input}.journal`, 'utf8');
  } catch {
    return '';
  }
}

function linksFile(n: number, tag: string): { path: string; urls: string[] } {
  const urls = Array.from({ length: n }, (_, i) => `https://example.com/${tag}/${i}`);
  const path = join(tempDir(), `${tag}.csv`);
  writeFileSync(path, `fullLink\n${urls.join('\n')}\n`);
  return { path, urls };
}

describe('a closed output pipe', () => {
  it('`| head -1` under pipefail over 2,000 rows at --concurrency 4: exit 141, one line with the rows left and the journal, at most 4 links beyond the first', async () => {
    const { env, cli } = await emulator();
    const { path } = linksFile(2000, 'pipe');
    for (const format of ['-q', '-o ndjson']) {
      const before = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'id'])).stdout).length;
      const script = `set -o pipefail; "${process.execPath}" "${BIN}" link create --from-file "${path}" --concurrency 4 ${format} --fresh | head -1; echo "PIPESTATUS=\${PIPESTATUS[*]}" >&2`;
      const child = spawn('bash', ['--norc', '--noprofile', '-c', script], { env: binEnv(env) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      await exited(child);
      const made = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'id'])).stdout).length - before;
      // --fresh's own warning aside, the run says one thing: what is left, and the journal to rerun.
      const lines = stderr.split('\n').filter((l) => l && !l.startsWith('warning:'));
      console.log(`| head -1 (${format}): ${made} links made; ${lines[0]}`);
      expect(lines.at(-1)).toBe('PIPESTATUS=141 0');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^link create: the output was closed after \d+ of 2000 rows were done; \d+ rows left: rerun the same command to send them \(journal: .*pipe\.csv\.journal\)\.$/);
      expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(made).toBeGreaterThanOrEqual(1);
      expect(made).toBeLessThanOrEqual(5);
    }
  });
});

describe('Ctrl-C on a stalled run', () => {
  it('twice: the first says what it waits for, the second ends the run though requests never answer: exit 130, the summary, the CSV header kept', async () => {
    const { env } = await emulator({ faultRate: 0.5, faults: 'stall' });
    const { path } = linksFile(40, 'stall');
    const out = join(tempDir(), 'out.csv');
    const child = spawn(process.execPath, [BIN, 'link', 'create', '--from-file', path, '-o', 'csv'], { env: binEnv(env), stdio: ['ignore', openSync(out, 'w'), 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = exited(child);
    // Stalled: every slot holds a request the emulator never answers.
    while (!journalOf(path).includes('"sending"')) await sleep(20);
    await sleep(500);
    child.kill('SIGINT');
    // The stalled requests never answer: the run goes on until it is told again.
    await expect.poll(() => stderr, { timeout: 15_000 }).toMatch(/stopping: waiting for \d+ requests? in flight \(Ctrl-C again to stop now\)/);
    // The bin takes a second signal within 0.3 s of the first for the same one sent twice: the second is sent
    // 0.4 s after the first was seen handled (it said "stopping"), so the bin sees them more than 0.3 s apart.
    await sleep(400);
    child.kill('SIGINT');
    expect(await code).toBe(130);
    expect(stderr).toMatch(/link create: \d+ done, \d+ unknown of 40 rows/);
    expect(stderr).toMatch(/Stopped at once, with \d+ requests? in flight/);
    const csv = readFileSync(out, 'utf8');
    expect(csv.split('\n')[0]).toBe('row,state,id,code,shortLink,error');
    // The journal is right: every row it says is done was printed, the rows in flight read as unknown.
    const journal = readFileSync(`${path}.journal`, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { row: number; state: string });
    const printedDone = csv.trim().split('\n').slice(1).filter((l) => l.split(',')[1] === 'done').map((l) => Number(l.split(',')[0]));
    expect(journal.filter((e) => e.state === 'done').map((e) => e.row).sort()).toEqual(printedDone.sort());
    expect(journal.filter((e) => e.state === 'unknown').length).toBeGreaterThan(0);
  });
});

describe('kill -9 at a random moment, then a rerun', () => {
  it('five times over 1,000 rows: no duplicates, nothing missing', async () => {
    const ROWS = 1000;
    const { env, cli } = await emulator();
    const report: string[] = [];
    for (let trial = 0; trial < 5; trial++) {
      const sms = trial % 2 === 1;
      const tag = `kill${trial}`;
      const path = join(tempDir(), `${tag}.csv`);
      const keys = Array.from({ length: ROWS }, (_, i) => (sms ? `7705${trial}${String(100000 + i)}` : `https://example.com/${tag}/${i}`));
      writeFileSync(path, sms ? `recipient\n${keys.join('\n')}\n` : `fullLink,comment\n${keys.map((k) => `${k},${tag}`).join('\n')}\n`);
      const args = sms ? ['message', 'send', '--from-file', path, '--text', `kill drill ${trial}`] : ['link', 'create', '--from-file', path];
      const child = spawn(process.execPath, [BIN, ...args, '--concurrency', '16', '-o', 'ndjson'], { env: binEnv(env), stdio: 'ignore' });
      const code = exited(child);
      // A random moment: once the journal shows a random number of rows sent.
      const at = 1 + Math.floor(Math.random() * (ROWS - 50));
      let sent = 0;
      for (;;) {
        sent = journalOf(path).split('"sending"').length - 1;
        if (sent >= at || child.exitCode !== null) break;
        await sleep(2);
      }
      child.kill('SIGKILL');
      await code;
      const rerun = await cli([...args, '-o', 'ndjson']);
      expect(rerun.code, rerun.stderr).toBe(0);
      const list = sms ? ['message', 'list', '--text', `kill drill ${trial}`, '--fields', 'to'] : ['link', 'list', '--query', tag, '--fields', 'fullLink'];
      const mine = ndjson((await cli([...list, '--all', '-o', 'ndjson'])).stdout).map((x) => String(x.to ?? x.fullLink));
      expect(mine).toHaveLength(ROWS);
      expect(new Set(mine)).toEqual(new Set(keys));
      report.push(`trial ${trial + 1} (${sms ? 'message send' : 'link create'}): killed after ${sent} rows sent; ${rerun.stderr.split('\n').filter((l) => /^(link create|message send):|^Of the rows/.test(l)).join(' ')}`);
    }
    console.log(report.join('\n'));
    // Five runs and five reruns of up to 1,000 rows each: ~9 s on a quiet 2-core machine and twice that
    // beside other work, so the suite's 20 s default is no bound for it. It asserts what was sent, not how fast.
  }, 120_000);
});

describe('Ctrl-C in process (recording server)', () => {
  let server: RecordingServer;
  let svc: FakeService;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await startRecordingServer();
    svc = fakeService(server);
    env = { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY };
  });
  afterEach(() => server.close());
  const file = (name: string, text: string) => {
    const path = join(tempDir(), name);
    writeFileSync(path, text);
    return path;
  };
  const csvOf = (n: number) => `fullLink,comment\n${Array.from({ length: n }, (_, i) => `https://example.com/p${i + 1},row ${i + 1}`).join('\n')}\n`;

  it('Ctrl-C stops new requests, lets those in flight finish, exits 130; the rerun completes each row exactly once', async () => {
    svc.delayMs = 5;
    const input = file('links.csv', csvOf(200));
    const ac = new AbortController();
    const watcher = setInterval(() => {
      if (server.requests.length >= 50) ac.abort();
    }, 1);
    const first = await runCli(['link', 'create', '--from-file', input, '--concurrency', '8'], { env, signal: ac.signal });
    clearInterval(watcher);
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('Interrupted');
    expect(svc.created.size).toBeLessThan(200);
    const second = await runCli(['link', 'create', '--from-file', input, '--concurrency', '8'], { env });
    expect(second.code).toBe(0);
    expect(svc.created.size).toBe(200);
    expect([...svc.created.values()].every((n) => n === 1)).toBe(true);
  });

  it('Ctrl-C after the cost estimate of a message send still lets the requests in flight finish: none is left unknown', async () => {
    // The estimate (Message/List, the balance) makes the run's client before the rows go out.
    svc.delayMs = 300;
    const input = file('sms.csv', `recipient\n${Array.from({ length: 40 }, (_, i) => `770100${String(10000 + i)}`).join('\n')}\n`);
    const ac = new AbortController();
    // Only the sends fill three slots at once: the estimate's two requests are over by then.
    const watcher = setInterval(() => svc.inFlight.now >= 3 && ac.abort(), 1);
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hello', '--max-cost', '100', '--concurrency', '4', '-o', 'ndjson'], { env, signal: ac.signal });
    clearInterval(watcher);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/stopping: waiting for \d requests? in flight/);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string });
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((x) => x.state !== 'done')).toEqual([]);
    expect(r.stderr).not.toContain('unknown');
    expect(r.stderr).toMatch(/message send: \d+ done of 40 rows/);
  });

  it('Ctrl-C: rows waiting in the queue are not started', async () => {
    const input = file('links.csv', `fullLink\n${Array.from({ length: 20 }, (_, i) => `https://example.com/q${i}`).join('\n')}\n`);
    const ac = new AbortController();
    const watcher = setInterval(() => server.requests.length >= 1 && ac.abort(), 2);
    const r = await runCli(['link', 'create', '--from-file', input, '--rate', '1', '--concurrency', '4'], { env, signal: ac.signal });
    clearInterval(watcher);
    expect(r.code).toBe(130);
    // --rate 1 lets one request out per second: after Ctrl-C nothing else starts.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(server.requests.length).toBe(1);
  });

  it('Ctrl-C delivered twice at once (timeout(1) signals the process and its group) still ends cleanly', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'smslink-sig-'));
    const input = join(dir, 'links.csv');
    writeFileSync(input, `fullLink\n${Array.from({ length: 400 }, (_, i) => `https://example.com/sig${i}`).join('\n')}\n`);
    let n = 0;
    server.respond((req) =>
      req.path.endsWith('Create') ? { body: { code: 0, data: { id: String(++n), code: `c${n}`, shortLink: `https://sho.rt/c${n}` }, message: '' } } : undefined,
    );
    const child = spawn(process.execPath, [BIN, 'link', 'create', '--from-file', input, '--rate', '50', '-o', 'ndjson'], {
      env: binEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Once a row is done (the bin starts slower on a busy machine): both signals at the same instant.
    await expect.poll(() => stdout.includes('\n'), { timeout: 15_000 }).toBe(true);
    child.kill('SIGINT');
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted');
    const printed = stdout.trim().split('\n').filter(Boolean).length;
    const done = readFileSync(`${input}.journal`, 'utf8').split('\n').filter((l) => l.includes('"state":"done"')).length;
    // Every row the journal says is done was printed.
    expect(printed).toBe(done);
    expect(done).toBeGreaterThan(0);
  });
});

describe('Ctrl-C in the middle of 2,000 rows, then a rerun (emulator)', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
  });
  afterAll(() => emu.close());

  const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY });
  const ROWS = 2000;

  const interrupted = (args: string[], after: number) => runInterrupted(args, after, env());

  async function listAll(args: string[]): Promise<Array<Record<string, unknown>>> {
    const r = await runCli([...args, '--all', '-o', 'ndjson'], { env: env() });
    expect(r.code).toBe(0);
    return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  }

  it('2,000-row link create: Ctrl-C in the middle, rerun, every row exactly once', async () => {
    const file = join(tempDir(), 'links.csv');
    const urls = Array.from({ length: ROWS }, (_, i) => `https://example.com/scale/${i}`);
    writeFileSync(file, `fullLink,comment\n${urls.map((u) => `${u},scale-links`).join('\n')}\n`);
    const first = await interrupted(['link', 'create', '--from-file', file, '--concurrency', '16', '-o', 'ndjson'], 700);
    expect(first.code).toBe(130);
    const partial = await listAll(['link', 'list', '--query', 'scale-links']);
    expect(partial.length).toBeGreaterThanOrEqual(700);
    expect(partial.length).toBeLessThan(ROWS);

    const rerun = await runCli(['link', 'create', '--from-file', file, '--concurrency', '16', '-q'], { env: env() });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(new RegExp(`${ROWS - partial.length} done, ${partial.length} already done of ${ROWS} rows`));
    const all = await listAll(['link', 'list', '--query', 'scale-links', '--fields', 'fullLink']);
    expect(all).toHaveLength(ROWS);
    expect(new Set(all.map((l) => l.fullLink))).toEqual(new Set(urls));
    console.log(`bulk create: ${partial.length} rows before Ctrl-C, ${ROWS - partial.length} on the rerun, ${all.length} links in the emulator`);
  });

  it('2,000-row message send: Ctrl-C in the middle, rerun, every recipient exactly once', async () => {
    const file = join(tempDir(), 'sms.csv');
    const numbers = Array.from({ length: ROWS }, (_, i) => `7702${String(1000000 + i)}`);
    writeFileSync(file, `recipient,name\n${numbers.map((n, i) => `${n},client ${i}`).join('\n')}\n`);
    const args = ['message', 'send', '--from-file', file, '--text', 'Hello {{name}}', '--name', 'scale-sms', '--concurrency', '16'];
    const first = await interrupted([...args, '-o', 'ndjson'], 900);
    expect(first.code).toBe(130);
    const rerun = await runCli([...args, '-q'], { env: env() });
    expect(rerun.code).toBe(0);
    const sent = await listAll(['message', 'list', '--text', 'Hello client 1', '--fields', 'to']);
    expect(sent.map((m) => m.to)).toEqual(['77021000001']);
    const all = await listAll(['message', 'list', '--fields', 'to,text']);
    const mine = all.filter((m) => String(m.text).startsWith('Hello client '));
    const counts = new Map<string, number>();
    for (const m of mine) counts.set(String(m.to), (counts.get(String(m.to)) ?? 0) + 1);
    expect(counts.size).toBe(ROWS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    console.log(`bulk send: interrupted after ${first.seen} results; ${mine.length} messages in the emulator for ${ROWS} rows`);
  });
});
