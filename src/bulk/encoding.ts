// The text encoding of a bulk input. Files are read as UTF-8 (a BOM is
// skipped); one that is not valid UTF-8 is refused, naming its first bad row,
// unless --encoding names what it is (spreadsheets save CSV as windows-1251
// or latin1 as often as UTF-8). Such a file, or one with a UTF-16 BOM, is
// decoded with Node's TextDecoder into a UTF-8 copy that the run reads.

import { createReadStream, createWriteStream, mkdtempSync, openSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { UsageError } from '../exit-codes.js';

const HINT = 'if it was saved in another encoding, name it, e.g. --encoding windows-1251 (Cyrillic) or --encoding latin1 (Western European)';

/** The WHATWG name of an encoding the user named (latin1 is windows-1252, as browsers read it). */
export function encodingOf(name: string): string {
  try {
    return new TextDecoder(name.trim()).encoding;
  } catch {
    throw new UsageError(`--encoding: "${name}" is not an encoding this Node.js can read; e.g. utf-8, windows-1251, latin1, utf-16le`);
  }
}

/** The encoding a byte order mark at the start of the file says, if any. */
function bomOf(path: string): string | undefined {
  const head = Buffer.alloc(3);
  const fd = openSync(path, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, 3, 0);
  } finally {
    closeSync(fd);
  }
  if (n >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (n >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Whether the whole file is valid UTF-8 (read in chunks: a character split between two is decoded whole). */
async function isUtf8File(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(path)) decoder.decode(chunk as Buffer, { stream: true });
    decoder.decode();
    return true;
  } catch (err) {
    if (err instanceof TypeError) return false;
    throw err;
  }
}

/** A UTF-8 copy of a file in `encoding`, in a private folder that cleanup() removes. */
async function toUtf8(path: string, encoding: string): Promise<{ path: string; size: number; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'smslink-input-'));
  const copy = join(dir, 'input.utf8');
  const out = createWriteStream(copy, { mode: 0o600 });
  const decoder = new TextDecoder(encoding);
  try {
    for await (const chunk of createReadStream(path)) if (!out.write(decoder.decode(chunk as Buffer, { stream: true }))) await once(out, 'drain');
    out.end(decoder.decode());
    await once(out, 'finish');
  } catch (err) {
    out.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { path: copy, size: out.bytesWritten, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * What the run reads for the file at `path`: the file itself when it is
 * UTF-8, else a UTF-8 copy (`copy` set). Throws a usage error for a file
 * that is not UTF-8 when no other encoding was named; `firstBadRow` finds
 * the row to name (only then is it called).
 */
export async function utf8Input(
  path: string,
  named: string | undefined,
  firstBadRow: () => Promise<{ row: number; value: string } | undefined>,
): Promise<{ path: string; size: number; cleanup(): void } | undefined> {
  const encoding = named === undefined ? bomOf(path) : encodingOf(named);
  if (encoding !== undefined && encoding !== 'utf-8') return toUtf8(path, encoding);
  if (await isUtf8File(path)) return undefined;
  const bad = await firstBadRow();
  const where = bad ? `row ${bad.row} ("${bad.value}")` : 'a row';
  throw new UsageError(`--from-file: ${where} is not valid UTF-8, so the file is not sent; ${HINT}`);
}
