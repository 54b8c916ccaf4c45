// The figures of issue 16 that need no process of their own, over real HTTP
// against the emulator: reruns through faults end with every row in the
// service exactly once and none unknown; a fixed bad row is the only one
// sent on the rerun; --rate holds at the service.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'FigureKey0123456789abcdefABCDEF012345678';
const emulators: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of emulators.splice(0)) await e.close();
});

const ndjson = (text: string) => (text.trim() ? text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);

/** Two emulators on one database: one answers through faults, the other shows what really happened. */
async function faultyAndClean(faultRate: number, faults: string) {
  const db = join(tempDir(), 'figures.db');
  const faulty = await startEmulator({ port: 0, db, apiKeys: [KEY], faultRate, faults, seed: 16 });
  const clean = await startEmulator({ port: 0, db, apiKeys: [KEY] });
  emulators.push(faulty, clean);
  const through = (url: string) => (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY } });
  return { faulty: through(faulty.url), clean: through(clean.url) };
}

/** Runs a bulk command until it exits 0, at most `max` times; returns each run's exit code and summary. */
async function untilDone(cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, args: string[], max: number) {
  const runs: Array<{ code: number; summary: string; unknown: number }> = [];
  while (runs.length < max) {
    const r = await cli(args);
    const unknown = ndjson(r.stdout).filter((x) => x.state === 'unknown').length;
    runs.push({ code: r.code, summary: r.stderr.split('\n').find((l) => / of \d+ rows/.test(l)) ?? r.stderr, unknown });
    if (r.code === 0) break;
  }
  return runs;
}

function counts(values: unknown[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of values) m.set(String(v), (m.get(String(v)) ?? 0) + 1);
  return m;
}

describe('through --fault-rate 0.25 with faults that strike after the operation (reset, 500, 502, truncated)', () => {
  const ROWS = 300;

  it('a 300-row message send, rerun until exit 0 (at most 4 runs), ends with one message per recipient and none unknown', async () => {
    const { faulty, clean } = await faultyAndClean(0.25, 'reset,500,502,truncated');
    const numbers = Array.from({ length: ROWS }, (_, i) => `7704${String(1000000 + i)}`);
    const input = join(tempDir(), 'sms.csv');
    writeFileSync(input, `recipient,name\n${numbers.map((n, i) => `${n},client ${i}`).join('\n')}\n`);
    const runs = await untilDone(faulty, ['message', 'send', '--from-file', input, '--text', 'Figure {{name}}', '--concurrency', '8', '-o', 'ndjson'], 4);
    console.log(`message send through faults: ${runs.map((r, i) => `run ${i + 1} exit ${r.code}: ${r.summary}`).join(' | ')}`);
    expect(runs.at(-1)!.code).toBe(0);
    expect(runs.at(-1)!.unknown).toBe(0);
    const listed = ndjson((await clean(['message', 'list', '--all', '-o', 'ndjson', '--fields', 'to,text'])).stdout).filter((m) => String(m.text).startsWith('Figure '));
    const perRecipient = counts(listed.map((m) => m.to));
    expect(listed).toHaveLength(ROWS);
    expect([...perRecipient.keys()].sort()).toEqual(numbers);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
  });

  it('a 300-row link create, rerun until exit 0 (at most 4 runs), ends with one link per fullLink and none unknown', async () => {
    const { faulty, clean } = await faultyAndClean(0.25, 'reset,500,502,truncated');
    const urls = Array.from({ length: ROWS }, (_, i) => `https://example.com/figure/${i}`);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink,comment\n${urls.map((u, i) => `${u},batch ${i % 7}`).join('\n')}\n`);
    const runs = await untilDone(faulty, ['link', 'create', '--from-file', input, '--concurrency', '8', '-o', 'ndjson'], 4);
    console.log(`link create through faults: ${runs.map((r, i) => `run ${i + 1} exit ${r.code}: ${r.summary}`).join(' | ')}`);
    expect(runs.at(-1)!.code).toBe(0);
    expect(runs.at(-1)!.unknown).toBe(0);
    const listed = ndjson((await clean(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'])).stdout);
    const perLink = counts(listed.map((l) => l.fullLink));
    expect(listed).toHaveLength(ROWS);
    expect([...perLink.keys()].sort()).toEqual([...urls].sort());
    expect([...perLink.values()].every((n) => n === 1)).toBe(true);
  });
});

describe('fix a bad row and rerun', () => {
  it('every row exists exactly once: the fixed row is the only one sent, and the summary says so', async () => {
    const emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
    emulators.push(emu);
    const cli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY } });
    const urls = Array.from({ length: 20 }, (_, i) => `https://example.com/fix/${i}`);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${urls.map((u, i) => (i === 7 ? 'example.com/fix/7' : u)).join('\n')}\n`);
    const first = await cli(['link', 'create', '--from-file', input]);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('19 done, 1 invalid of 20 rows');
    writeFileSync(input, `fullLink\n${urls.join('\n')}\n`);
    const rerun = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('1 done, 19 already done of 20 rows');
    expect(rerun.stderr).toContain('1 new row since the last run: sent.');
    expect(rerun.stderr).not.toMatch(/delete/i);
    expect(ndjson(rerun.stdout)).toEqual([expect.objectContaining({ row: 9, state: 'done' })]);
    const listed = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'])).stdout).map((l) => l.fullLink);
    expect(listed.sort()).toEqual([...urls].sort());
  });
});

describe('--rate', () => {
  it('--rate 20 over 60 rows: no one-second window at the service holds more than 20 requests', async () => {
    const arrivals: number[] = [];
    const emu = await startEmulator({
      port: 0,
      db: ':memory:',
      apiKeys: [KEY],
      hooks: {
        before(x) {
          if (x.path.toLowerCase() === 'link/create') arrivals.push(performance.now());
          return false;
        },
      },
    });
    emulators.push(emu);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${Array.from({ length: 60 }, (_, i) => `https://example.com/rate/${i}`).join('\n')}\n`);
    const r = await runCli(['link', 'create', '--from-file', input, '--rate', '20', '--concurrency', '8'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(arrivals).toHaveLength(60);
    // Any window of one second holding 21 requests would have its first and 21st less than a second apart.
    const gaps = arrivals.slice(20).map((t, i) => t - arrivals[i]);
    console.log(`--rate 20: the closest 21 requests at the service spanned ${Math.min(...gaps).toFixed(1)} ms`);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000);
  });
});
