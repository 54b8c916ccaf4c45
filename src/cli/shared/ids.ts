// Ids as typed (arguments, comma lists, `-` for stdin), split into requests
// of the operation's limit and run a few at a time; the --concurrency and
// count flags that bound them.

import type { SmsLinkClient } from '../../client/client.js';
import type { PreparedRequest } from '../../client/request.js';
import type { OperationSpec } from '../../catalog/types.js';
import { idLimit } from '../../catalog/validate.js';
import type { RunContext } from '../core/context.js';
import { readStdin } from '../core/streams.js';
import { UsageError } from '../../exit-codes.js';
import { splitIds } from './operation.js';

/** Ids from arguments, comma-separated lists, and `-` for stdin (whitespace or commas). */
export async function collectIds(ctx: RunContext, values: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const v of values) {
    if (v === '-') out.push(...splitIds((await readStdin(ctx.io)).split(/\s+/)));
    else out.push(...splitIds([v]));
  }
  return out;
}


/**
 * Splits ids into as many requests as the operation's limit needs. Every part
 * is checked first (a bad id anywhere means nothing is sent), and the
 * prepared requests serve --dry-run.
 */
export function prepareChunks(
  client: SmsLinkClient,
  op: OperationSpec,
  ids: readonly string[],
  base: Record<string, unknown> = {},
): { parts: string[][]; prepared: PreparedRequest[] } {
  const parts = chunk(ids, idLimit(op));
  return { parts, prepared: (parts.length ? parts : [[]]).map((part) => client.prepare(op, { ...base, ids: part })) };
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs fn over items with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** A whole-number flag from 1 to max, or the fallback when not given. */
export function parseCount(value: unknown, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${flag}: invalid value "${value}": must be a whole number from 1 to ${max}`);
  return n;
}

/** --concurrency: requests in flight (chunked ids, bulk rows). */
export function parseConcurrency(value: unknown): number {
  return parseCount(value, '--concurrency', 4, 64);
}
