// `smslink message status <id...>`: the delivery status of messages (and,
// with --wait, until each is final). A table at a terminal also shows each
// message's recipient and text (lookup.ts).

import { messageStatus } from '../../catalog/message.js';
import type { MessageStatusRecord } from '../../catalog/types.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { sayCurrency } from '../shared/currency.js';
import { EXIT, ExitError, PartialError } from '../../exit-codes.js';
import { renderRecord, renderRows } from '../../output/format.js';
import { notFound } from '../../output/words.js';
import { printDryRun } from '../shared/dry-run.js';
import { collectIds, mapLimit, parseConcurrency, prepareChunks } from '../shared/ids.js';
import { recipientsAndTexts } from './lookup.js';
import { waitFlags, waitForDelivery, waitOptions, waitOutcome, type WaitResult } from './wait.js';

/** A `message status` table: the catalog's columns with the recipient after the id and the text last. */
const STATUS_TABLE_COLUMNS = ['id', 'to', ...messageStatus.output.columns.slice(1), 'text'];

async function status(ctx: RunContext, opts: CliValues, ids: string[]): Promise<number> {
  const all = await collectIds(ctx, ids);
  const waitOpts = waitOptions(opts);
  const client = await ctx.client();
  const { parts, prepared } = prepareChunks(client, messageStatus, all);
  if (ctx.globals.dryRun) return (await printDryRun(ctx, prepared), EXIT.OK);
  let byId = new Map<number, MessageStatusRecord>();
  let waited: WaitResult | undefined;
  if (waitOpts) {
    waited = await waitForDelivery(ctx, client, all.map(Number), waitOpts);
    byId = waited.records;
  } else {
    ctx.page();
    const answers = await mapLimit(parts, parseConcurrency(opts.concurrency), (part) => client.call(messageStatus, { ids: part.map(Number) }));
    for (const rec of answers.flat()) byId.set(Number(rec.id), rec);
  }
  // Rows in the order the ids were given.
  let rows: Record<string, unknown>[] = all.map((id) => byId.get(Number(id))).filter((r): r is MessageStatusRecord => r !== undefined);
  const missing = all.filter((id) => !byId.has(Number(id)));
  if (rows.length === 0) throw new ExitError(notFound('message', missing), EXIT.NOT_FOUND);
  let view = await ctx.view(messageStatus);
  await sayCurrency(ctx, view);
  if (view.format === 'table' && !view.quiet && !view.fields && rows.length) {
    // A person at a terminal also sees whom each message went to and what it said (lookup.ts, recipientsAndTexts).
    // The statuses were asked for: a failed lookup leaves these columns out, with a note, rather than the statuses.
    const found = await recipientsAndTexts(client, rows as MessageStatusRecord[], parseConcurrency(opts.concurrency)).catch((err: unknown) => {
      ctx.note(`recipient and text not shown: Message/List failed (${err instanceof Error ? err.message : String(err)})`);
      return undefined;
    });
    if (found) {
      rows = rows.map((r) => ({ ...r, to: found.get(Number(r.id))?.to ?? null, text: found.get(Number(r.id))?.text ?? null }));
      view = { ...view, columns: STATUS_TABLE_COLUMNS };
    }
  }
  // One message asked for, one shown: as a record in a table, every value whole; scripts keep their list.
  if (all.length === 1 && rows.length === 1 && view.format === 'table') await renderRecord(ctx.stdout, view, rows[0]);
  else await renderRows(ctx.stdout, view, rows);
  if (waited) return waitOutcome(all.map(Number), waited);
  if (missing.length) throw new PartialError(notFound('message', missing));
  return EXIT.OK;
}

export const MESSAGE_STATUS: CommandDef = {
  path: ['message', 'status'],
  operation: messageStatus,
  flags: (cmd) => waitFlags(cmd).option('--concurrency <n>', 'requests in flight when more than 100 ids are given (default 4)'),
  about: `Statuses: new, queued, accepted, partly delivered (not final); delivered,
undelivered, rejected, expired, deleted (final). Tables say them in words;
-q, JSON and CSV keep the service's codes (NEW, ENQUEUD, ACCEPTD, PDLIVRD,
DELIVRD, UNDELIV, REJECTD, EXPIRED, DELETED). A table at a terminal also
shows each message's recipient and text (Message/List: a request per 100
ids sent close together, about one per id sent far apart);
\`smslink message get\` shows a message whole. Ids the service does not know
(or that belong to another key) are named on stderr: exit 6 when none was
found, 5 when some were. More than 100 ids are split into several requests.`,
  examples: [
    'smslink message status 123456',
    'smslink message status 123456,123457 -q',
    'cut -d, -f1 sent.csv | smslink message status - -o csv',
    'smslink message status 123456 --wait --wait-timeout 5m   # exit 0 delivered, 7 not, 3 timeout',
  ],
  run: (ctx, opts, [ids]) => status(ctx, opts, ids as string[]),
};
