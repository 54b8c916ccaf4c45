// A journal that lost lines (emptied, cut in half, cut at a line's end) may
// have lost rows that were done: the rerun looks up every row it does not
// show as done before sending it, so the service ends with each row exactly
// once. Counted at the emulator.
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

const KEY = 'DamageKey0123456789abcdefABCDEF012345678';
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function emulator() {
  emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
  const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
  return (args: string[]) => runCli(args, { env });
}

/** How many times each value of `field` exists in the service. */
async function counts(cli: (args: string[]) => Promise<{ stdout: string }>, noun: 'link' | 'message', field: string): Promise<Map<string, number>> {
  const out = (await cli([noun, 'list', '--all', '-o', 'ndjson', '--fields', field])).stdout.trim();
  const seen = new Map<string, number>();
  for (const line of out ? out.split('\n') : []) {
    const v = String((JSON.parse(line) as Record<string, unknown>)[field]);
    seen.set(v, (seen.get(v) ?? 0) + 1);
  }
  return seen;
}

const linkRows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `https://example.com/d${from + i}`);

/** Links of rows 0..n-1 each exist once, and the damage was dealt with: a third run sends nothing and says nothing of it. */
async function expectEachLinkOnce(cli: (args: string[]) => Promise<{ stdout: string; stderr: string }>, input: string, n: number): Promise<void> {
  const made = await counts(cli, 'link', 'fullLink');
  expect([...made.values()].filter((c) => c > 1)).toEqual([]);
  expect([...made.keys()].sort()).toEqual(linkRows(0, n).sort());
  const third = await cli(['link', 'create', '--from-file', input]);
  expect(third.stderr).not.toContain('damaged');
  expect(third.stderr).toContain(`${n} already done`);
}

/** Each damage as done to a journal file. */
const DAMAGE: Array<[string, (path: string) => void, RegExp]> = [
  ['emptied', (path) => truncateSync(path, 0), /it is empty, where it last held \d+ lines/],
  ['cut in half, mid-line', (path) => truncateSync(path, Math.floor(readFileSync(path).length / 2) + 7), /line \d+ is cut short|where it last held/],
  [
    'cut at the end of a line',
    (path) => {
      const lines = readFileSync(path, 'utf8').split('\n');
      writeFileSync(path, `${lines.slice(0, Math.floor(lines.length / 2)).join('\n')}\n`);
    },
    /it holds \d+ lines of rows \(\d+ bytes\), where it last held \d+/,
  ],
];

/** The journal cut inside its header line (a crash or a full disk as it was written): `keep` of the header's bytes stay. */
const CUT_HEADER: Array<[string, (header: number) => number]> = [
  ['to 0 bytes', () => 0],
  ['to 1 byte', () => 1],
  ['mid-header', (header) => Math.floor(header / 2)],
  ['one byte short of its line end', (header) => header - 2],
];

function cutHeaderOf(path: string, keep: (header: number) => number): number {
  const header = readFileSync(path, 'utf8').indexOf('\n') + 1;
  const bytes = keep(header);
  truncateSync(path, bytes);
  return bytes;
}

