// Issue figures at scale against the emulator: 2,000-row bulk create and
// bulk send, interrupted with Ctrl-C and rerun, end with every row in the
// service exactly once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

let emu: RunningEmulator;
const KEY = 'ScaleKey0123456789abcdefABCDEF0123456789a';
beforeAll(async () => {
  emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
});
afterAll(() => emu.close());

const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY });
const ROWS = 2000;

/** Runs a bulk command and presses Ctrl-C once `after` results are out. */
async function interrupted(args: string[], after: number) {
  const ac = new AbortController();
  let seen = 0;
  const stdout = {
    isTTY: false,
    write: (s: string) => {
      seen += s.split('\n').filter(Boolean).length;
      if (seen >= after) ac.abort();
      return true;
    },
  };
  const { run } = await import('../../src/cli/run.js');
  const { Readable } = await import('node:stream');
  let err = '';
  const code = await run(args, { stdout, stderr: { write: (s: string) => ((err += s), true) }, stdin: Readable.from([]), env: { ...env(), SMSLINK_CONFIG_DIR: tempDir() }, signal: ac.signal });
  return { code, stderr: err, seen };
}

async function listAll(args: string[]): Promise<Array<Record<string, unknown>>> {
  const r = await runCli([...args, '--all', '-o', 'ndjson'], { env: env() });
  expect(r.code).toBe(0);
  return r.stdout.trim() ? r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

describe('bulk at scale', () => {
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
