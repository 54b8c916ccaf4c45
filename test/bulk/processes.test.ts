// The figures of issue 16 that need the real bin in a process of its own:
// a real pipe closed by `head -1`, real Ctrl-C (SIGINT) on a stalled run,
// and kill -9 at a random moment followed by a rerun. The emulator runs in
// this process, over real HTTP.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

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
  it('`| head -1` over 2,000 rows at --concurrency 4 makes at most 4 links beyond the first', async () => {
    const { env, cli } = await emulator();
    const { path } = linksFile(2000, 'pipe');
    for (const format of ['-q', '-o ndjson']) {
      const before = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'id'])).stdout).length;
      const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" link create --from-file "${path}" --concurrency 4 ${format} --fresh | head -1`], { env: binEnv(env) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      expect(await exited(child)).toBe(0);
      const made = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'id'])).stdout).length - before;
      console.log(`| head -1 (${format}): ${made} links made; ${stderr.split('\n').find((l) => l.startsWith('link create:'))}`);
      expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(stderr).toContain('The output was closed: no new requests were started');
      expect(made).toBeGreaterThanOrEqual(1);
      expect(made).toBeLessThanOrEqual(5);
    }
  });
});

describe('Ctrl-C on a stalled run', () => {
  it('twice, 0.8 s apart: it says so at once, ends within 1 s of the second, exits 130, prints the summary and keeps the CSV header', async () => {
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
    const first = Date.now();
    while (!stderr.includes('stopping:') && Date.now() - first < 2000) await sleep(5);
    const said = Date.now() - first;
    expect(stderr).toMatch(/stopping: waiting for \d+ requests? in flight \(Ctrl-C again to stop now\)/);
    await sleep(800 - said);
    child.kill('SIGINT');
    const second = Date.now();
    expect(await code).toBe(130);
    const took = Date.now() - second;
    console.log(`stall: "stopping" printed ${said} ms after the first Ctrl-C; ended ${took} ms after the second`);
    expect(said).toBeLessThan(300);
    expect(took).toBeLessThan(1000);
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
  });
});
