// The two readers of a bulk input (streamed for large files, whole for small
// ones) must give the same rows, for CSV, NDJSON and JSON arrays, and a
// broken file must stop a run before anything is sent, naming the row it got
// to.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAllRows, readRows, type InputFormat, type InputRow } from '../../src/bulk/input.js';
import { useRecordingServer } from '../helpers/recording-server.js';
import { tempDir } from '../helpers/run-cli.js';

async function streamed(path: string, format: InputFormat): Promise<InputRow[]> {
  const rows: InputRow[] = [];
  for await (const r of readRows({ path, format })) rows.push(r);
  return rows;
}

const CASES: Array<[string, InputFormat, string]> = [
  ['plain CSV', 'csv', 'fullLink,comment\nhttps://example.com/a,one\nhttps://example.com/b,two\n'],
  ['CSV with a BOM, CRLF, blank lines, no final newline', 'csv', '\uFEFFfullLink, comment \r\nhttps://example.com/a,one\r\n\r\nhttps://example.com/b,two'],
  ['CSV with quoted commas, quotes and newlines', 'csv', 'recipient,text\n77011234567,"Hello, ""world"""\n77011234568,"two\nlines"\n'],
  ['CSV rows with too many and too few fields', 'csv', 'recipient,text\n77011234567,Hello, world\n77011234568\n77011234569,ok\n'],
  ['Cyrillic and emoji', 'csv', 'recipient,text\n77011234567,Привет 👋\n'],
  ['NDJSON with CRLF, a lone CR and blank lines', 'ndjson', '{"fullLink":"https://example.com/a"}\r\n\r\n{"fullLink":"https://example.com/b"}\r{"fullLink":"https://example.com/c"}\n   \n'],
  ['NDJSON with broken lines', 'ndjson', '{"fullLink":"https://example.com/a"}\n{nope\n[1,2]\nnull\n{"fullLink":"https://example.com/b"}\n'],
  ['a pretty-printed JSON array', 'json', `${JSON.stringify([{ fullLink: 'https://example.com/a', n: 1.5, ok: true }, { fullLink: 'https://example.com/b', tags: ['x', { deep: null }] }], null, 2)}\n`],
  ['a JSON array with a BOM, CRLF and elements that are no object', 'json', '\uFEFF[\r\n{"fullLink":"https://example.com/a"},\r\n1, null, "x", [1],\r\n{"fullLink":"https://example.com/b"}\r\n]'],
  ['a JSON array with Cyrillic, emoji and escapes', 'json', '[{"recipient":"77011234567","text":"Привет 👋 \\u00e9 \\ud83d\\ude00 \\"q\\" \\n"}]'],
];

describe('bulk input readers', () => {
  it.each(CASES)('%s: read whole, the same rows as streamed', async (_name, format, text) => {
    const path = join(tempDir(), `input.${format}`);
    writeFileSync(path, text);
    const whole = await readAllRows({ path, format });
    expect(whole).toEqual(await streamed(path, format));
    expect(whole.length).toBeGreaterThan(0);
  });

  it('numbers CSV rows as a spreadsheet does (the header is row 1) and names the fields by the trimmed header', async () => {
    const path = join(tempDir(), 'input.csv');
    writeFileSync(path, ' fullLink ,comment\nhttps://example.com/a,one\nhttps://example.com/b\n');
    expect(await readAllRows({ path, format: 'csv' })).toEqual([
      { row: 2, fields: { fullLink: 'https://example.com/a', comment: 'one' } },
      { row: 3, fields: {}, error: 'has 1 field but the header has 2 (quote values that contain commas)' },
    ]);
  });

  it('a blank line is a row of the sheet, a quoted value over two lines is one row; NDJSON rows are line numbers', async () => {
    const csv = join(tempDir(), 'input.csv');
    writeFileSync(csv, '\nrecipient,text\n77011234567,"two\nlines"\n\n77011234568,after a blank line\n');
    const rows = (r: InputRow[]) => r.map((x) => [x.row, x.fields.recipient]);
    expect(rows(await readAllRows({ path: csv, format: 'csv' }))).toEqual([
      [3, '77011234567'],
      [5, '77011234568'],
    ]);
    expect(rows(await streamed(csv, 'csv'))).toEqual(rows(await readAllRows({ path: csv, format: 'csv' })));
    const nd = join(tempDir(), 'input.ndjson');
    writeFileSync(nd, '\n{"recipient":"1"}\n\n\n{"recipient":"2"}\n');
    expect(rows(await readAllRows({ path: nd, format: 'ndjson' }))).toEqual([
      [2, '1'],
      [5, '2'],
    ]);
    expect(rows(await streamed(nd, 'ndjson'))).toEqual([
      [2, '1'],
      [5, '2'],
    ]);
  });
});

describe('a file that cannot be read to its end', () => {
  const svc = useRecordingServer('InputKey0123456789abcdefABCDEF');

  it.each([
    ['small, read whole', 0],
    ['large, streamed', 5 * 1024 * 1024],
  ])('%s: stops before anything is sent', async (_name, padding) => {
    const input = join(tempDir(), 'links.csv');
    // A comment column makes the file as large as the case needs; the quote opened on row 3 is never closed.
    const pad = 'x'.repeat(padding);
    writeFileSync(input, `fullLink,comment\nhttps://example.com/a,${pad}\nhttps://example.com/b,b\n"https://example.com/c,c\nhttps://example.com/d,d\n`);
    const r = await svc.cli(['link', 'create', '--from-file', input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--from-file: cannot read ${input} after row`);
    expect(r.stderr).toContain('Quote Not Closed');
    expect(r.stdout).toBe('');
    expect(svc.server.requests).toHaveLength(0);
  });

  it.each([
    ['small, a real run', 0, []],
    ['small, --validate-only', 0, ['--validate-only']],
    ['large, a real run', 5 * 1024 * 1024, []],
    ['large, --validate-only', 5 * 1024 * 1024, ['--validate-only']],
  ])('a stray quote with rows after it, %s: exit 2 naming the row, no crash, nothing sent', async (_name, padding, flags) => {
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink,comment\nhttps://example.com/a,${'x'.repeat(padding)}\nhttps://example.com/b,b"x"\nhttps://example.com/c,c\n`);
    const r = await svc.cli(['link', 'create', '--from-file', input, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--from-file: cannot read ${input} after row 2: Invalid Opening Quote: a quote is found on field 1 at line 3`);
    expect(r.stderr).not.toContain('unexpected error');
    expect(svc.server.requests).toHaveLength(0);
  });

  it('a small file names the last row it read', async () => {
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n"https://example.com/c\nhttps://example.com/d\n');
    const r = await svc.cli(['link', 'create', '--from-file', input]);
    expect(r.stderr).toContain(`--from-file: cannot read ${input} after row 3: Quote Not Closed`);
  });
});
