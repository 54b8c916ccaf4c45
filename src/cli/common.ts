// Pieces every noun's commands share: calling an operation through the
// client (or printing it for --dry-run), reading ids and text from stdin,
// and running chunked requests in parallel.

import type { SmsLinkClient } from '../client/client.js';
import type { PreparedRequest } from '../client/request.js';
import type { OperationSpec } from '../catalog/types.js';
import { idLimit } from '../catalog/validate.js';
import type { RunContext } from './context.js';
import { UsageError } from '../exit-codes.js';
import { splitIds } from './operation.js';

/** Calls an operation with input the client checks (the client's typed methods do the same). */
export async function callOperation<R>(ctx: RunContext, op: OperationSpec<unknown, R>, input: object): Promise<R> {
  return (await ctx.client()).call(op, input);
}

/** Fields as an object; a name given several times (ids[]=1&ids[]=2) keeps every value, in a list. */
function groupFields(fields: Array<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** --dry-run: validates, then prints the request with the key redacted. */
export async function printDryRun(ctx: RunContext, requests: PreparedRequest[], extra: Record<string, unknown> = {}): Promise<void> {
  const format = ctx.format();
  if (format === 'json' || format === 'ndjson') {
    const docs = requests.map((r) => ({
      dryRun: true,
      operation: r.operation,
      method: r.method,
      url: r.redactedUrl,
      fields: groupFields(r.fields),
      body: r.body,
      ...extra,
    }));
    const out = format === 'json' ? JSON.stringify(docs.length === 1 ? docs[0] : docs, null, 2) : docs.map((d) => JSON.stringify(d)).join('\n');
    ctx.stdout.write(`${out}\n`);
    return;
  }
  const paint = await ctx.paint();
  const blocks = requests.map((r) => {
    const width = Math.max(0, ...r.fields.map(([n]) => n.length));
    const fields = r.fields.map(([n, v]) => `  ${n.padEnd(width)}  ${v}`).join('\n');
    return `${paint.bold(`${r.method} ${r.redactedUrl}`)}\ncontent-type: application/x-www-form-urlencoded; charset=utf-8\n\n${fields || '  (no fields)'}\n\nbody: ${r.body}\n`;
  });
  const notes = Object.entries(extra).map(([k, v]) => `${k}: ${v}\n`).join('');
  ctx.stdout.write(`${paint.dim('dry run: nothing was sent')}\n${blocks.join('\n')}${notes}`);
}

/** Validates and prints the request of one operation instead of sending it, or of several (a list of several statuses: one each). */
export async function dryRun(ctx: RunContext, op: OperationSpec, input: object | object[], extra: Record<string, unknown> = {}): Promise<void> {
  const client: SmsLinkClient = await ctx.client();
  await printDryRun(ctx, (Array.isArray(input) ? input : [input]).map((i) => client.prepare(op, i)), extra);
}

export async function readStdin(ctx: RunContext): Promise<string> {
  if (ctx.io.stdin.isTTY) throw new UsageError('expected input on stdin (pipe it in), but stdin is a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Ids from arguments, comma-separated lists, and `-` for stdin (whitespace or commas). */
export async function collectIds(ctx: RunContext, values: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const v of values) {
    if (v === '-') out.push(...splitIds((await readStdin(ctx)).split(/\s+/)));
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
