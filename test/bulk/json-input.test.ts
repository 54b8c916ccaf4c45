// A JSON array as a bulk input (`[{...}, {...}]`, as jq or an export writes
// it): each object is a row, numbered by its place in the array; small and
// large (streamed) files read alike; a file that holds no array, and broken
// JSON, stop the run before anything is sent; a JSON array given as NDJSON
// says what it is. Against the emulator, over a real socket.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, runInterrupted, tempDir } from '../helpers/run-cli.js';
import { ndjson } from '../helpers/bulk-files.js';

const KEY = 'JsonKey0123456789abcdefABCDEF0123456789ab';
const emulators: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of emulators.splice(0)) await e.close();
});

async function emulator() {
  const emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
  emulators.push(emu);
  const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
  const cli = (args: string[], stdin?: string) => runCli(args, { env, stdin });
  /** Every link's fullLink in the service. */
  const made = async () => {
    const listed = (await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'])).stdout;
    return listed.trim() ? ndjson(listed).map((l) => String(l.fullLink)) : [];
  };
  return { emu, env, cli, made };
}

/** Whitespace that makes a file larger than the 512 KiB read whole: the run streams it. */
const LARGE = ' '.repeat(600 * 1024);
const SIZES: Array<[string, string]> = [
  ['small, read whole', ''],
  ['large, streamed', LARGE],
];

/** `values` as a pretty-printed JSON array (two spaces, an element over several lines), `pad` after its first element. */
function arrayFile(values: unknown[], pad = '', name = 'links.json'): string {
  const path = join(tempDir(), name);
  const [first, ...rest] = values.map((v) => JSON.stringify(v, null, 2).replace(/^/gm, '  '));
  writeFileSync(path, values.length ? `[\n${first}${pad}${rest.map((e) => `,\n${e}`).join('')}\n]\n` : '[]\n');
  return path;
}

const urls = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `https://example.com/${tag}/${i + 1}`);

