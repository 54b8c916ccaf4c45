// Bulk input: CSV (header row; columns apart by commas, semicolons or tabs),
// NDJSON or a JSON array, streamed record by record so a file of a million
// rows never sits in memory. Standard input is first spooled to a temporary
// file, so it can be counted and read twice like a file.

import { closeSync, createReadStream, createWriteStream, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { stdinInterrupted, UsageError } from '../exit-codes.js';
import { count, fileProblem, invalidValue, oneOf } from '../output/words.js';

export type InputFormat = 'csv' | 'ndjson' | 'json';

const FORMATS: readonly InputFormat[] = ['csv', 'ndjson', 'json'];

export interface InputFile {
  /** What is read: the file, the spooled stdin, or a UTF-8 copy of a file in another encoding. */
  path: string;
  /** The file the user named (its journal goes beside it); for stdin, the spooled copy. */
  named: string;
  /** What the user named: a path, or `stdin`. */
  label: string;
  fromStdin: boolean;
  format: InputFormat;
  /** What separates a CSV file's columns: given (--delimiter), else found in its header row (delimiterOf). */
  delimiter?: string;
  /** Size in bytes when opened. */
  size: number;
  cleanup(): void;
}

export interface InputRow {
  /**
   * Where a person finds the row: its line in an NDJSON file, its row in a
   * spreadsheet for a CSV file (the header is row 1, blank lines count, a
   * quoted value over several lines is one row), its element's place in a
   * JSON array, from 1 (`jq '.[row-1]'` shows it).
   */
  row: number;
  fields: Record<string, unknown>;
  /** The record could not be read (a broken NDJSON line, not an object, wrong number of CSV columns). */
  error?: string;
}

export function formatOf(path: string, given: string | undefined): InputFormat {
  if (given !== undefined) {
    if ((FORMATS as readonly string[]).includes(given)) return given as InputFormat;
    throw new UsageError(invalidValue('--format', given, oneOf(FORMATS), FORMATS));
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.csv' || ext === '.tsv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.json') return 'json';
  throw new UsageError(`--from-file: cannot tell the format of "${basename(path)}" from its extension; use .csv, .tsv, .ndjson or .json, or pass --format csv|ndjson|json`);
}

/** The delimiters a CSV file's header is searched for, in the order a tie goes: `,` first. */
const DELIMITERS = [',', ';', '\t'] as const;
/** Words --delimiter takes besides the character itself. */
const DELIMITER_WORDS: Readonly<Record<string, string>> = { comma: ',', semicolon: ';', tab: '\t' };

/** A delimiter as a person names it: `semicolon`, `tab`, `"|"`. */
export function delimiterName(delimiter: string): string {
  return Object.entries(DELIMITER_WORDS).find(([, d]) => d === delimiter)?.[0] ?? `"${delimiter}"`;
}

/** --delimiter's value: one character (a quote or a line break cannot be one), or comma, semicolon, tab. */
export function delimiterFlag(value: string): string {
  const d = DELIMITER_WORDS[value.toLowerCase()] ?? (value === '\\t' ? '\t' : value);
  if ([...d].length === 1 && !/["\r\n]/.test(d)) return d;
  throw new UsageError(invalidValue('--delimiter', value, 'must be one character, such as , or ; or |, or tab', Object.keys(DELIMITER_WORDS)));
}

/** How much of a file's start is read to find its header row. */
const HEADER_BYTES = 64 * 1024;

/**
 * What separates the columns of a CSV file: of `,` `;` and tab, the one its
 * header row (its first line that is not blank) has most of outside quotes;
 * a comma when it has none. A European spreadsheet saves `recipient;name`.
 * The header decides, never the rows: it names columns and holds no text,
 * while a message text may hold any number of semicolons or commas.
 */
export function delimiterOf(path: string): string {
  const head = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(path, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.subarray(0, n).toString('utf8').replace(/^\uFEFF/, '');
  const header = text.split(/\r\n|\r|\n/).find((line) => line.trim() !== '') ?? '';
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  return DELIMITERS.reduce((best, d) => (counts.get(d)! > counts.get(best)! ? d : best), ',');
}

/**
 * Opens the input; `-` spools stdin to a temporary file first. Text that is
 * not UTF-8 is refused unless `encoding` names it (encoding.ts). A CSV
 * file's delimiter is `delimiterGiven` (--delimiter), else found in its
 * header row. `signal` (Ctrl-C, SIGTERM) ends the spooling of a stdin whose
 * writer never closes it.
 */
export async function openInput(path: string, format: string | undefined, stdin: NodeJS.ReadableStream, encoding?: string, delimiterGiven?: string, signal?: AbortSignal): Promise<InputFile> {
  const delimiter = delimiterGiven === undefined ? undefined : delimiterFlag(delimiterGiven);
  const input = await openBytes(path, format, stdin, signal);
  if (delimiter !== undefined && input.format !== 'csv') {
    input.cleanup();
    throw new UsageError(`--delimiter applies to CSV input only (${input.format === 'json' ? 'JSON' : 'NDJSON'} has none)`);
  }
  const { utf8Input } = await import('./encoding.js');
  let copy;
  try {
    copy = await utf8Input(input.path, encoding, () => firstReplaced(input.format === 'csv' ? { ...input, delimiter: delimiter ?? delimiterOf(input.path) } : input));
  } catch (err) {
    input.cleanup();
    throw err;
  }
  const read = copy ? { ...input, path: copy.path, size: copy.size, cleanup: () => (copy.cleanup(), input.cleanup()) } : input;
  return read.format === 'csv' ? { ...read, delimiter: delimiter ?? delimiterOf(read.path) } : read;
}

/** The first row with a character that could not be decoded (U+FFFD in its place), and that value. */
async function firstReplaced(input: ReadableInput): Promise<{ row: number; value: string } | undefined> {
  try {
    for await (const r of readRows(input)) {
      const value = Object.values(r.fields).find((v) => typeof v === 'string' && v.includes('\uFFFD')) as string | undefined;
      if (value !== undefined) return { row: r.row, value: value.length > 40 ? `${value.slice(0, 40)}...` : value };
    }
  } catch {
    // A file that cannot be parsed either: the row stays unnamed.
  }
  return undefined;
}

async function openBytes(path: string, format: string | undefined, stdin: NodeJS.ReadableStream, signal?: AbortSignal): Promise<InputFile> {
  if (path !== '-') {
    const { stat } = await import('node:fs/promises');
    let size: number;
    try {
      const s = await stat(path);
      if (!s.isFile()) throw Object.assign(new Error('not a file'), { code: s.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
      size = s.size;
      // Opened once here, so a file that is there but may not be read is said now, in words.
      closeSync(openSync(path, 'r'));
    } catch (err) {
      throw new UsageError(fileProblem('--from-file', path, err));
    }
    return { path, named: path, label: path, fromStdin: false, format: formatOf(path, format), size, cleanup: () => undefined };
  }
  if (format === undefined) throw new UsageError('--from-file -: pass --format csv|ndjson|json for standard input');
  const fmt = formatOf('-', format);
  const dir = mkdtempSync(join(tmpdir(), 'smslink-stdin-'));
  const spooled = join(dir, `input.${fmt}`);
  const out = createWriteStream(spooled, { mode: 0o600 });
  try {
    await pipeline(stdin, out, { signal });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    if (signal?.aborted) throw stdinInterrupted();
    throw err;
  }
  return { path: spooled, named: spooled, label: 'stdin', fromStdin: true, format: fmt, size: out.bytesWritten, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What the readers need of an input: a CSV file's delimiter, when not a comma; what names it in messages (its path if not given). */
type ReadableInput = Pick<InputFile, 'path' | 'format' | 'delimiter'> & Partial<Pick<InputFile, 'label' | 'fromStdin'>>;

// Records as arrays: a row with more or fewer fields than the header is that row's error,
// never a silently dropped or shifted value ("Hello, world" unquoted is two fields). Blank
// lines come through as records (one empty field) so that they are counted as a spreadsheet
// counts them, and are then skipped.
const csvOptions = (delimiter = ',') => ({ bom: true, skip_empty_lines: false, relax_column_count: true, delimiter }) as const;

/** What a value holding the delimiter needs, said in a row's error: `quote values that contain semicolons`. */
function quoteHint(delimiter: string): string {
  const name = delimiterName(delimiter);
  return `quote values that contain ${name.startsWith('"') ? name : `${name}s`}`;
}

const isBlank = (record: string[]) => record.length === 1 && record[0] === '';

/**
 * A CSV header's column names, trimmed. A name given twice is refused: each row
 * would fill it twice and keep one value, the other lost unsaid (a template's
 * {{name}} filled from the wrong column). Empty names (a spreadsheet's trailing
 * commas) name no column and may repeat.
 */
function headerOf(record: string[]): string[] {
  const names = record.map((h) => h.trim());
  const first = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    if (names[i] === '') continue;
    const before = first.get(names[i]);
    if (before !== undefined) {
      throw new UsageError(`--from-file: the header names the column "${names[i]}" twice (columns ${before + 1} and ${i + 1}): rename one, so that each value has a column of its own`);
    }
    first.set(names[i], i);
  }
  return names;
}

/** Turns CSV records, the header first, into rows numbered as a spreadsheet numbers them. */
class CsvRows {
  constructor(private readonly delimiter = ',') {}
  #header: string[] | undefined;
  /** The spreadsheet row of the last record read. */
  #row = 0;

  /** The row of a record; undefined for the header and for blank lines. */
  next(record: string[]): InputRow | undefined {
    const row = ++this.#row;
    if (isBlank(record)) return undefined;
    const header = this.#header;
    if (!header) {
      this.#header = headerOf(record);
      return undefined;
    }
    if (record.length !== header.length) {
      return { row, fields: {}, error: `has ${count(record.length, 'field')} but the header has ${header.length} (${quoteHint(this.delimiter)})` };
    }
    const fields: Record<string, string> = {};
    for (let i = 0; i < header.length; i++) fields[header[i]] = record[i];
    return { row, fields };
  }
}

/** The row of a non-blank NDJSON line. */
function ndjsonRow(row: number, line: string): InputRow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { row, fields: {}, error: 'is not valid JSON' };
  }
  return objectRow(row, parsed);
}

/** The row of a parsed NDJSON line or JSON array element: an object is one, anything else is that row's error. */
function objectRow(row: number, parsed: unknown): InputRow {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { row, fields: {}, error: 'must be a JSON object' };
  return { row, fields: parsed as Record<string, unknown> };
}

async function* csvRows(input: ReadableInput): AsyncGenerator<InputRow> {
  const { parse } = await import('csv-parse');
  const parser = createReadStream(input.path).pipe(parse(csvOptions(input.delimiter)));
  const rows = new CsvRows(input.delimiter);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const r = rows.next(record);
      if (r) yield r;
    }
  } catch (err) {
    // The rows parsed in the chunk that failed never come out: the parser's count says how far it read.
    throw csvReadError(err);
  }
}

/** The non-blank lines of an NDJSON file, each with its line number. */
async function* ndjsonLines(path: string): AsyncGenerator<{ row: number; text: string }> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() !== '') yield { row: line, text };
  }
}

async function* ndjsonRows(path: string): AsyncGenerator<InputRow> {
  for await (const { row, text } of ndjsonLines(path)) yield ndjsonRow(row, text);
}

/** A JSON array's elements as rows, numbered from 1 by their place in it. */
async function* jsonRows(input: ReadableInput): AsyncGenerator<InputRow> {
  const { jsonElements, BrokenJsonError } = await import('./json-array.js');
  try {
    for await (const { index, value } of jsonElements(input.path, input.label ?? input.path)) yield objectRow(index + 1, value);
  } catch (err) {
    throw err instanceof BrokenJsonError ? new InputReadError(err.message, err.read) : err;
  }
}

/** Streams the records of an input, each with the row a person finds it at. */
export function readRows(input: ReadableInput): AsyncGenerator<InputRow> {
  if (input.format === 'csv') return csvRows(input);
  return input.format === 'json' ? jsonRows(input) : ndjsonRows(input.path);
}

/** An input that could not be read to its end; `lastRow` is the last row read before the problem. */
export class InputReadError extends Error {
  constructor(
    message: string,
    readonly lastRow: number,
  ) {
    super(message);
  }
}

/**
 * Every row of an input at once, for inputs small enough to hold: parsing a
 * whole buffer takes far less time than streaming it record by record (time
 * `link create --from-file --validate-only` over a file of 100,000 rows
 * either way to remeasure). Lines end as readline ends them (LF, CRLF or a
 * lone CR).
 */
export async function readAllRows(input: ReadableInput): Promise<InputRow[]> {
  const { readFile } = await import('node:fs/promises');
  const bytes = await readFile(input.path);
  const rows: InputRow[] = [];
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse/sync');
    let records: string[][];
    try {
      records = parse(bytes, csvOptions(input.delimiter)) as string[][];
    } catch (err) {
      throw csvReadError(err);
    }
    const csv = new CsvRows(input.delimiter);
    for (const record of records) {
      const r = csv.next(record);
      if (r) rows.push(r);
    }
    return rows;
  }
  if (input.format === 'json') return wholeJsonRows(input, bytes);
  const lines = bytes.toString('utf8').split(/\r?\n|\r(?!\n)/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '') rows.push(ndjsonRow(i + 1, lines[i]));
  }
  return rows;
}

