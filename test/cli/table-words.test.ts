// One rule for every table and record a person reads, on every command that
// prints one (-o table): statuses are words, never the service's codes
// (DELIVRD, a campaign's 2, a moderation 0) unless beside their word in a
// record, `rejected (REJECTD)`; headers are labels, never a field's name
// (clickCnt, clicks_1), and no two columns of one table share a label.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAMPAIGN_STATUSES, MESSAGE_STATUSES } from '../../src/catalog/codes.js';
import { COLUMN_INFO } from '../../src/catalog/columns.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { isStatusKind, statusWord } from '../../src/output/words.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

/** How a command's table output is laid out: rows under a header line, `label  value` lines, or a bar chart. */
type Shape = 'table' | 'record' | 'chart';

interface Case {
  /** Words after `smslink`; the first ones name the command. */
  args: string[];
  shape: Shape;
  /** Its exit code when not 0: a bulk run with an invalid row, a check that finds one. */
  code?: number;
  /** Sent to the emulator that holds every send for moderation (campaign status 1), not the seeded one. */
  moderated?: true;
}

const KEY = 'TableWordsKey0123456789';
const HELD_KEY = 'TableWordsHeldKey0123456789';
const DIR = tempDir();
const file = (name: string) => join(DIR, name);

/** In order: later cases read what earlier ones sent (sync, then the mirror's reports; the inbox last, as it changes a status). */
const CASES: Case[] = [
  { args: ['link', 'list'], shape: 'table' },
  { args: ['link', 'get', 'blk'], shape: 'record' },
  { args: ['link', 'campaign', '1'], shape: 'table' },
  { args: ['link', 'stats', 'act'], shape: 'chart' },
  { args: ['link', 'update', 'inact', '--comment', 'kept inactive'], shape: 'record' },
  { args: ['link', 'create', 'https://example.com/new'], shape: 'record' },
  { args: ['link', 'create', '--from-file', file('links.csv'), '--fresh'], shape: 'table', code: 5 },
  { args: ['link', 'create', '--from-file', file('links.csv'), '--validate-only'], shape: 'table', code: 2 },
  { args: ['message', 'list'], shape: 'table' },
  { args: ['message', 'status', '1,2,3,4,5,6,7,8,9'], shape: 'table' },
  { args: ['message', 'status', '7'], shape: 'record' },
  { args: ['message', 'get', '5,6,7'], shape: 'record' },
  { args: ['message', 'send', '--to', '77011234567', '--text', 'check one'], shape: 'record' },
  { args: ['message', 'send', '--to', '77011234567', '--text', 'check later', '--at', '+1d'], shape: 'record' },
  { args: ['message', 'send', '--to', '77011234567', '--text', 'check held'], shape: 'record', moderated: true },
  { args: ['message', 'send', '--to', '77011230000', '--text', 'check waited', '--wait'], shape: 'record', moderated: true, code: 7 },
  { args: ['message', 'send', '--from-file', file('people.csv'), '--text', 'Hi {{name}}', '--yes', '--fresh'], shape: 'table', code: 5 },
  { args: ['message', 'send', '--from-file', file('held.csv'), '--text', 'Hi {{name}}', '--yes', '--fresh'], shape: 'table', code: 5, moderated: true },
  { args: ['message', 'send', '--from-file', file('people.csv'), '--text', 'Hi {{name}}', '--validate-only'], shape: 'table', code: 2 },
  { args: ['balance'], shape: 'record' },
  { args: ['sync'], shape: 'record' },
  { args: ['sync', '--status'], shape: 'record' },
  ...['day', 'sender', 'country', 'operator'].map((by): Case => ({ args: ['report', 'delivery', '--by', by, '--since', '2025-01-01', '--until', '2025-01-31'], shape: 'table' })),
  { args: ['report', 'links', '--since', '2025-01-01', '--until', '2025-01-31'], shape: 'table' },
  { args: ['search', 'check'], shape: 'table' },
  { args: ['config', 'list'], shape: 'table' },
  { args: ['config', 'profiles'], shape: 'table' },
  { args: ['status'], shape: 'table' },
  { args: ['inbox', 'list'], shape: 'table' },
  { args: ['inbox', 'wait', '--to', '77010000005'], shape: 'record' },
  { args: ['inbox', 'set-status', '1', 'expired'], shape: 'record' },
];

