// Bulk input: CSV (header row) or NDJSON, streamed record by record so a file
// of a million rows never sits in memory. Standard input is first spooled to
// a temporary file, so it can be hashed, counted and read twice like a file.

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { UsageError } from '../cli/exit.js';

export type InputFormat = 'csv' | 'ndjson';

export interface InputFile {
  path: string;
  /** What the user named: a path, or `stdin`. */
  label: string;
  fromStdin: boolean;
  format: InputFormat;
  /** Size in bytes when opened. */
  size: number;
  cleanup(): void;
}

export interface InputRow {
  /** 1-based number of the record among the data records (the CSV header is not a row). */
  row: number;
  fields: Record<string, unknown>;
  /** The record could not be read (broken JSON, wrong number of CSV columns). */
  error?: string;
}

export function formatOf(path: string, given: string | undefined): InputFormat {
  if (given !== undefined) {
    if (given === 'csv' || given === 'ndjson') return given;
    throw new UsageError(`--format: invalid value "${given}": must be csv or ndjson`);
  }
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  throw new UsageError(`--from-file: cannot tell the format of "${basename(path)}" from its extension; use .csv or .ndjson, or pass --format csv|ndjson`);
}

/** Opens the input; `-` spools stdin to a temporary file first. */
export async function openInput(path: string, format: string | undefined, stdin: NodeJS.ReadableStream): Promise<InputFile> {
  if (path !== '-') {
    const { stat } = await import('node:fs/promises');
    let size: number;
    try {
      const s = await stat(path);
      if (!s.isFile()) throw new Error('not a file');
      size = s.size;
    } catch (err) {
      throw new UsageError(`--from-file: cannot read "${path}": ${(err as Error).message}`);
    }
    return { path, label: path, fromStdin: false, format: formatOf(path, format), size, cleanup: () => undefined };
  }
  if (format === undefined) throw new UsageError('--from-file -: pass --format csv|ndjson for standard input');
  const fmt = formatOf('-', format);
  const dir = mkdtempSync(join(tmpdir(), 'smslink-stdin-'));
  const spooled = join(dir, `input.${fmt}`);
  const out = createWriteStream(spooled, { mode: 0o600 });
  await pipeline(stdin, out);
  return { path: spooled, label: 'stdin', fromStdin: true, format: fmt, size: out.bytesWritten, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A short digest of a text (the journal's record of the flag values a run used, never the values). */
export function digest(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/** sha256 of the input's bytes: those already read, or the file's, streamed. */
export async function hashInput(path: string, bytes?: Buffer): Promise<string> {
  const hash = createHash('sha256');
  if (bytes) hash.update(bytes);
  else for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

// Records as arrays: a row with more or fewer fields than the header is that row's error,
// never a silently dropped or shifted value ("Hello, world" unquoted is two fields).
const CSV_OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true } as const;

/** Turns CSV records, the header first, into numbered rows. */
class CsvRows {
  #header: string[] | undefined;
  #row = 0;

  /** The row of a record; undefined for the header. */
  next(record: string[]): InputRow | undefined {
    const header = this.#header;
    if (!header) {
      this.#header = record.map((h) => h.trim());
      return undefined;
    }
    const row = ++this.#row;
    if (record.length !== header.length) {
      return { row, fields: {}, error: `has ${record.length} fields but the header has ${header.length} (quote values that contain commas)` };
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
  for await (const record of parser as AsyncIterable<string[]>) {
    const r = rows.next(record);
    if (r) yield r;
  }
}

async function* ndjsonRows(path: string): AsyncGenerator<InputRow> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let row = 0;
  for await (const line of lines) {
    if (line.trim() !== '') yield ndjsonRow(++row, line);
  }
}

/** Streams the records of an input, numbered from 1. */
export function readRows(input: Pick<InputFile, 'path' | 'format'>): AsyncGenerator<InputRow> {
  return input.format === 'csv' ? csvRows(input.path) : ndjsonRows(input.path);
}

/** An input that could not be read to its end; `rowsRead` rows were read before the problem. */
export class InputReadError extends Error {
  constructor(
    message: string,
    readonly rowsRead: number,
  ) {
    super(message);
  }
}

/**
 * Every row of an input at once, for inputs small enough to hold: parsing a
 * whole buffer takes about a third of the time of streaming it record by
 * record. Lines end as readline ends them (LF, CRLF or a lone CR). The bytes
 * read come back too, for hashInput() not to read the file again.
 */
export async function readAllRows(input: Pick<InputFile, 'path' | 'format'>): Promise<{ rows: InputRow[]; bytes: Buffer }> {
  const { readFile } = await import('node:fs/promises');
  const bytes = await readFile(input.path);
  const rows: InputRow[] = [];
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse/sync');
    let records: string[][];
    try {
      records = parse(bytes, CSV_OPTIONS) as string[][];
    } catch (err) {
      // csv-parse counts the header among the records it read.
      const read = (err as { records?: number }).records;
      throw new InputReadError((err as Error).message, typeof read === 'number' ? Math.max(0, read - 1) : 0);
    }
    const csv = new CsvRows();
    for (const record of records) {
      const r = csv.next(record);
      if (r) rows.push(r);
    }
    return { rows, bytes };
  }
  let row = 0;
  for (const line of bytes.toString('utf8').split(/\r?\n|\r(?!\n)/)) {
    if (line.trim() !== '') rows.push(ndjsonRow(++row, line));
  }
  return { rows, bytes };
}

/** The column names: the CSV header, or the keys of the first NDJSON record. */
export async function columnsOf(input: Pick<InputFile, 'path' | 'format'>): Promise<string[]> {
  if (input.format === 'csv') {
    const { parse } = await import('csv-parse');
    const parser = createReadStream(input.path).pipe(parse({ bom: true, to_line: 1 }));
    for await (const header of parser as AsyncIterable<string[]>) return header.map((h) => h.trim());
    return [];
  }
  for await (const r of readRows(input)) return Object.keys(r.fields);
  return [];
}