describe('a damaged journal never sends a row twice', () => {
  it.each(DAMAGE)('link create, journal %s: 0 duplicates, nothing missing, and the summary says so', async (_what, damage, why) => {
    const cli = await emulator();
    const dir = tempDir();
    const input = join(dir, 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 30).join('\n')}\n`);
    expect((await cli(['link', 'create', '--from-file', input])).code).toBe(0);
    damage(`${input}.journal`);
    // 20 rows more since: they must be sent, the 30 done ones not again.
    writeFileSync(input, `fullLink\n${linkRows(0, 50).join('\n')}\n`);
    const rerun = await cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/The journal was damaged \(/);
    expect(rerun.stderr).toMatch(why);
    expect(rerun.stderr).toMatch(/a lookup found \d+ in the service \(done, not sent again\)/);
    await expectEachLinkOnce(cli, input, 50);
  });

  it.each(DAMAGE.slice(0, 2))('message send, journal %s: 0 duplicates, nothing missing', async (_what, damage) => {
    const cli = await emulator();
    const input = join(tempDir(), 'sms.csv');
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `770100${String(i).padStart(5, '0')},Hello ${i}`);
    writeFileSync(input, `recipient,text\n${rows(20).join('\n')}\n`);
    expect((await cli(['message', 'send', '--from-file', input])).code).toBe(0);
    damage(`${input}.journal`);
    writeFileSync(input, `recipient,text\n${rows(30).join('\n')}\n`);
    const rerun = await cli(['message', 'send', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('The journal was damaged (');
    const sent = await counts(cli, 'message', 'to');
    expect([...sent.values()].filter((n) => n > 1)).toEqual([]);
    expect(sent.size).toBe(30);
  });

  it.each(CUT_HEADER)('link create, journal cut inside its header %s: damaged, not foreign; 0 duplicates, nothing missing', async (_what, keep) => {
    const cli = await emulator();
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 12).join('\n')}\n`);
    expect((await cli(['link', 'create', '--from-file', input])).code).toBe(0);
    const bytes = cutHeaderOf(`${input}.journal`, keep);
    writeFileSync(input, `fullLink\n${linkRows(0, 20).join('\n')}\n`);
    const rerun = await cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).not.toContain('not an smslink journal');
    expect(rerun.stderr).toContain(bytes === 0 ? 'The journal was damaged (it is empty' : `The journal was damaged (its first line, the header, is cut short after ${bytes} byte`);
    expect(rerun.stderr).toMatch(/a lookup found 12 in the service \(done, not sent again\) and 8 not there/);
    await expectEachLinkOnce(cli, input, 20);
  });

  it.each(CUT_HEADER)('message send, journal cut inside its header %s: 0 duplicates, nothing missing', async (_what, keep) => {
    const cli = await emulator();
    const input = join(tempDir(), 'sms.csv');
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `770100${String(i).padStart(5, '0')},Hello ${i}`);
    writeFileSync(input, `recipient,text\n${rows(10).join('\n')}\n`);
    expect((await cli(['message', 'send', '--from-file', input])).code).toBe(0);
    cutHeaderOf(`${input}.journal`, keep);
    writeFileSync(input, `recipient,text\n${rows(15).join('\n')}\n`);
    const rerun = await cli(['message', 'send', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('The journal was damaged (');
    expect(rerun.stderr).toMatch(/a lookup found 10 in the service/);
    const sent = await counts(cli, 'message', 'to');
    expect([...sent.values()].filter((n) => n > 1)).toEqual([]);
    expect(sent.size).toBe(15);
  });

  it('a cut header is known as ours by how it begins, even without its tally (a journal from before tallies)', async () => {
    const cli = await emulator();
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 6).join('\n')}\n`);
    await cli(['link', 'create', '--from-file', input]);
    cutHeaderOf(`${input}.journal`, (header) => header - 30);
    rmSync(`${input}.journal.tally`);
    const rerun = await cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/its first line, the header, is cut short[\s\S]*a lookup found 6 in the service/);
    expect([...(await counts(cli, 'link', 'fullLink')).values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('without its tally nothing says when its rows were sent: the lookup has no lower bound, for messages too', async () => {
    const cli = await emulator();
    const input = join(tempDir(), 'sms.csv');
    writeFileSync(input, `recipient,text\n${Array.from({ length: 5 }, (_, i) => `7701000000${i},Hi ${i}`).join('\n')}\n`);
    await cli(['message', 'send', '--from-file', input]);
    cutHeaderOf(`${input}.journal`, (header) => header - 30);
    rmSync(`${input}.journal.tally`);
    const rerun = await cli(['message', 'send', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/a lookup found 5 in the service/);
    expect([...(await counts(cli, 'message', 'to')).values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it.each([
    ['a CSV with a line end', 'fullLink,comment\nhttps://example.com/a,mine\n'],
    ['a CSV cut in its first line', 'fullLink,comm'],
    ['one byte of a CSV', 'f'],
    ['JSON of another kind', '{"fullLink":"https://example.com/a"'],
  ])('a file that is not a journal (%s) is still refused and left as it was, tally or not', async (_what, text) => {
    const cli = await emulator();
    const dir = tempDir();
    const input = join(dir, 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 3).join('\n')}\n`);
    const theirs = join(dir, 'theirs.csv');
    writeFileSync(theirs, text);
    // A tally beside it (say, left by an earlier journal of that name) does not make it ours.
    writeFileSync(`${theirs}.tally`, JSON.stringify({ smslinkJournalTally: 1, created: Date.now(), bytes: 500, lines: 3 }));
    const r = await cli(['link', 'create', '--from-file', input, '--journal', theirs]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--journal: "${theirs}" is not an smslink journal; choose another file`);
    expect(readFileSync(theirs, 'utf8')).toBe(text);
    expect((await counts(cli, 'link', 'fullLink')).size).toBe(0);
  });

  it('a journal deleted without its tally is said to be missing, not empty, with what to do next time; each row is still sent once', async () => {
    const cli = await emulator();
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 6).join('\n')}\n`);
    expect((await cli(['link', 'create', '--from-file', input])).code).toBe(0);
    rmSync(`${input}.journal`);
    writeFileSync(input, `fullLink\n${linkRows(0, 9).join('\n')}\n`);
    const rerun = await cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).not.toContain('empty');
    expect(rerun.stderr).toContain(`The journal was missing (its tally, ${input}.journal.tally, says it held 12 lines of rows)`);
    expect(rerun.stderr).toMatch(/a lookup found 6 in the service \(done, not sent again\) and 3 not there \(sent now\)/);
    expect(rerun.stderr).toContain('Next time a journal is deleted on purpose, delete its .tally too, or rerun with --fresh.');
    await expectEachLinkOnce(cli, input, 9);
  });

  it('with lookups off (--no-reconcile), the rows a damaged journal does not show as done are held back, not sent', async () => {
    const cli = await emulator();
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${linkRows(0, 10).join('\n')}\n`);
    await cli(['link', 'create', '--from-file', input]);
    truncateSync(`${input}.journal`, 0);
    const rerun = await cli(['link', 'create', '--from-file', input, '--no-reconcile']);
    expect(rerun.code).toBe(5);
    expect(rerun.stderr).toContain('The journal was damaged (it is empty');
    expect(rerun.stderr).toContain('Outcome unknown for rows 2, 3, 4');
    expect([...(await counts(cli, 'link', 'fullLink')).values()].every((n) => n === 1)).toBe(true);
  });
});