/** Commands that print no table, and what they print instead. */
const NO_TABLE: Record<string, string> = {
  'link delete': 'a sentence naming what was deleted',
  'config set': 'a sentence',
  'config get': 'one value',
  'config unset': 'a sentence',
  'config use': 'a sentence',
  'config path': 'one path',
  login: 'questions and a sentence',
  completion: 'a shell script',
  serve: 'the request log of a running emulator',
  'serve init': 'a seed file',
  'serve wait': 'a sentence when the emulator is up',
  'sandbox path': 'one path',
  'sandbox reset': 'a sentence',
  api: "the service's answer as JSON, whatever -o says",
  help: 'help text',
};

/** Every command, from the list the tree is built from. */
const ALL_COMMANDS = COMMANDS.flatMap((s) => s.definitions)
  .filter((d) => 'run' in d)
  .map((d) => d.path.join(' '));
const commandOf = (c: Case) => ALL_COMMANDS.filter((name) => `${c.args.join(' ')} `.startsWith(`${name} `)).sort((a, b) => b.length - a.length)[0];

// ---- what a person must not read ----------------------------------------

const CODES = new Set<string>([...MESSAGE_STATUSES, ...CAMPAIGN_STATUSES]);
const LABELS = new Set(Object.values(COLUMN_INFO).map((i) => i.header));
/** Fields a table says by another name (clickCnt is `clicks`), which are no column's label themselves. */
const FIELD_NAMES = new Set(Object.entries(COLUMN_INFO).filter(([field, info]) => info.header !== field && !LABELS.has(field)).map(([field]) => field));
/** Labels of columns whose values are statuses: words there, never a number. */
const STATUS_LABELS = new Set(['status', ...Object.values(COLUMN_INFO).filter((i) => isStatusKind(i.kind)).map((i) => i.header)]);

interface Cell {
  label: string;
  text: string;
}

/** The words two spaces or more apart on a line, with where each starts. */
const spans = (line: string) => [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ at: m.index!, text: m[0] }));

/** The labels and cells of what a command printed, per table or record (a blank line ends one). */
function read(out: string, shape: Shape): { labels: string[][]; cells: Cell[] } {
  if (shape === 'chart') return { labels: [], cells: out.split('\n').map((text) => ({ label: '', text })) };
  const blocks = out.trimEnd().split(/\n\s*\n/);
  if (shape === 'table') {
    // The header's words start the columns; a row's cells lie under them (a wrapped cell's next lines leave the others blank).
    const [head, ...rows] = blocks[0].split('\n');
    const cols = spans(head);
    const cells = rows.flatMap((row) => cols.map((c, i) => ({ label: c.text, text: row.slice(c.at, cols[i + 1]?.at).trim() })));
    return { labels: [cols.map((c) => c.text)], cells: cells.filter((c) => c.text !== '') };
  }
  // A record's lines are `label  value`; a value's wrapped lines start blank.
  const records = blocks.map((block) =>
    block
      .split('\n')
      .filter((line) => !line.startsWith(' '))
      .map((line) => {
        const [label, value] = spans(line);
        return { label: label.text, text: line.slice(value?.at ?? line.length).trim() };
      }),
  );
  return { labels: records.map((r) => r.map((c) => c.label)), cells: records.flat() };
}

/** What is wrong in what a command printed: each problem in a line a person can act on. */
function problems(out: string, shape: Shape): string[] {
  const { labels, cells } = read(out, shape);
  const found: string[] = [];
  for (const header of labels) {
    for (const label of header) {
      if (/[a-z][A-Z]|_/.test(label) || FIELD_NAMES.has(label)) found.push(`header "${label}" is a field's name, not a label`);
    }
    const twice = header.filter((l, i) => header.indexOf(l) !== i);
    if (twice.length) found.push(`two columns are headed "${twice[0]}"`);
  }
  for (const { label, text } of cells) {
    const codes = (text.match(/\b[A-Z_]{3,}\b/g) ?? []).filter((code) => CODES.has(code) && text !== `${statusWord(code)} (${code})`);
    if (codes.length) found.push(`${label || 'a line'} shows ${codes.join(', ')}: "${text}"`);
    if (STATUS_LABELS.has(label) && /^\d+$/.test(text)) found.push(`${label} shows a bare number: "${text}"`);
  }
  return found;
}

// ---- the account: every status there is ---------------------------------

let emu: TestEmulator;
let held: RunningEmulator;
const env: Record<string, string> = { SMSLINK_API_KEY: KEY, SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir() };
/** Every cell read, to show the data held every status. */
const seen = new Set<string>();

