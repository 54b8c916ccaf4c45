// --dry-run: the requests a command would send, checked by the catalog and
// printed with the key masked; nothing is sent.

import type { SmsLinkClient } from '../../client/client.js';
import type { PreparedRequest } from '../../client/request.js';
import type { OperationSpec } from '../../catalog/types.js';
import type { RunContext } from '../core/context.js';
import { maskKeyBody, maskKeyFields } from '../../secrets.js';

/** Fields as an object; a name given several times (ids[]=1&ids[]=2) keeps every value, in a list. */
function groupFields(fields: Array<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** --dry-run: validates, then prints the request with the key redacted (in the URL, and any field named as a key: `smslink api` sends what it is given). */
export async function printDryRun(ctx: RunContext, prepared: PreparedRequest[], extra: Record<string, unknown> = {}): Promise<void> {
  const requests = prepared.map((r) => ({ ...r, fields: maskKeyFields(r.fields), body: maskKeyBody(r.body) }));
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
