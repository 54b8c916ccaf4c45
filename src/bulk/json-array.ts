// A bulk input that is a JSON array (`[{...}, {...}]`, what jq or an API
// export writes): its elements streamed one at a time with stream-json, so a
// file of a million rows never sits in memory. A file that is not an array is
// refused; broken JSON is said with its line, column and the row it breaks.

import { closeSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../exit-codes.js';

/** An element of the array and its place in it, from 0. */
export interface JsonElement {
  index: number;
  value: unknown;
}

/** The array could not be read to its end; `read` elements were whole before the problem. */
export class BrokenJsonError extends Error {
  constructor(
    message: string,
    readonly read: number,
  ) {
    super(message);
  }
}

/** What a JSON input's first character says it is: an array, a file with nothing in it, or something else. */
type Start = { kind: 'array' } | { kind: 'empty' } | { kind: 'other'; char: string };

/** How much of the file is read at a time to find its first character. */
const PEEK_BYTES = 64 * 1024;

/** The first character of the file that is not JSON's whitespace (a UTF-8 BOM skipped). */
function startOf(path: string): Start {
  const buf = Buffer.alloc(PEEK_BYTES);
  const fd = openSync(path, 'r');
  try {
    for (let at = 0; ; ) {
      const n = readSync(fd, buf, 0, PEEK_BYTES, at);
      if (n === 0) return { kind: 'empty' };
      let i = at === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      while (i < n && (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0a || buf[i] === 0x0d)) i++;
      if (i < n) return buf[i] === 0x5b ? { kind: 'array' } : { kind: 'other', char: [...buf.subarray(i, i + 4).toString('utf8')][0] };
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A file that does not hold an array is refused as a whole, before any row is
 * read: an object is likely NDJSON (an object a line) named .json.
 */
function notAnArray(label: string, start: Start & { kind: 'other' }): UsageError {
  const shape = 'a JSON input is an array with an object a row: [{...}, {...}]';
  if (start.char === '{') {
    return new UsageError(`--from-file: ${label} holds a JSON object, not an array of them: ${shape}; for one object a line (NDJSON), name the file .ndjson or pass --format ndjson`);
  }
  return new UsageError(`--from-file: ${label} does not hold a JSON array (it starts with ${JSON.stringify(start.char)}): ${shape}`);
}

/**
 * The elements of the array in the file at `path`, streamed (`label` names it
 * in messages). A file of whitespace only has none. Broken JSON throws
 * BrokenJsonError after the elements before it.
 */
export async function* jsonElements(path: string, label: string): AsyncGenerator<JsonElement> {
  const start = startOf(path);
  if (start.kind === 'empty') return;
  if (start.kind === 'other') throw notAnArray(label, start);
  const { pipe } = await import('stream-chain/utils/pipe.js');
  const { parseFile } = await import('stream-json/file/parser.js');
  const { streamArray } = await import('stream-json/streamers/stream-array.js');
  // Packed values only: the elements are built from them, and chunks of long strings would be made for nothing.
  const elements = pipe(parseFile({ streamValues: false }), streamArray())<{ key: number; value: unknown }>(path);
  let read = 0;
  try {
    for await (const { key, value } of elements) {
      read = key + 1;
      yield { index: key, value };
    }
  } catch (err) {
    throw await located(path, err, read);
  }
}

/**
 * Where broken JSON is, said as a person finds it: the line and column (the
 * verifier's), and the row it breaks, counted by parsing the text before it
 * again. The parser gives neither: it reads the file in blocks, and the
 * elements of the block it failed in never come out. Only a failed run pays
 * for these two extra reads.
 */
async function located(path: string, err: unknown, read: number): Promise<BrokenJsonError> {
  const { verifyFile } = await import('stream-json/file/verifier.js');
  let where: { line?: unknown; pos: number; offset: number; message: string } | undefined;
  try {
    await verifyFile(path);
  } catch (verr) {
    where = verr as typeof where;
  }
  // Not broken JSON after all (the file could not be read, say): the parser's own words, after the elements it gave.
  if (typeof where?.line !== 'number') return new BrokenJsonError((err as Error).message, read);
  const what = where.message.replace(/^ERROR at \d+ \(\d+, \d+\): Verifier (cannot parse input: |has )?/, '');
  const before = await elementsBefore(path, where.offset);
  const after = before.ended ? "after the array's end" : `in row ${before.count + 1}`;
  return new BrokenJsonError(`the JSON is broken at line ${where.line}, column ${where.pos}, ${after}: ${what}`, before.count);
}

/** How many elements are whole in the file's first `offset` characters, and whether the array ended there. */
async function elementsBefore(path: string, offset: number): Promise<{ count: number; ended: boolean }> {
  const { pipe } = await import('stream-chain/utils/pipe.js');
  const { asyncBlockReader } = await import('stream-chain/utils/asyncBlockReader.js');
  const { jsonParser } = await import('stream-json/core/parser.js');
  const { streamArray } = await import('stream-json/streamers/stream-array.js');
  // The text the verifier read without fault, decoded as parseFile decodes it (a BOM dropped).
  async function* prefix(file: string): AsyncGenerator<string> {
    let left = offset;
    for await (const block of asyncBlockReader()(file)) {
      if (left <= 0) return;
      yield block.slice(0, left);
      left -= block.length;
    }
  }
  let count = 0;
  try {
    for await (const { key } of pipe(prefix, jsonParser({ streamValues: false }), streamArray())<{ key: number }>(path)) count = key + 1;
  } catch {
    // The text stops inside the array, so the parser's flush fails: the count is what came before.
    return { count, ended: false };
  }
  return { count, ended: true };
}
