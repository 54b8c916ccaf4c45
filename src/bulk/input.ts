// Bulk input: CSV (header row) or NDJSON, streamed record by record so a file
// of a million rows never sits in memory. Standard input is first spooled to
// a temporary file, so it can be counted and read twice like a file.

import { closeSync, createReadStream, createWriteStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { UsageError } from '../exit-codes.js';
import { count, fileProblem, invalidValue, oneOf } from '../output/words.js';

export type InputFormat = 'csv' | 'ndjson';

export interface InputFile {
  /** What is read: the file, the spooled stdin, or a UTF-8 copy of a file in another encoding. */
  path: string;
  /** The file the user named (its journal goes beside it); for stdin, the spooled copy. */
  named: string;
  /** What the user named: a path, or `stdin`. */
  label: string;
  fromStdin: boolean;
  format: InputFormat;
  /** Size in bytes when opened. */
  size: number;
  cleanup(): void;
}

export interface InputRow {
  /**
   * Where a person finds the row: its line in an NDJSON file, its row in a
   * spreadsheet for a CSV file (the header is row 1, blank lines count, a
   * quoted value over several lines is one row).
   */
  row: number;
  fields: Record<string, unknown>;
  /** The record could not be read (broken JSON, wrong number of CSV columns). */
  error?: string;
}

export function formatOf(path: string, given: string | undefined): InputFormat {
  if (given !== undefined) {
    if (given === 'csv' || given === 'ndjson') return given;
    throw new UsageError(invalidValue('--format', given, oneOf(['csv', 'ndjson']), ['csv', 'ndjson']));
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  throw new UsageError(`--from-file: cannot tell the format of "${basename(path)}" from its extension; use .csv or .ndjson, or pass --format csv|ndjson`);
}

/**
 * Opens the input; `-` spools stdin to a temporary file first. Text that is
 * not UTF-8 is refused unless `encoding` names it (encoding.ts).
 */
export async function openInput(path: string, format: string | undefined, stdin: NodeJS.ReadableStream, encoding?: string): Promise<InputFile> {
  const input = await openBytes(path, format, stdin);
  const { utf8Input } = await import('./encoding.js');
  let copy;
  try {
    copy = await utf8Input(input.path, encoding, () => firstReplaced(input));
  } catch (err) {
    input.cleanup();
    throw err;
  }
  if (!copy) return input;
  return { ...input, path: copy.path, size: copy.size, cleanup: () => (copy.cleanup(), input.cleanup()) };
}

/** The first row with a character that could not be decoded (U+FFFD in its place), and that value. */
async function firstReplaced(input: Pick<InputFile, 'path' | 'format'>): Promise<{ row: number; value: string } | undefined> {
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

async function openBytes(path: string, format: string | undefined, stdin: NodeJS.ReadableStream): Promise<InputFile> {
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
  if (format === undefined) throw new UsageError('--from-file -: pass --format csv|ndjson for standard input');
  const fmt = formatOf('-', format);
  const dir = mkdtempSync(join(tmpdir(), 'smslink-stdin-'));
  const spooled = join(dir, `input.${fmt}`);
  const out = createWriteStream(spooled, { mode: 0o600 });
  await pipeline(stdin, out);
  return { path: spooled, named: spooled, label: 'stdin', fromStdin: true, format: fmt, size: out.bytesWritten, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Records as arrays: a row with more or fewer fields than the header is that row's error,
// never a silently dropped or shifted value ("Hello, world" unquoted is two fields). Blank
// lines come through as records (one empty field) so that they are counted as a spreadsheet
// counts them, and are then skipped.
const CSV_OPTIONS = { bom: true, skip_empty_lines: false, relax_column_count: true } as const;

const isBlank = (record: string[]) => record.length === 1 && record[0] === '';

/** Turns CSV records, the header first, into rows numbered as a spreadsheet numbers them. */
class CsvRows {
  #header: string[] | undefined;
  /** The spreadsheet row of the last record read. */
  #row = 0;

  /** The row of a record; undefined for the header and for blank lines. */
  next(record: string[]): InputRow | undefined {
    const row = ++this.#row;
    if (isBlank(record)) return undefined;
    const header = this.#header;
    if (!header) {
      this.#header = record.map((h) => h.trim());
      return undefined;
    }
    if (record.length !== header.length) {
      return { row, fields: {}, error: `has ${count(record.length, 'field')} but the header has ${header.length} (quote values that contain commas)` };
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
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { row, fields: {}, error: 'must be a JSON object' };
  return { row, fields: parsed as Record<string, unknown> };
}

async function* csvRows(path: string): AsyncGenerator<InputRow> {
  const { parse } = await import('csv-parse');
  const parser = createReadStream(path).pipe(parse(CSV_OPTIONS));
  const rows = new CsvRows();
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

async function* ndjsonRows(path: string): AsyncGenerator<InputRow> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() !== '') yield ndjsonRow(line, text);
  }
}

/** Streams the records of an input, each with the row a person finds it at. */
export function readRows(input: Pick<InputFile, 'path' | 'format'>): AsyncGenerator<InputRow> {
  return input.format === 'csv' ? csvRows(input.path) : ndjsonRows(input.path);
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
export async function readAllRows(input: Pick<InputFile, 'path' | 'format'>): Promise<InputRow[]> {
  const { readFile } = await import('node:fs/promises');
  const bytes = await readFile(input.path);
  const rows: InputRow[] = [];
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse/sync');
    let records: string[][];
    try {
      records = parse(bytes, CSV_OPTIONS) as string[][];
    } catch (err) {
      throw csvReadError(err);
    }
    const csv = new CsvRows();
    for (const record of records) {
      const r = csv.next(record);
      if (r) rows.push(r);
    }
    return rows;
  }
  const lines = bytes.toString('utf8').split(/\r?\n|\r(?!\n)/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '') rows.push(ndjsonRow(i + 1, lines[i]));
  }
  return rows;
}

/** A CSV the parser gave up on (a stray quote), with the last row read before it. */
function csvReadError(err: unknown): InputReadError {
  // csv-parse counts the header and blank lines among the records it read, as a spreadsheet does.
  const read = (err as { records?: number }).records;
  return new InputReadError((err as Error).message, typeof read === 'number' ? read : 0);
}

/** The column names: the CSV header, or the keys of the first NDJSON record. */
export async function columnsOf(input: Pick<InputFile, 'path' | 'format'>): Promise<string[]> {
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse');
    // The parser reads the whole first chunk at once: a stray quote further on fails it before the header comes out.
    const parser = createReadStream(input.path).pipe(parse(CSV_OPTIONS));
    try {
      for await (const record of parser as AsyncIterable<string[]>) if (!isBlank(record)) return record.map((h) => h.trim());
    } catch (err) {
      throw csvReadError(err);
    }
    return [];
  }
  for await (const r of readRows(input)) return Object.keys(r.fields);
  return [];
}