describe('a JSON array as --from-file', () => {
  it.each(SIZES)('%s: each object is a link, its row its place in the array; a rerun sends none twice', async (_name, pad) => {
    const { cli, made } = await emulator();
    const links = urls(12, 'json');
    const input = arrayFile(
      links.map((fullLink, i) => ({ fullLink, comment: `row ${i + 1}`, status: i === 3 ? 'inactive' : 'active' })),
      pad,
    );
    const first = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(first.code).toBe(0);
    const rows = ndjson(first.stdout);
    expect(rows.map((r) => r.row).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(rows.every((r) => r.state === 'done' && typeof r.shortLink === 'string')).toBe(true);
    expect(first.stderr).toContain('link create: 12 done of 12 rows');
    expect((await made()).sort()).toEqual([...links].sort());
    const inactive = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink,status'])).stdout).find((l) => l.fullLink === links[3]);
    expect(inactive?.status).toBe(0);

    const rerun = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('12 already done of 12 rows');
    expect(rerun.stdout).toBe('');
    expect((await made()).sort()).toEqual([...links].sort());
  });

  it('Ctrl-C part way through a large array: the rerun sends the rest, every link made once', async () => {
    const { env, cli, made } = await emulator();
    const links = urls(120, 'stop');
    const input = arrayFile(
      links.map((fullLink) => ({ fullLink })),
      LARGE,
    );
    const stopped = await runInterrupted(['link', 'create', '--from-file', input, '-o', 'ndjson'], 10, env);
    expect(stopped.code).toBe(130);
    const before = (await made()).length;
    expect(before).toBeGreaterThanOrEqual(10);
    expect(before).toBeLessThan(120);
    const rerun = await cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain(`${120 - before} done, ${before} already done of 120 rows`);
    expect((await made()).sort()).toEqual([...links].sort());
  });

  it.each(SIZES)('%s: --validate-only reports each bad element by its place in the array, an element that is no object as that row\'s error', async (_name, pad) => {
    const { cli, made } = await emulator();
    const input = arrayFile(
      [{ fullLink: 'https://example.com/ok' }, { fullLink: 'not-a-url' }, 42, ['https://example.com/x'], null, { fullLink: 'https://example.com/y', status: 'maybe' }, { fullLink: 'https://example.com/z' }],
      pad,
    );
    const checked = await cli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'csv']);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe(
      'row,column,error\n' +
        '2,fullLink,must be a URL with a scheme (https://...) or starting with www.\n' +
        '3,(row),must be a JSON object\n' +
        '4,(row),must be a JSON object\n' +
        '5,(row),must be a JSON object\n' +
        '6,status,"must be 0 or 1 (or active, inactive)"\n',
    );
    expect(checked.stderr).toContain('7 rows checked: 2 valid, 5 invalid. Nothing was sent.');
    expect(await made()).toEqual([]);

    // A real run names the same rows, and sends the others.
    const sent = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(sent.code).toBe(5);
    const states = Object.fromEntries(ndjson(sent.stdout).map((r) => [r.row, r.state]));
    expect(states).toEqual({ 1: 'done', 2: 'invalid', 3: 'invalid', 4: 'invalid', 5: 'invalid', 6: 'invalid', 7: 'done' });
    expect((await made()).sort()).toEqual(['https://example.com/ok', 'https://example.com/z']);
  });

  it('a file that holds no array is refused as a whole: exit 2, nothing sent, no journal', async () => {
    const { cli, made } = await emulator();
    const dir = tempDir();
    const cases: Array<[string, string, string]> = [
      // NDJSON in a file named .json: one object a line.
      ['lines.json', '{"fullLink": "https://example.com/a"}\n{"fullLink": "https://example.com/b"}\n', 'holds a JSON object, not an array of them: a JSON input is an array with an object a row: [{...}, {...}]; for one object a line (NDJSON), name the file .ndjson or pass --format ndjson'],
      ['number.json', '\n  42\n', 'does not hold a JSON array (it starts with "4"): a JSON input is an array with an object a row: [{...}, {...}]'],
      ['text.json', '"https://example.com/a"', 'does not hold a JSON array (it starts with "\\""): a JSON input is an array with an object a row: [{...}, {...}]'],
    ];
    for (const [name, text, message] of cases) {
      const input = join(dir, name);
      writeFileSync(input, text);
      for (const flags of [[], ['--validate-only']]) {
        const r = await cli(['link', 'create', '--from-file', input, ...flags]);
        expect(r.code, name).toBe(2);
        expect(r.stderr, name).toBe(`error: --from-file: ${input} ${message}\n`);
        expect(r.stdout).toBe('');
      }
      expect(existsSync(`${input}.journal`)).toBe(false);
    }
    // An empty array, or a file of nothing, is an empty input.
    for (const text of ['[]', '\n \n']) {
      const input = join(dir, 'empty.json');
      writeFileSync(input, text);
      const r = await cli(['link', 'create', '--from-file', input]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('error: --from-file: the input is empty: it needs a fullLink column (a CSV header, or the keys of JSON objects) and a row each\n');
    }
    // The first object's keys name the columns: a first element that is no object names none.
    const first = join(dir, 'first.json');
    writeFileSync(first, '[["https://example.com/a"], {"fullLink": "https://example.com/b"}]');
    const r = await cli(['link', 'create', '--from-file', first]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --from-file: row 1 must be a JSON object, and the first row\'s keys name the columns: fix that row\n');
    expect(await made()).toEqual([]);
  });

  it.each([
    ['small, a real run', '', []],
    ['small, --validate-only', '', ['--validate-only']],
    ['large, a real run', LARGE, []],
    ['large, --validate-only', LARGE, ['--validate-only']],
  ])('broken JSON, %s: exit 2 naming the line, the column and the row it breaks, nothing sent', async (_name, pad, flags) => {
    const { cli, made } = await emulator();
    const good = arrayFile([{ fullLink: 'https://example.com/a' }, { fullLink: 'https://example.com/b' }], pad);
    // Row 3 lacks the colon after its key: `"fullLink" "https://..."`, on the array's line 8 + 1 for the padding's line.
    const input = join(tempDir(), 'broken.json');
    const text = readText(good).replace(/\n\]\n$/, ',\n  {\n    "fullLink" "https://example.com/c"\n  },\n  {\n    "fullLink": "https://example.com/d"\n  }\n]\n');
    writeFileSync(input, text);
    const line = text.split('\n').findIndex((l) => l.includes('"fullLink" "')) + 1;
    const r = await cli(['link', 'create', '--from-file', input, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --from-file: cannot read ${input} after row 2: the JSON is broken at line ${line}, column 16, in row 3: expected ':'\n`);
    expect(r.stderr).not.toContain('unexpected error');
    expect(await made()).toEqual([]);
    expect(existsSync(`${input}.journal`)).toBe(false);

    // An array cut short, and text after its end, the same.
    writeFileSync(input, text.replace(/\n\]\n$/, '\n'));
    expect((await cli(['link', 'create', '--from-file', input, ...flags])).stderr).toMatch(/cannot read .* after row 2: the JSON is broken at line \d+, column \d+, in row 3: /);
    writeFileSync(input, `${readText(good)}{"fullLink": "https://example.com/e"}\n`);
    expect((await cli(['link', 'create', '--from-file', input, ...flags])).stderr).toMatch(/cannot read .* after row 2: the JSON is broken at line \d+, column 1, after the array's end: unexpected characters/);
    expect(await made()).toEqual([]);
  });

  it('stdin with --format json, resumable with --journal; without --format the message names json', async () => {
    const { cli, made } = await emulator();
    const journal = join(tempDir(), 'stdin.journal');
    const text = `${JSON.stringify(
      urls(3, 'stdin').map((fullLink) => ({ fullLink })),
      null,
      2,
    )}\n`;
    const piped = await cli(['link', 'create', '--from-file', '-', '--format', 'json', '--journal', journal, '-o', 'ndjson'], text);
    expect(piped.code).toBe(0);
    expect(ndjson(piped.stdout).map((r) => [r.row, r.state])).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
    ]);
    const again = await cli(['link', 'create', '--from-file', '-', '--format', 'json', '--journal', journal], text);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('3 already done of 3 rows');
    expect((await made()).sort()).toEqual(urls(3, 'stdin'));

    const unsaid = await cli(['link', 'create', '--from-file', '-'], text);
    expect(unsaid.code).toBe(2);
    expect(unsaid.stderr).toBe('error: --from-file -: pass --format csv|ndjson|json for standard input\n');
  });

  it('any file name with --format json; a name with no known extension names .json among them', async () => {
    const { cli, made } = await emulator();
    const input = arrayFile([{ fullLink: 'https://example.com/export' }], '', 'export.txt');
    const unknown = await cli(['link', 'create', '--from-file', input]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('error: --from-file: cannot tell the format of "export.txt" from its extension; use .csv, .tsv, .ndjson or .json, or pass --format csv|ndjson|json\n');
    expect((await cli(['link', 'create', '--from-file', input, '--format', 'json'])).code).toBe(0);
    expect(await made()).toEqual(['https://example.com/export']);
    const delimiter = await cli(['link', 'create', '--from-file', input, '--format', 'json', '--delimiter', ';']);
    expect(delimiter.stderr).toBe('error: --delimiter applies to CSV input only (JSON has none)\n');
  });

  it('message send fills its template from each object\'s keys', async () => {
    const { emu, cli } = await emulator();
    const input = arrayFile(
      [
        { recipient: '77010000001', name: 'Ann', code: 4711 },
        { recipient: '77010000002', name: 'Bob', code: 815 },
      ],
      '',
      'customers.json',
    );
    const r = await cli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code is {{code}}', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).map((x) => [x.row, x.state])).toEqual([
      [1, 'done'],
      [2, 'done'],
    ]);
    expect((await emu.messages()).map((m) => [m.to, m.text]).sort()).toEqual([
      ['77010000001', 'Hi Ann, your code is 4711'],
      ['77010000002', 'Hi Bob, your code is 815'],
    ]);
  });
});

describe('objects whose keys are not the first one\'s', () => {
  /** `rows` as an NDJSON file, or as a JSON array (read whole, or streamed when padded past 512 KiB). */
  const FORMATS: Array<[string, (rows: object[]) => string]> = [
    ['NDJSON', (rows) => {
      const path = join(tempDir(), 'links.ndjson');
      writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      return path;
    }],
    ['a JSON array', (rows) => arrayFile(rows)],
    ['a large JSON array, streamed', (rows) => arrayFile(rows, LARGE)],
  ];

  it.each(FORMATS)('%s: a later key nothing reads is refused by name and row; a key the first lacks is read; one left out is absent', async (_name, write) => {
    const { cli } = await emulator();
    const input = write([
      { fullLink: 'https://example.com/keys/1' },
      { fullLink: 'https://example.com/keys/2', coment: 'a typo' },
      { fullLink: 'https://example.com/keys/3', comment: 'read, though the first row has no comment' },
      { fullLink: 'https://example.com/keys/4', status: 'inactive' },
    ]);
    const checked = await cli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'ndjson']);
    expect(checked.code).toBe(2);
    expect(ndjson(checked.stdout)).toEqual([
      { row: 2, column: 'coment', error: 'unknown key "coment" (did you mean comment?); the keys read are fullLink, status, expirationDate, comment' },
    ]);
    const run = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(run.code).toBe(5);
    expect(ndjson(run.stdout).map((r) => [r.row, r.state]).sort()).toEqual([[1, 'done'], [2, 'invalid'], [3, 'done'], [4, 'done']]);
    expect(ndjson(run.stdout).find((r) => r.row === 2)!.error).toContain('column coment: unknown key "coment"');
    // What was made holds each row's own keys: nothing of row 2, row 3's comment, row 4's status, none for row 1.
    const listed = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink,comment,status'])).stdout);
    expect(listed.sort((a, b) => String(a.fullLink).localeCompare(String(b.fullLink)))).toEqual([
      { fullLink: 'https://example.com/keys/1', comment: null, status: 1 },
      { fullLink: 'https://example.com/keys/3', comment: 'read, though the first row has no comment', status: 1 },
      { fullLink: 'https://example.com/keys/4', comment: null, status: 0 },
    ]);
  });

  it('a key the first row has and nothing reads is warned of once, as a CSV column is, and every row holding it is sent', async () => {
    const { cli, made } = await emulator();
    const input = arrayFile([
      { fullLink: 'https://example.com/crm/1', source: 'crm' },
      { fullLink: 'https://example.com/crm/2', source: 'crm' },
      { fullLink: 'https://example.com/crm/3' },
    ]);
    const r = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual(['warning: ignoring columns source (known: fullLink, status, expirationDate, comment)']);
    expect((await made()).sort()).toEqual(['https://example.com/crm/1', 'https://example.com/crm/2', 'https://example.com/crm/3']);
  });

  it('message send: a later object\'s unknown key is refused by name, its known keys and template keys are read', async () => {
    const { emu, cli } = await emulator();
    const input = join(tempDir(), 'people.ndjson');
    writeFileSync(
      input,
      [
        { recipient: '77010000001', first: 'Ann' },
        { recipient: '77010000002', first: 'Bob', name: 'spring' },
        { recipient: '77010000003', first: 'Cy', nmae: 'spring' },
      ].map((r) => JSON.stringify(r)).join('\n') + '\n',
    );
    const r = await cli(['message', 'send', '--from-file', input, '--text', 'Hi {{first}}', '-o', 'ndjson']);
    expect(r.code).toBe(5);
    const rows = ndjson(r.stdout);
    expect(rows.map((x) => [x.row, x.state]).sort()).toEqual([[1, 'done'], [2, 'done'], [3, 'invalid']]);
    expect(rows.find((x) => x.row === 3)!.error).toBe('column nmae: unknown key "nmae" (did you mean name?); the keys read are recipient, text, from, name, at, validity, first');
    expect((await emu.messages()).map((m) => [m.to, m.text]).sort()).toEqual([
      ['77010000001', 'Hi Ann'],
      ['77010000002', 'Hi Bob'],
    ]);
  });
});

describe('a JSON array given as NDJSON', () => {
  it('says it is a JSON array and how to read it, not that the input is empty: exit 2, nothing sent', async () => {
    const { cli, made } = await emulator();
    const pretty = `${JSON.stringify([{ fullLink: 'https://example.com/a' }], null, 2)}\n`;
    const oneLine = `${JSON.stringify([{ fullLink: 'https://example.com/a' }, { fullLink: 'https://example.com/b' }])}\n`;
    for (const text of [pretty, oneLine]) {
      const input = join(tempDir(), 'links.ndjson');
      writeFileSync(input, text);
      const named = await cli(['link', 'create', '--from-file', input]);
      expect(named.code).toBe(2);
      expect(named.stderr).toBe(`error: --from-file: ${input} holds a JSON array (its first line starts with "["), not NDJSON, one object a line: to read the array's objects as rows, name the file .json or pass --format json\n`);
      const piped = await cli(['link', 'create', '--from-file', '-', '--format', 'ndjson', '--validate-only'], text);
      expect(piped.code).toBe(2);
      expect(piped.stderr).toBe('error: --from-file: stdin holds a JSON array (its first line starts with "["), not NDJSON, one object a line: to read the array\'s objects as rows, pass --format json\n');
      expect((await cli(['link', 'create', '--from-file', input, '--format', 'json', '--fresh'])).code).toBe(0);
    }
    expect((await made()).sort()).toEqual(['https://example.com/a', 'https://example.com/a', 'https://example.com/b']);
  });

  it('an NDJSON file whose first line is broken says so, not that the input is empty', async () => {
    const { cli, made } = await emulator();
    const input = join(tempDir(), 'links.ndjson');
    writeFileSync(input, '{"fullLink": "https://example.com/a",\n{"fullLink": "https://example.com/b"}\n');
    const r = await cli(['link', 'create', '--from-file', input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --from-file: row 1 is not valid JSON, and the first row\'s keys name the columns: fix that row\n');
    expect(await made()).toEqual([]);
  });
});

const readText = (path: string) => readFileSync(path, 'utf8');