beforeAll(async () => {
  emu = await startTestEmulator({
    apiKeys: [KEY],
    seed: {
      senders: ['MyShop'],
      links: [
        { fullLink: 'https://example.com/active', code: 'act', comment: 'check', clicks: 3 },
        { fullLink: 'https://example.com/inactive', code: 'inact', status: 'inactive', expirationDate: '2030-01-31' },
        { fullLink: 'https://example.com/blocked', code: 'blk', moderatorStatus: 'blocked', moderatorComment: 'not allowed' },
      ],
      campaigns: [{ name: 'autumn', links: [{ fullLink: 'https://example.com/autumn', clicks: 1 }] }],
      // Message i has status i: every status there is, an hour before the emulator's now.
      messages: MESSAGE_STATUSES.map((status, i) => ({ to: `7701000000${i}`, text: `check message ${i}`, from: 'MyShop', status, ago: 3600 - i })),
    },
  });
  // Real time, a thousand times faster: a held send goes out a simulated minute later, and is final 5 s after.
  held = await startEmulator({ port: 0, db: ':memory:', apiKeys: [HELD_KEY], moderation: true, timeScale: 1000 });
  env.SMSLINK_BASE_URL = emu.url;
  writeFileSync(file('links.csv'), 'fullLink,comment\nhttps://example.com/bulk,check\nnot a link,check\n');
  for (const name of ['people.csv', 'held.csv']) writeFileSync(file(name), 'recipient,name\n77011234567,Ann\nno number,Bob\n');
  const profile = await runCli(['--profile', 'staging', 'config', 'set', 'base-url', 'https://api.example.com'], { env });
  expect(profile.code, profile.stderr).toBe(0);
});

afterAll(async () => {
  await emu?.close();
  await held?.close();
});

// ---- the rule -------------------------------------------------------------

describe('every table says words', () => {
  it('covers every command that prints a table, and lists every other one', () => {
    const covered = new Set(CASES.map(commandOf));
    expect([...covered, ...Object.keys(NO_TABLE)].sort()).toEqual([...ALL_COMMANDS].sort());
  });

  it.each(CASES.map((c) => [c.args.join(' '), c] as const))('%s', async (_name, c) => {
    const run = (more: string[]) =>
      runCli([...c.args, '-o', 'table', ...more], c.moderated ? { env: { ...env, SMSLINK_API_KEY: HELD_KEY, SMSLINK_BASE_URL: held.url } } : { env, now: () => new Date(emu.clock.now()) });
    // Its default columns, then every field --fields takes (a name it does not know lists them, before anything is sent).
    const asked = await run(['--fields', 'zzqq']);
    expect(asked.code, asked.stderr).toBe(2);
    const fields = /fields here: (.+)$/m.exec(asked.stderr)?.[1].replace(/, /g, ',');
    expect(fields, asked.stderr).toBeDefined();
    for (const [more, shape] of [[[], c.shape], [['--fields', fields!], c.shape === 'chart' ? 'table' : c.shape]] as const) {
      const r = await run([...more]);
      expect(r.code, r.stderr).toBe(c.code ?? 0);
      const { cells } = read(r.stdout, shape);
      expect(cells.length, `${c.args.join(' ')} ${more.join(' ')} printed nothing:\n${r.stderr}`).toBeGreaterThan(0);
      for (const cell of cells) seen.add(cell.text);
      expect(problems(r.stdout, shape), `${c.args.join(' ')} ${more.join(' ')}:\n${r.stdout}`).toEqual([]);
    }
  });

  it('ran on data with every status: each word was in some table', () => {
    const words = [...MESSAGE_STATUSES.map(statusWord), 'active', 'inactive', 'approved', 'blocked', 'sent without moderation', 'awaiting moderation'];
    const said = [...seen].join('\n');
    expect(words.filter((w) => !new RegExp(`(^|\\n)${w}( \\(|\\n|$)`).test(said))).toEqual([]);
  });

  it('finds what it is there to find', () => {
    const table = 'id  status   clickCnt  segments\n1   DELIVRD  3         1\n2   2        0         1\n';
    expect(problems(table, 'table')).toEqual([`header "clickCnt" is a field's name, not a label`, 'status shows DELIVRD: "DELIVRD"', 'status shows a bare number: "2"']);
    expect(problems('status    rejected (REJECTD)\nsegments  1\nprice     1\nprice     2\n', 'record')).toEqual(['two columns are headed "price"']);
  });
});
