// `smslink message get <id...>`: each message whole (recipient, sender, text,
// cost, campaign, country and operator), found as lookup.ts says.

import { messageStatus } from '../../catalog/message.js';
import { MESSAGE_SHAPE } from '../../catalog/shared.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, ExitError, PartialError } from '../../exit-codes.js';
import { renderRecord, renderRows } from '../../output/format.js';
import { notFound } from '../../output/words.js';
import { printDryRun } from '../shared/dry-run.js';
import { collectIds, parseConcurrency, prepareChunks } from '../shared/ids.js';
import { sayCurrency } from '../shared/currency.js';
import { deferredOf, findMessages, readStatuses } from './lookup.js';

/** One message with what it cost beyond its fields: its segments times the price of one (null when no price is given). */
function withCost(m: Record<string, unknown>): Record<string, unknown> {
  const price = Number(m.segUserBuy);
  // To the service's four places: 0.07 x 3 is 0.21, not 0.21000000000000002.
  const cost = Number.isFinite(price) && m.segUserBuy !== null && m.segUserBuy !== undefined ? Math.round(price * Number(m.segNum ?? 1) * 1e4) / 1e4 : null;
  return { ...m, cost };
}

/** What a table says of the send time of a message that waits for a deferred send (the service does not say for when). */
const SCHEDULED = 'not yet: scheduled for later';

/** The fields of one message, in the order a person reads them. */
const GET_COLUMNS = ['id', 'to', 'from', 'text', 'status', 'segNum', 'segUserBuy', 'cost', 'campaignId', 'startSendTs', 'statusUpdateTs', 'countryA2', 'operatorName'];

async function get(ctx: RunContext, opts: CliValues, typed: string[]): Promise<number> {
  const all = await collectIds(ctx, typed);
  const client = await ctx.client();
  const { prepared } = prepareChunks(client, messageStatus, all);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, prepared, { note: "then Message/List (withNumberInfo=1) narrowed to each message's send time" });
    return EXIT.OK;
  }
  const view = await ctx.view({ output: { rows: 'array', columns: GET_COLUMNS, primary: 'id', kinds: { status: 'messageStatus' } }, result: { array: MESSAGE_SHAPE } });
  ctx.page();
  const concurrency = parseConcurrency(opts.concurrency);
  await sayCurrency(ctx, view);
  const { records, missing } = await readStatuses(client, all, concurrency);
  if (records.length === 0) throw new ExitError(notFound('message', missing), EXIT.NOT_FOUND);
  const full = await findMessages(client, records, concurrency);
  // A message Message/List did not give (a search that gave up) is shown with what GetSMSStatus said.
  const rows = records.map((r) => (full.get(Number(r.id)) ?? r) as unknown as Record<string, unknown>);
  const lost = records.filter((r) => !full.has(Number(r.id))).map((r) => r.id);
  if (view.format === 'table' && !view.quiet) {
    // A message not sent yet says whether it waits for a deferred send, rather than `sent -`.
    const deferred = await deferredOf(client, rows, concurrency);
    // Each message as a record, every value whole, a blank line between them.
    for (const [i, row] of rows.entries()) {
      if (i > 0) ctx.stdout.write('\n');
      await renderRecord(ctx.stdout, view, withCost(deferred.has(Number(row.id)) ? { ...row, startSendTs: SCHEDULED } : row));
    }
  } else await renderRows(ctx.stdout, view, rows.map(withCost));
  if (lost.length) ctx.note(`Message/List did not give ${lost.join(', ')}: only the status is shown`);
  if (missing.length) throw new PartialError(notFound('message', missing));
  return EXIT.OK;
}

export const MESSAGE_GET: CommandDef = {
  path: ['message', 'get'],
  summary: 'Show messages whole: recipient, sender, text, cost, status, times, country and operator',
  about: `Shows each message whole: recipient, sender, text, segments, price per
segment and cost, campaign, status (in words and the service's code), send
and update times, country and operator. It reads Message/GetSMSStatus, then
Message/List narrowed to each message's send time. A message not sent yet
that waits for a deferred send (--at) says "not yet: scheduled for later"
where its send time goes: no operation of the service says for when (the
send itself said it). Scripts get the service's fields (-o json, ndjson,
csv); -q prints the ids found. Exit 6 when no id is found, 5 when some are
not (they are named on stderr).`,
  examples: ['smslink message get 123456', 'smslink message get 123456 123457 -o json', 'smslink message list --status rejected -q | smslink message get -'],
  flags: (cmd) =>
    cmd
      .argument('<id...>', 'message ids (space- or comma-separated; - reads them from stdin)')
      .option('--concurrency <n>', 'requests in flight when more than 100 ids are given (default 4)'),
  run: (ctx, opts, [ids]) => get(ctx, opts, ids as string[]),
};
