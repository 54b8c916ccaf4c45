// `smslink message list --follow`: prints what happens from its start, until
// Ctrl-C: messages as they are sent, and status changes as they happen, of
// those and of the messages not yet final at the start. It polls Message/List
// (newest first) and Message/GetSMSStatus for the messages not yet final.

import type { Command } from 'commander';
import { FINAL_STATUSES } from '../../catalog/codes.js';
import { columnsFor } from '../../catalog/columns.js';
import { messageList, messageStatus } from '../../catalog/message.js';
import type { Message, MessageStatusRecord, Page } from '../../catalog/types.js';
import type { SmsLinkClient } from '../../client/client.js';
import { ApiError, TransportError } from '../../client/errors.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { tone } from '../../output/color.js';
import type { Row, View } from '../../output/format.js';
import { cellText, oneLine } from '../../output/text.js';
import { statusWord, tableTime } from '../../output/words.js';
import { chunk } from '../shared/ids.js';
import { dryRun } from '../shared/dry-run.js';
import { idLimit } from '../../catalog/validate.js';
import type { CliValues, CommandDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { sayCurrency } from '../shared/currency.js';
import { parseDuration, sleep } from '../core/time.js';
import { inputFrom, severalInputs } from '../shared/operation.js';
import { RowWriter } from '../../output/format.js';

/** Every record carries `event`: `new` (a message sent since the start, first seen) or `status` (a change of its status since the start). */
const FOLLOW_COLUMNS = ['event', 'id', 'to', 'from', 'status', 'previousStatus', 'segNum', 'startSendTs', 'statusUpdateTs', 'text'];
/** With nothing new, the pause between polls grows by half up to this (or --interval, if longer); activity resets it. */
const MAX_PAUSE_MS = 10_000;
/**
 * Newest first, by the contract's fields: each single send is a campaign of
 * its own, so the newest campaigns hold the newest messages (the live
 * service also sorts by id, but the contract does not name it, so the
 * client refuses it).
 */
const NEWEST_FIRST = { campaignId: 'DESC' };
/** Cells the text of a `new` line keeps before `from ...` gives way to it (at 80 columns a long status leaves fewer). */
const MIN_TEXT = 12;
/** Flags of `message list` that choose pages or order: --follow reads the newest messages itself. */
const PAGING_FLAGS: Record<string, string> = { all: '--all', limit: '--limit', currentPage: '--page', pageSize: '--page-size', sort: '--sort' };

/** `message list` with --follow and --interval added. */
export function followable(list: CommandDef): CommandDef {
  return {
    ...list,
    flags: (cmd: Command) =>
      (list.flags?.(cmd) ?? cmd)
        .option('-f, --follow', 'keep printing new messages and status changes until Ctrl-C')
        .option('--interval <duration>', 'with --follow: the first pause between polls, 500ms to 1h (default 1s)'),
    run: (ctx, opts, args, cmd) => {
      if (opts.follow) return follow(ctx, opts);
      if (opts.interval !== undefined) throw new UsageError('--interval applies only with --follow');
      return list.run(ctx, opts, args, cmd);
    },
  };
}

function pauseOf(opts: CliValues): number {
  if (opts.interval === undefined) return 1000;
  const ms = parseDuration(String(opts.interval), '--interval');
  if (ms < 500 || ms > 3_600_000) throw new UsageError(`--interval: invalid value "${opts.interval}": must be from 500ms to 1h`);
  return ms;
}

/** How each event is written: records through the format's writer, or one line each at a terminal. */
interface Printer {
  /** `reached`: the ids of messages from before the start that reached the --status followed, printed for the first time. */
  print(rows: Row[], reached: ReadonlySet<number>): Promise<void>;
}

async function printerFor(ctx: RunContext, query: Record<string, unknown>): Promise<Printer> {
  // The columns a flag adds (--with-number-info: country, operator) follow its own, as in `message list`.
  const view = await ctx.view(messageList, { columns: columnsFor(messageList, query, FOLLOW_COLUMNS) });
  await sayCurrency(ctx, view);
  if (view.format === 'table' && !view.quiet) {
    // A line is cut to the terminal's width in cells, as a table's are (string-width, loaded with the first table).
    const cells = await import('../../output/width.js');
    return { print: async (rows) => void ctx.stdout.write(rows.map((r) => line(r, view, cells)).join('')) };
  }
  // A stream has no end, so json is written as ndjson: one object per line.
  const format = view.format === 'json' ? 'ndjson' : view.format;
  const fields = view.fields && !view.fields.includes('event') ? ['event', ...view.fields] : view.fields;
  const writer = new RowWriter(ctx.stdout, { ...view, format, fields });
  // -q prints the id of each message once, when it first matches: new, or from before the start and reaching the --status
  // followed; a status change of a message already printed has no new id to give.
  return { print: (rows, reached) => writer.write(view.quiet ? rows.filter((r) => r.event === 'new' || reached.has(Number(r.id))) : rows) };
}

const TIME_WIDTH = tableTime('2026-01-01 00:00:00').length;
/** A line's time, to the minute, or `-` as wide: the columns after it line up. */
const timeCell = (value: unknown) => (tableTime(value) || '-').padEnd(TIME_WIDTH);

/** What a line is measured and cut with (src/output/width.ts: terminal cells, as a table's). */
interface Cells {
  cellWidth(text: string): number;
  truncate(text: string, max: number): string;
}

/**
 * One event as a line at a terminal, the text cut to fit:
 *   2025-01-15 10:00  new     1042  to 77011234567 from SHOP  queued  Your code is 4711
 *   2025-01-15 10:00  status  1042  queued -> delivered
 * The text tells messages apart, so it stays, cut with `…`: where it would keep fewer than
 * MIN_TEXT cells, `from ...` gives way first (most accounts send under one name).
 */
function line(row: Row, view: View, cells: Cells): string {
  const { paint } = view;
  const str = (v: unknown) => oneLine(cellText(v));
  const status = statusWord(row.status);
  if (row.event === 'status') {
    return `${paint.dim(timeCell(row.statusUpdateTs))}  ${paint.yellow('status')}  ${str(row.id)}  ${statusWord(row.previousStatus)} -> ${tone(status, paint)}\n`;
  }
  const at = timeCell(row.startSendTs);
  const to = `${str(row.id)}  to ${str(row.to)}`;
  const from = row.from ? ` from ${str(row.from)}` : '';
  const left = (view.width ?? Infinity) - cells.cellWidth(`${at}  new     ${to}  ${status}  `);
  const keepFrom = left - cells.cellWidth(from) >= MIN_TEXT;
  const who = keepFrom ? to + from : to;
  const room = keepFrom ? left - cells.cellWidth(from) : left;
  // Two cells at the least (`Y…`): a terminal narrower than the rest of the line has no room for any.
  const text = room >= 2 ? cells.truncate(str(row.text), room) : '';
  return `${paint.dim(at)}  ${paint.cyan('new   ')}  ${who}  ${tone(status, paint)}${text ? `  ${text}` : ''}\n`;
}

/** What the loop knows between polls. */
interface Seen {
  /** Every id printed: none is printed as new again. */
  ids: Set<number>;
  /** The highest id at the start: messages at or below it were sent before following began, and are never new. */
  start: number;
  /** Messages not yet final whose every status change is printed, with what was last known of them. */
  pending: Map<number, Row>;
  /**
   * With --status: messages not yet final at the start, with their last known status, until they reach a
   * status followed (printed then, and pending from then on) or a final one (let go).
   */
  watched: Map<number, Row>;
  /** The statuses --status follows; undefined without it. */
  wanted?: ReadonlySet<string>;
}

/**
 * Where following starts. The messages not yet final among the newest 100 the
 * filters but --status choose (one Message/List) are followed, so a change
 * after the start is printed and none before (a message already final never
 * is): without --status every change, with it the change that reaches a status
 * followed. The account's newest message marks the start, whatever the
 * filters: none sent before it is new, even one that comes to match one
 * (--campaign-status DONE); without other filters the same list says which.
 */
async function startingPoint(client: SmsLinkClient, query: Record<string, unknown>, filtered: boolean): Promise<Seen> {
  const { status, ...rest } = query;
  const newest = async (q: Record<string, unknown>) => {
    const page = (await client.call(messageList, { ...q, currentPage: 0 })) as Page<Message> | null;
    return (Array.isArray(page?.items) ? page.items : []) as Row[];
  };
  const items = await newest(rest);
  const open = new Map(items.filter((m) => !FINAL_STATUSES.has(String(m.status))).map((m) => [Number(m.id), m]));
  const start = Math.max(0, ...(filtered ? await newest({ pageSize: 25, sort: NEWEST_FIRST }) : items).map((m) => Number(m.id)));
  if (status === undefined) return { ids: new Set(), start, pending: open, watched: new Map() };
  return { ids: new Set(), start, pending: new Map(), watched: open, wanted: new Set([status].flat().map(String)) };
}

/** Messages above `seen.start` not seen yet, oldest first; pages on while a whole page is new. */
async function newMessages(client: SmsLinkClient, query: Record<string, unknown>, seen: Seen): Promise<Row[]> {
  const fresh: Row[] = [];
  for (let page = 0; ; page++) {
    const result = (await client.call(messageList, { ...query, currentPage: page })) as Page<Message> | null;
    const items = (Array.isArray(result?.items) ? result.items : []) as Row[];
    const unseen = items.filter((m) => Number(m.id) > seen.start && !seen.ids.has(Number(m.id)));
    fresh.push(...unseen);
    if (items.length < Number(query.pageSize) || unseen.length < items.length) break;
  }
  return fresh.reverse();
}

/** New messages of every query, oldest first, each once (one may change status between two queries). */
async function newOfEach(client: SmsLinkClient, queries: Record<string, unknown>[], seen: Seen): Promise<Row[]> {
  if (queries.length === 1) return newMessages(client, queries[0], seen);
  const byId = new Map<number, Row>();
  for (const q of queries) for (const m of await newMessages(client, q, seen)) byId.set(Number(m.id), m);
  return [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Status changes to print of the messages not yet final (pending, and watched
 * ones reaching a status followed), asked 100 ids at a time; track() them once
 * printed. A watched message's other changes are only noted.
 */
async function statusChanges(client: SmsLinkClient, seen: Seen): Promise<Row[]> {
  const changes: Row[] = [];
  for (const part of chunk([...seen.pending.keys(), ...seen.watched.keys()], idLimit(messageStatus))) {
    const records: MessageStatusRecord[] = await client.call(messageStatus, { ids: part });
    const answered = new Set(records.map((r) => Number(r.id)));
    // A message the service no longer shows (deleted, say) has nothing more to print.
    for (const id of part.filter((id) => !answered.has(id))) {
      seen.pending.delete(id);
      seen.watched.delete(id);
    }
    for (const rec of records) {
      const id = Number(rec.id);
      const before = seen.pending.get(id) ?? seen.watched.get(id);
      if (!before || before.status === rec.status) continue;
      const change = { ...before, ...rec, event: 'status', previousStatus: before.status };
      if (seen.pending.has(id) || seen.wanted?.has(String(rec.status))) changes.push(change);
      else if (FINAL_STATUSES.has(String(rec.status))) seen.watched.delete(id);
      else seen.watched.set(id, change);
    }
  }
  return changes;
}

function track(seen: Seen, row: Row): void {
  const id = Number(row.id);
  seen.ids.add(id);
  seen.watched.delete(id);
  if (FINAL_STATUSES.has(String(row.status))) seen.pending.delete(id);
  else seen.pending.set(id, row);
}

/** The next pause: back to the first after activity, else half as long again, up to MAX_PAUSE_MS (or the first, if longer). */
export function nextPause(pause: number, first: number, active: boolean): number {
  return active ? first : Math.min(Math.max(MAX_PAUSE_MS, first), Math.round(pause * 1.5));
}

/**
 * A failure the client's retries did not mend but that says nothing about the
 * key or the request (network, HTTP 5xx, code 30 or 999): following outlasts
 * it. Anything else (an auth failure: exit 4) ends the run as in any command.
 */
function outlasts(err: unknown): boolean {
  return (err instanceof TransportError && err.kind !== 'aborted') || (err instanceof ApiError && (err.code === 30 || err.code === 999));
}

/** Follows until Ctrl-C (exit 0: following is the point) or an error it does not outlast. */
async function follow(ctx: RunContext, opts: CliValues): Promise<number> {
  for (const [key, flag] of Object.entries(PAGING_FLAGS)) {
    if (opts[key] !== undefined) throw new UsageError(`--follow reads the newest messages itself; it cannot be combined with ${flag}`);
  }
  const first = pauseOf(opts);
  const criteria = inputFrom(messageList, [], opts, [], ctx.now());
  const query = { ...criteria, pageSize: 100, sort: NEWEST_FIRST };
  // --with-number-info adds columns; every other flag chooses messages.
  const filtered = Object.keys(criteria).some((key) => key !== 'status' && key !== 'withNumberInfo');
  // Several statuses (--status undelivered,rejected): a query each, every poll.
  const queries = severalInputs(messageList, query)?.inputs ?? [query];
  if (ctx.globals.dryRun) return (await dryRun(ctx, messageList, queries), EXIT.OK);
  const printer = await printerFor(ctx, query);
  const client = await ctx.client();
  // Each query checked before anything is sent: a bad value fails here, not after the first poll.
  for (const q of queries) client.prepare(messageList, q);
  const signal = ctx.io.signal;
  try {
    const seen = await startingPoint(client, query, filtered);
    if (ctx.io.stderr.isTTY) ctx.note('Following messages: new ones and their status changes (Ctrl-C to stop).');
    let pause = first;
    let failing = false;
    while (!signal?.aborted) {
      await sleep(pause, signal);
      if (signal?.aborted) break;
      let events: Row[];
      let reached: Set<number>;
      try {
        const changes = await statusChanges(client, seen);
        const fresh = (await newOfEach(client, queries, seen)).map((m) => ({ event: 'new', ...m }));
        events = [...changes, ...fresh];
        reached = new Set(changes.map((c) => Number(c.id)).filter((id) => seen.watched.has(id)));
      } catch (err) {
        if (signal?.aborted || !outlasts(err)) throw err;
        // Said once per outage; what was missed is printed when the service answers again.
        if (!failing) await ctx.warn(`${(err as Error).message}; still following, asking again every ${MAX_PAUSE_MS / 1000}s at most`);
        failing = true;
        pause = nextPause(pause, first, false);
        continue;
      }
      if (failing) ctx.note('The service answers again; still following.');
      failing = false;
      for (const event of events) track(seen, event);
      if (events.length) await printer.print(events, reached);
      pause = nextPause(pause, first, events.length > 0);
    }
  } catch (err) {
    // Ctrl-C, or the reader of our output gone (`| head -1`), while a request was in flight.
    if (!signal?.aborted) throw err;
  }
  return EXIT.OK;
}
