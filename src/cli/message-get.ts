// `smslink message get <id>...`: each message whole (recipient, sender, text,
// cost, campaign, country and operator), from the contract's operations only:
// Message/GetSMSStatus finds each id's send time, then Message/List narrowed
// to that time (withNumberInfo=1) gives the rest. `message status` tables
// borrow the lookup for their recipient and text columns.

import { messageStatus, type ListMessagesInput } from '../catalog/message.js';
import { statusInWords } from '../catalog/codes.js';
import { MESSAGE_SHAPE } from '../catalog/shared.js';
import { wireTime } from '../catalog/rules.js';
import type { Message, MessageStatusRecord } from '../catalog/types.js';
import type { SmsLinkClient } from '../client/client.js';
import type { RunContext } from './context.js';
import { chunk, collectIds, mapLimit, parseConcurrency, prepareChunks, printDryRun } from './common.js';
import { EXIT, ExitError, PartialError } from '../exit-codes.js';
import type { CliValues, OwnCommand } from './operation.js';

/** Message/List's largest page. */
const PAGE = 100;
/** Pages `message get` reads for one send time before it gives up looking (10,000 messages sent in one second). */
const MAX_PAGES = 100;

/** One Message/List search and the ids it is to find. */
interface Search {
  criteria: Record<string, unknown>;
  ids: Set<number>;
}

/**
 * Reads each search's pages (at most `maxPages`) until every id it is to
 * find has been seen; returns the messages found, by id.
 */
async function search(client: SmsLinkClient, searches: Search[], maxPages: number, concurrency: number): Promise<Map<number, Message>> {
  const found = new Map<number, Message>();
  await mapLimit(searches, concurrency, async ({ criteria, ids }) => {
    for (let page = 0; page < maxPages; page++) {
      const input: ListMessagesInput = { ...criteria, withNumberInfo: 1, pageSize: PAGE, currentPage: page, sort: { startSendTs: 'ASC' } };
      const answer = await client.listMessages(input);
      for (const m of answer.items) if (ids.has(Number(m.id))) found.set(Number(m.id), m);
      const done = [...ids].every((id) => found.has(id));
      if (done || answer.items.length < PAGE || (page + 1) * PAGE >= Number(answer.totalItemCount)) return;
    }
  });
  return found;
}

/**
 * The searches that find these messages: one per send time (`exact`), or
 * one per 100 ids over their span of send times. A message not sent yet
 * has no send time: it is looked for among the messages of its status.
 */
function searchesFor(records: MessageStatusRecord[], exact: boolean): Search[] {
  const byKey = new Map<string, Search>();
  const add = (key: string, criteria: Record<string, unknown>, id: number) => {
    const s = byKey.get(key) ?? { criteria, ids: new Set<number>() };
    s.ids.add(id);
    byKey.set(key, s);
  };
  const timed = records.map((r) => ({ id: Number(r.id), at: wireTime(r.startSendTs), status: String(r.status) })).sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
  for (const r of timed.filter((t) => t.at === undefined)) add(`status ${r.status}`, { status: r.status }, r.id);
  const sent = timed.filter((t): t is typeof t & { at: string } => t.at !== undefined);
  if (exact) for (const r of sent) add(`at ${r.at}`, { startSendTsFrom: r.at, startSendTsTo: r.at }, r.id);
  else
    for (let i = 0; i < sent.length; i += PAGE) {
      const part = sent.slice(i, i + PAGE);
      for (const r of part) add(`part ${i}`, { startSendTsFrom: part[0].at, startSendTsTo: part.at(-1)!.at }, r.id);
    }
  return [...byKey.values()];
}

/**
 * Recipient and text for a `message status` table: one Message/List request
 * per 100 ids, over their span of send times; ids it does not find keep a dash.
 */
export async function recipientsAndTexts(client: SmsLinkClient, records: MessageStatusRecord[], concurrency: number): Promise<Map<number, Message>> {
  return search(client, searchesFor(records, false), 1, concurrency);
}

/** What a table shows of one message: the status in words beside its code, and the cost of all its segments (the table writes it as money). */
function forTable(m: Record<string, unknown>): Record<string, unknown> {
  const price = Number(m.segUserBuy);
  const cost = Number.isFinite(price) && m.segUserBuy !== null && m.segUserBuy !== undefined ? price * Number(m.segNum ?? 1) : null;
  return { ...m, status: statusInWords(String(m.status)), cost };
}