/**
 * A small JSON array's rows, parsed at once. Anything JSON.parse refuses, or
 * that is not an array, is read again streamed: what is wrong is then said
 * in the same words whatever the size of the file.
 */
async function wholeJsonRows(input: ReadableInput, bytes: Buffer): Promise<InputRow[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed)) return parsed.map((value, i) => objectRow(i + 1, value));
  const rows: InputRow[] = [];
  for await (const r of jsonRows(input)) rows.push(r);
  return rows;
}

/** A CSV the parser gave up on (a stray quote), with the last row read before it. */
function csvReadError(err: unknown): InputReadError {
  // csv-parse counts the header and blank lines among the records it read, as a spreadsheet does.
  const read = (err as { records?: number }).records;
  return new InputReadError((err as Error).message, typeof read === 'number' ? read : 0);
}

/** The column names: the CSV header, or the keys of the first NDJSON line or JSON array element. */
export async function columnsOf(input: ReadableInput): Promise<string[]> {
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse');
    // The parser reads the whole first chunk at once: a stray quote further on fails it before the header comes out.
    const parser = createReadStream(input.path).pipe(parse(csvOptions(input.delimiter)));
    try {
      for await (const record of parser as AsyncIterable<string[]>) if (!isBlank(record)) return headerOf(record);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw csvReadError(err);
    }
    return [];
  }
  if (input.format === 'ndjson') {
    // A JSON array given as NDJSON: its first line, `[` or the whole array, is not an object.
    for await (const { text } of ndjsonLines(input.path)) {
      if (text.trimStart().startsWith('[')) {
        const how = input.fromStdin ? 'pass --format json' : 'name the file .json or pass --format json';
        throw new UsageError(`--from-file: ${input.label ?? input.path} holds a JSON array (its first line starts with "["), not NDJSON, one object a line: to read the array's objects as rows, ${how}`);
      }
      break;
    }
  }
  for await (const r of readRows(input)) {
    // The first record names the columns: one that is not an object names none, and is not an empty input.
    if (r.error) throw new UsageError(`--from-file: row ${r.row} ${r.error}, and the first row's keys name the columns: fix that row`);
    return Object.keys(r.fields);
  }
  return [];
}