/** The fields of one message, in the order a person reads them. */
const GET_COLUMNS = ['id', 'to', 'from', 'text', 'status', 'segNum', 'segUserBuy', 'cost', 'campaignId', 'startSendTs', 'statusUpdateTs', 'countryA2', 'operatorName'];

async function get(ctx: RunContext, opts: CliValues, typed: string[]): Promise<number> {
  const all = await collectIds(ctx, typed);
  const client = await ctx.client();
  const { parts, prepared } = prepareChunks(client, messageStatus, all);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, prepared, { note: 'then Message/List (withNumberInfo=1) narrowed to each message\'s send time' });
    return EXIT.OK;
  }
  const view = await ctx.view({ output: { rows: 'array', columns: GET_COLUMNS, primary: 'id' }, result: { array: MESSAGE_SHAPE } });
  ctx.page();
  const concurrency = parseConcurrency(opts.concurrency);
  const statuses = (await mapLimit(parts, concurrency, (part) => client.getMessageStatus({ ids: part.map(Number) }))).flat();
  const byId = new Map(statuses.map((r) => [Number(r.id), r]));
  const missing = all.filter((id) => !byId.has(Number(id)));
  const records = all.map((id) => byId.get(Number(id))).filter((r): r is MessageStatusRecord => r !== undefined);
  const full = await search(client, searchesFor(records, true), MAX_PAGES, concurrency);
  // A message that moved on between the two reads (sent meanwhile, or a new status) is read and looked for once more.
  const moved = records.filter((r) => !full.has(Number(r.id)));
  if (moved.length) {
    const again = (await mapLimit(chunk(moved, PAGE), concurrency, (part) => client.getMessageStatus({ ids: part.map((r) => Number(r.id)) }))).flat();
    for (const [id, m] of await search(client, searchesFor(again, true), MAX_PAGES, concurrency)) full.set(id, m);
  }
  // A message Message/List did not give (a search that gave up) is shown with what GetSMSStatus said.
  const rows = records.map((r) => (full.get(Number(r.id)) ?? r) as unknown as Record<string, unknown>);
  const lost = records.filter((r) => !full.has(Number(r.id))).map((r) => r.id);
  const { renderRecord, renderRows } = await import('../output/format.js');
  if (view.format === 'table' && !view.quiet) {
    // Each message as a record, every value whole, a blank line between them.
    for (const [i, row] of rows.entries()) {
      if (i > 0) ctx.stdout.write('\n');
      await renderRecord(ctx.stdout, view, forTable(row));
    }
  } else await renderRows(ctx.stdout, view, rows);
  if (lost.length) ctx.note(`Message/List did not give ${lost.join(', ')}: only the status is shown`);
  if (missing.length && records.length === 0) throw new ExitError(`no message found for ${missing.join(', ')} (unknown, or not yours)`, EXIT.NOT_FOUND);
  if (missing.length) throw new PartialError(`no message found for ${missing.join(', ')} (unknown, or not yours)`);
  return EXIT.OK;
}

/** `message get`: a command of its own, taking message status's ids. */
export const MESSAGE_GET: OwnCommand = {
  verb: 'get',
  summary: 'Show messages whole: recipient, sender, text, cost, status, times, country and operator',
  about: `Shows each message whole: recipient, sender, text, segments, price per
segment and cost, campaign, status (in words and the service's code), send
and update times, country and operator. It reads Message/GetSMSStatus, then
Message/List narrowed to each message's send time. Scripts get the service's
fields (-o json, ndjson, csv); -q prints the ids found. Exit 6 when no id is
found, 5 when some are not (they are named on stderr).`,
  examples: ['smslink message get 123456', 'smslink message get 123456 123457 -o json', 'smslink message list --status rejected -q | smslink message get -'],
  flags: (cmd) =>
    cmd
      .argument('<id...>', 'message ids (space- or comma-separated; - reads them from stdin)')
      .option('--concurrency <n>', 'requests in flight when more than 100 ids are given (default 4)'),
  run: (ctx, opts, [ids]) => get(ctx, opts, ids as string[]),
};
