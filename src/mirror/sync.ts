// `smslink sync`: brings the mirror up to date with the service, page by page
// in windows of time no deeper than MAX_PAGES, each page stored as it comes
// (Ctrl-C keeps it); later runs add new messages, statuses not yet final, new
// and clicked links. A mirror that is not the account's any more is emptied
// and filled again. docs/mirror.md, "How sync works", says how.

import { Limiter } from '../bulk/limiter.js';
import { keyStats } from '../output/stats.js';
import type { LinkStatsResult } from '../catalog/types.js';
import { formatDateTime, wireTime } from '../catalog/rules.js';
import { idLimit } from '../catalog/validate.js';
import { linkStats } from '../catalog/link.js';
import { messageStatus } from '../catalog/message.js';
import { PartialError } from '../exit-codes.js';
import { count } from '../output/words.js';
import { sameMessage, type Mirror, type MessageItem, type SyncWindow } from './store.js';

/** The service as sync uses it (made by the CLI from its client). */
export interface MirrorService {
  listMessages(input: Record<string, unknown>): Promise<{ items: MessageItem[]; totalItemCount: number }>;
  messageStatuses(ids: number[]): Promise<MessageItem[]>;
  listLinks(input: Record<string, unknown>): Promise<{ items: MessageItem[]; totalItemCount: number }>;
  linkStats(input: Record<string, unknown>): Promise<LinkStatsResult>;
}

export interface SyncOptions {
  /** `YYYY-MM-DD HH:MM:SS`: the first sync fetches messages sent from then on. */
  since?: string;
  concurrency: number;
  /** Requests started per second at most; 0: no limit. */
  rate: number;
  signal?: AbortSignal;
  now: Date;
  /** Told of each step as it starts, and of its requests as they end (a progress bar). */
  onStep?: (step: SyncStep) => void;
  /** Told why, when the mirror is not the account's any more and is emptied to be filled again. */
  onRebuild?: (reason: string) => void | Promise<void>;
}

export interface SyncStep {
  name: string;
  /** Requests the step makes, when known (an estimate while the first sync finds its windows). */
  total: number;
  done: number;
  inFlight: number;
}

export interface SyncSummary {
  first: boolean;
  since: string | null;
  /** Messages the mirror did not hold before. */
  messagesFetched: number;
  /** Messages not yet final whose status was asked for (Message/GetSMSStatus). */
  statusesChecked: number;
  /** Of those, how many came back with another status than the mirror held. */
  statusesChanged: number;
  /** Of those, how many reached a final status (DELIVRD, UNDELIV, REJECTD, EXPIRED, DELETED). */
  becameFinal: number;
  /** Deprecated: statusesChecked under its old name, kept for scripts that read -o json/csv. */
  statusesRefreshed: number;
  links: number;
  linkStatsFetched: number;
}

export const PAGE_SIZE = 100;
/** No request of a first sync asks for a page past this many (pages 0 to 9): a window with more messages is split. */
export const MAX_PAGES = 10;
/** Messages a new window is cut to hold, assuming its parent's are spread evenly: room below MAX_PAGES for uneven ones. */
const WINDOW_TARGET = 700;
/** Before any message: the lower end of the windows of sent messages when --since is not given. */
const BEGINNING = '1970-01-01 00:00:00';
/** Messages wait at most this long to be sent (params[deferredToTs], service-api.md Limits). */
const DEFER_DAYS = 14;
/** Link/GetStats daily gives 90 days at most (service-api.md, Limits). */
const STATS_DAYS = 90;
/** Links are all listed again after this long (their comment, status or expiry may have been edited). */
const LINKS_RELIST_MS = 24 * 3600_000;

const idOf = (item: MessageItem) => Number(item.id);
const text = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));

/** The mirror holds another account than the service's (a reset, ids used again): why, in words. */
export class WorldChanged extends Error {}

function emptySummary(first: boolean): SyncSummary {
  return { first, since: null, messagesFetched: 0, statusesChecked: 0, statusesChanged: 0, becameFinal: 0, statusesRefreshed: 0, links: 0, linkStatsFetched: 0 };
}

/**
 * Runs tasks with at most `concurrency` in flight under the limiter's rate:
 * each worker takes the next task when its last one ends; a task may add
 * more (a window opened adds its pages). The first failure stops the taking;
 * the tasks in flight end, then it is thrown.
 */
async function runQueue(limiter: Limiter, concurrency: number, queue: Array<() => Promise<void>>, step: SyncStep, onStep?: (s: SyncStep) => void): Promise<void> {
  let failure: unknown;
  let active = 0;
  let waiting: Array<() => void> = [];
  const wake = () => {
    const sleepers = waiting;
    waiting = [];
    for (const w of sleepers) w();
  };
  const worker = async () => {
    while (failure === undefined) {
      const task = queue.shift();
      if (!task) {
        if (active === 0) return wake();
        // Another worker's task may add more.
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      active++;
      try {
        await limiter.run(async () => {
          step.inFlight++;
          try {
            await task();
          } finally {
            step.inFlight--;
          }
        });
        step.done++;
        onStep?.(step);
      } catch (err) {
        failure ??= err;
      } finally {
        active--;
        wake();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  if (failure !== undefined) throw failure;
}

/** Runs a fixed list of tasks (runQueue without additions). */
function runAll(limiter: Limiter, concurrency: number, tasks: Array<() => Promise<void>>, step: SyncStep, onStep?: (s: SyncStep) => void): Promise<void> {
  return runQueue(limiter, Math.min(concurrency, Math.max(1, tasks.length)), [...tasks], step, onStep);
}

export async function syncMirror(mirror: Mirror, service: MirrorService, opts: SyncOptions): Promise<SyncSummary> {
  const limiter = new Limiter(opts.concurrency, opts.rate, opts.signal);
  try {
    return await syncOnce(mirror, service, limiter, opts);
  } catch (err) {
    if (!(err instanceof WorldChanged)) throw err;
    await opts.onRebuild?.(err.message);
    mirror.empty();
  }
  try {
    return await syncOnce(mirror, service, limiter, opts);
  } catch (err) {
    if (!(err instanceof WorldChanged)) throw err;
    throw new PartialError(`sync: the account changed again while it was being mirrored (${err.message}); run \`smslink sync\` again`);
  }
}

type Page = { items: MessageItem[]; totalItemCount: number };

/** Why some of the account's messages are not those the mirror holds under their ids (undefined when they are). */
function otherMessage(mirror: Mirror, items: readonly MessageItem[]): string | undefined {
  const other = items.find((m) => {
    const held = mirror.heldMessage(idOf(m));
    return held !== undefined && !sameMessage(held, m);
  });
  return other && `message ${idOf(other)} is another message now`;
}

/**
 * Whether the account is still the one the mirror holds, from the newest page
 * of its messages: the service never loses a message, so fewer messages than
 * the mirror holds, a newest id below the mirror's, or another message under
 * an id the mirror holds mean another account (or the same one reset).
 */
function otherAccount(mirror: Mirror, head: Page): string | undefined {
  const held = mirror.one<{ n: number; top: number | null }>('SELECT count(*) AS n, max(id) AS top FROM messages');
  const total = Number(head.totalItemCount);
  if (total < held.n) return `the account has ${count(total, 'message')}, the mirror ${held.n}`;
  const newest = head.items.length ? idOf(head.items[0]) : 0;
  if (held.top !== null && newest < held.top) return `the account's newest message is ${newest}, the mirror's ${held.top}`;
  return otherMessage(mirror, head.items);
}

/** Stores a page of messages, those the mirror holds being the same ones (else the account is another); counts the new ones. */
function store(mirror: Mirror, summary: SyncSummary, items: readonly MessageItem[], windowPage?: { window: number; page: number }): void {
  const { added, other } = mirror.storeMessages(items, windowPage);
  if (other !== undefined) throw new WorldChanged(`message ${other} is another message now`);
  summary.messagesFetched += added;
}

/**
 * What a sync under way set out to do, kept in the mirror until it ends so
 * that a rerun goes on with it: the newest message id when it began (the
 * next sync's new messages not yet sent are those above it) and the send
 * time its windows of sent messages begin at.
 */
interface Plan {
  watermark: number;
  from: string;
}

async function syncOnce(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions): Promise<SyncSummary> {
  const begun = formatDateTime(opts.now);
  const first = mirror.get('first_done') !== '1';
  const summary = emptySummary(first);
  // A first sync under way keeps the bound it started with.
  const since = first ? (mirror.get('since') ?? opts.since ?? null) : (mirror.get('since') ?? null);
  if (first && since !== null) mirror.set('since', since);
  summary.since = since;
  // What the mirror holds is checked against the account before anything is stored.
  const head = await limiter.run(() => service.listMessages({ withNumberInfo: 1, pageSize: PAGE_SIZE, currentPage: 0, sort: { id: 'DESC' } }));
  const reason = otherAccount(mirror, head);
  if (reason !== undefined) throw new WorldChanged(reason);
  const held = mirror.get('plan');
  const plan: Plan = held !== undefined ? (JSON.parse(held) as Plan) : startPlan(mirror, head, opts, first ? (since ?? BEGINNING) : sentMark(mirror));
  // Statuses first: messages fetched after them come with theirs.
  if (!first) await refreshStatuses(mirror, service, limiter, opts, summary);
  const step: SyncStep = { name: first ? 'messages' : 'new messages', total: 0, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  if (first) await walkPart(mirror, service, limiter, opts, summary, 'unsent', step);
  else await newUnsent(mirror, service, limiter, opts, summary, step);
  await walkPart(mirror, service, limiter, opts, summary, 'sent', step);
  mirror.endPlan({
    watermark: plan.watermark,
    sent_mark: mirror.get('plan_sent_mark') ?? plan.from,
    first_done: '1',
    plan: null,
    plan_sent_mark: null,
    plan_unsent_span: null,
    plan_sent_span: null,
  });
  await syncLinks(mirror, service, limiter, opts, summary, first);
  mirror.set('last_sync', begun);
  return summary;
}

/**
 * The send time the last sync had every message up to (its windows walked
 * after it was read): sent messages new since then are sent from then on. A
 * mirror of an older release has the latest send time it holds.
 */
function sentMark(mirror: Mirror): string {
  return mirror.get('sent_mark') ?? mirror.one<{ last: string | null }>('SELECT max(start_send_ts) AS last FROM messages').last ?? BEGINNING;
}

/** Writes a plan and the windows it starts with (one of sent messages from `from` on; on a first sync, one of those not yet sent). */
function startPlan(mirror: Mirror, head: Page, opts: SyncOptions, from: string): Plan {
  const plan: Plan = { watermark: head.items.length ? idOf(head.items[0]) : 0, from };
  const first = mirror.get('first_done') !== '1';
  // Messages not yet sent were made in the last DEFER_DAYS (or wait for moderation): their windows are cut there.
  const anchor = seconds(wireTime(head.items[0]?.startSendTs) ?? formatDateTime(opts.now));
  mirror.beginPlan(first ? [{ part: 'unsent', from: null, to: null }, { part: 'sent', from, to: null }] : [{ part: 'sent', from, to: null }], {
    plan: JSON.stringify(plan),
    plan_unsent_span: first ? JSON.stringify({ lo: anchor - DEFER_DAYS * 86_400, hi: anchor }) : null,
  });
  return plan;
}

// ---- windows ----------------------------------------------------------------

/** A window's part of the messages, and the criteria that bound it in time. */
const PARTS = {
  /** Not yet sent (awaiting moderation or deferred): they have no send time; bounded by their campaign's creation. */
  unsent: (w: SyncWindow) => ({
    campaignStatus: 'NOT_YET_SENT',
    ...(w.from !== null ? { campaignCreateTsFrom: w.from } : {}),
    ...(w.to !== null ? { campaignCreateTsTo: w.to } : {}),
  }),
  /** Sent: bounded by their send time. */
  sent: (w: SyncWindow) => ({ ...(w.from !== null ? { startSendTsFrom: w.from } : {}), ...(w.to !== null ? { startSendTsTo: w.to } : {}) }),
};
type Part = keyof typeof PARTS;

/** Seconds of a wire time, read as if UTC (only differences and order matter); NaN when it is none. */
const seconds = (wire: unknown): number => {
  const w = wireTime(wire);
  return w === undefined ? NaN : Date.parse(`${w.replace(' ', 'T')}Z`) / 1000;
};
const wireOf = (s: number): string => new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');

/** The times (seconds) between which a part's messages were found: windows are cut inside them. */
interface Span {
  lo: number;
  hi: number;
}

/**
 * Cuts a window of `count` messages into windows of about WINDOW_TARGET each,
 * as if they were spread evenly over the part of it inside `span`; its open
 * ends stay open on its first and last pieces. Null when it cannot be cut
 * (one second, or nothing of it inside the span): it is then paged whole.
 * The pieces meet without a gap: each ends one second before the next begins
 * (the criteria's "to" includes its second).
 */
export function cut(w: { from: string | null; to: string | null }, count: number, span: Span): Array<{ from: string | null; to: string | null; expected: number }> | null {
  const lo = Math.max(w.from === null ? span.lo : seconds(w.from), span.lo);
  const hi = Math.min(w.to === null ? span.hi : seconds(w.to), span.hi);
  if (!(hi > lo)) return null;
  const pieces = Math.min(hi - lo + 1, Math.max(2, Math.ceil(count / WINDOW_TARGET)));
  const starts = Array.from({ length: pieces - 1 }, (_, i) => lo + Math.round(((i + 1) * (hi - lo + 1)) / pieces));
  const expected = Math.ceil(count / pieces);
  return [w.from, ...starts.map(wireOf)].map((from, i) => ({ from, to: i < starts.length ? wireOf(starts[i] - 1) : w.to, expected }));
}

/** The span of the sent messages from `from` on: the first send time (a small request) to the last, asked for once. */
async function sentSpan(mirror: Mirror, service: MirrorService, from: string): Promise<Span | null> {
  const held = mirror.get('plan_sent_span');
  if (held !== undefined) return JSON.parse(held) as Span;
  const earliest = await service.listMessages({ pageSize: 25, currentPage: 0, startSendTsFrom: from, sort: { startSendTs: 'ASC' } });
  const span = { lo: seconds(earliest.items[0]?.startSendTs), hi: seconds(mirror.get('plan_sent_mark')) };
  if (!Number.isFinite(span.lo) || !Number.isFinite(span.hi)) return null;
  mirror.set('plan_sent_span', JSON.stringify(span));
  return span;
}

/**
 * Walks the windows of one part not yet done. A window's page 0 says how many
 * messages it holds: more than MAX_PAGES pages and it is cut into windows
 * (stored in place of it, each opened in turn); else its other pages follow,
 * in id order, each stored with its number so a rerun asks only for those it
 * lacks. The first window of sent messages is first read latest first: its
 * first message's send time is the mark the next sync begins at, and when it
 * holds a page or less, that page is all of it.
 */
async function walkPart(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary, part: Part, step: SyncStep): Promise<void> {
  const queue: Array<() => Promise<void>> = [];
  /** Pages beyond page 0 expected of the windows not yet opened, for the progress bar. */
  let unopened = 0;
  const estimate = () => {
    step.total = step.done + step.inFlight + queue.length + unopened;
    opts.onStep?.(step);
  };
  const list = (w: SyncWindow, page: number, sort: Record<string, string> = { id: 'ASC' }) =>
    service.listMessages({ withNumberInfo: 1, pageSize: PAGE_SIZE, currentPage: page, sort, ...PARTS[part](w) });
  let spanAsked: Promise<Span | null> | undefined;
  const expectedPages = (w: SyncWindow) => Math.max(0, Math.ceil((w.expected ?? PAGE_SIZE) / PAGE_SIZE) - 1);
  const enqueue = (w: SyncWindow) => {
    unopened += expectedPages(w);
    queue.push(() => open(w));
  };
  const pageTask = (w: SyncWindow, p: number, last: () => boolean) => async () => {
    store(mirror, summary, (await list(w, p)).items, { window: w.id, page: p });
    if (last()) mirror.windowDone(w.id);
  };
  const open = async (w: SyncWindow) => {
    unopened -= expectedPages(w);
    const stored = mirror.windowPages(w.id);
    const marking = part === 'sent' && mirror.get('plan_sent_mark') === undefined;
    const first = await list(w, 0, marking ? { startSendTs: 'DESC' } : undefined);
    const count = Number(first.totalItemCount);
    const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    if (marking) mirror.set('plan_sent_mark', wireTime(first.items[0]?.startSendTs) ?? w.from);
    if (pages > MAX_PAGES) {
      const unsent = mirror.get('plan_unsent_span');
      spanAsked ??= part === 'unsent' ? Promise.resolve(unsent === undefined ? null : (JSON.parse(unsent) as Span)) : sentSpan(mirror, service, w.from ?? BEGINNING);
      const pieces = cut(w, count, (await spanAsked) ?? { lo: NaN, hi: NaN });
      if (pieces) {
        for (const piece of mirror.addWindows(part, pieces, w.id)) enqueue(piece);
        return estimate();
      }
      // One second with more than MAX_PAGES pages of messages: there is no finer time to cut it by.
    }
    if (marking && pages > 1) {
      // The page read latest first is no page of the id order: every page follows.
      let remaining = pages;
      for (let p = 0; p < pages; p++) queue.push(pageTask(w, p, () => --remaining === 0));
      return estimate();
    }
    store(mirror, summary, first.items, { window: w.id, page: 0 });
    const left = Array.from({ length: pages - 1 }, (_, i) => i + 1).filter((p) => !stored.has(p));
    let remaining = left.length;
    if (remaining === 0) return mirror.windowDone(w.id);
    for (const p of left) queue.push(pageTask(w, p, () => --remaining === 0));
    estimate();
  };
  for (const w of mirror.windows(part)) enqueue(w);
  estimate();
  await runQueue(limiter, opts.concurrency, queue, step, () => estimate());
}

/**
 * Messages not yet sent that are new (above the watermark), newest first,
 * until a page reaches it. Those that are not new are the mirror's already
 * (or, sent by now, among the sent windows).
 */
async function newUnsent(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary, step: SyncStep): Promise<void> {
  const watermark = Number(mirror.get('watermark') ?? 0);
  for (let page = 0; ; page++) {
    step.inFlight = 1;
    step.total = Math.max(step.total, step.done + 1);
    const result = await limiter.run(() => service.listMessages({ withNumberInfo: 1, pageSize: PAGE_SIZE, currentPage: page, sort: { id: 'DESC' }, campaignStatus: 'NOT_YET_SENT' }));
    step.inFlight = 0;
    step.done++;
    opts.onStep?.(step);
    store(mirror, summary, result.items);
    if (result.items.length < PAGE_SIZE || result.items.some((m) => idOf(m) <= watermark)) break;
  }
}

/**
 * A step that sends `ids` `size` at a time (GetSMSStatus 100, GetStats 5),
 * under the limiter, as one more step of the progress bar.
 */
async function inChunks(limiter: Limiter, opts: SyncOptions, name: string, ids: readonly number[], size: number, fn: (chunk: number[]) => Promise<void>): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(ids.length / size) }, (_, i) => ids.slice(i * size, (i + 1) * size));
  const step: SyncStep = { name, total: chunks.length, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  await runAll(limiter, opts.concurrency, chunks.map((chunk) => () => fn(chunk)), step, opts.onStep);
}

/** Statuses of the messages not yet final, 100 ids a request (Message/GetSMSStatus). One the service no longer has means another account. */
async function refreshStatuses(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary): Promise<void> {
  const ids = mirror.all<{ id: number }>('SELECT id FROM messages WHERE final = 0 ORDER BY id').map((r) => r.id);
  await inChunks(limiter, opts, 'statuses', ids, idLimit(messageStatus), async (chunk) => {
    // Counted only once the answer is in: `summary.x += await ...` would read
    // the sum before the wait, and chunks in flight together would overwrite
    // each other's counts.
    const records = await service.messageStatuses(chunk);
    const answered = new Set(records.map(idOf));
    const gone = chunk.find((id) => !answered.has(id));
    if (gone !== undefined) throw new WorldChanged(`message ${gone} is not the account's any more`);
    const { changed, becameFinal } = mirror.storeStatuses(records);
    summary.statusesChecked += chunk.length;
    summary.statusesChanged += changed;
    summary.becameFinal += becameFinal;
  });
  summary.statusesRefreshed = summary.statusesChecked;
}

// ---- links ------------------------------------------------------------------

/**
 * Links: all of them on a first sync, once a day, and when links were
 * deleted; otherwise only what can have changed (docs/mirror.md, "How sync
 * works"): the newest links down to one the mirror holds, then the clicked
 * links, most clicked first, down to the first with no click. Then clicks per
 * day of those whose click count moved since they were last fetched.
 */
async function syncLinks(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary, first: boolean): Promise<void> {
  const listedAt = mirror.get('links_listed') ?? mirror.get('last_sync');
  const fresh = !first && listedAt !== undefined && opts.now.getTime() - Date.parse(listedAt.replace(' ', 'T')) < LINKS_RELIST_MS;
  if (!fresh || !(await linkChanges(mirror, service, limiter, opts))) await listAllLinks(mirror, service, limiter, opts);
  summary.links = mirror.one<{ n: number }>('SELECT count(*) AS n FROM links').n;

  const moved = mirror.all<{ id: number }>('SELECT id FROM links WHERE click_cnt > 0 AND stats_click_cnt IS NOT click_cnt ORDER BY id').map((r) => r.id);
  const from = new Date(opts.now.getTime());
  from.setDate(from.getDate() - (STATS_DAYS - 1));
  const dateFrom = `${formatDateTime(from).slice(0, 10)} 00:00:00`;
  await inChunks(limiter, opts, 'link clicks', moved, idLimit(linkStats), async (chunk) => {
    const keyed = keyStats(chunk, await service.linkStats({ ids: chunk, type: 'daily', dateFrom, dateTo: formatDateTime(opts.now) }));
    const rows = keyed.rows.flatMap((row) =>
      chunk.map((id) => ({ linkId: id, day: String(row.period).slice(0, 10), clicks: Number(row[`clicks_${id}`] ?? 0), redirects: Number(row[`redirects_${id}`] ?? 0) })),
    );
    mirror.storeLinkClicks(rows, chunk);
    summary.linkStatsFetched += chunk.length;
  });
}

/** Every link (its click count); links the service no longer lists leave the mirror. */
async function listAllLinks(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions): Promise<void> {
  const step: SyncStep = { name: 'links', total: 0, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  const ids: number[] = [];
  const fetchPage = async (page: number) => {
    const result = await service.listLinks({ pageSize: PAGE_SIZE, currentPage: page, sort: { createTs: 'ASC' } });
    mirror.storeLinks(result.items);
    for (const l of result.items) ids.push(idOf(l));
    return result;
  };
  const head = await limiter.run(() => fetchPage(0));
  const pages = Math.max(1, Math.ceil(Number(head.totalItemCount) / PAGE_SIZE));
  step.total = pages;
  step.done = 1;
  await runAll(limiter, opts.concurrency, Array.from({ length: pages - 1 }, (_, i) => () => fetchPage(i + 1).then(() => undefined)), step, opts.onStep);
  mirror.dropLinksExcept(ids);
  mirror.set('links_listed', formatDateTime(opts.now));
}

/**
 * What can have changed since the links were listed: new links (the newest,
 * down to one the mirror holds) and click counts (the clicked links, most
 * clicked first). False when links were deleted too: they are all listed
 * then. Another link under an id the mirror holds means another account.
 */
async function linkChanges(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions): Promise<boolean> {
  const step: SyncStep = { name: 'links', total: 1, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  const page = async (n: number, sort: Record<string, string>) => {
    step.inFlight = 1;
    const result = await limiter.run(() => service.listLinks({ pageSize: PAGE_SIZE, currentPage: n, sort }));
    step.inFlight = 0;
    step.done++;
    step.total = Math.max(step.total, step.done + 1);
    opts.onStep?.(step);
    return result;
  };
  let total = 0;
  for (let n = 0; ; n++) {
    const result = await page(n, { createTs: 'DESC' });
    if (n === 0) total = Number(result.totalItemCount);
    let held = 0;
    for (const l of result.items) {
      const link = mirror.heldLink(idOf(l));
      if (!link) continue;
      held++;
      if (link.code !== text(l.code) || link.createTs !== text(l.createTs)) throw new WorldChanged(`link ${idOf(l)} is another link now`);
    }
    mirror.storeLinks(result.items);
    if (held > 0 || result.items.length < PAGE_SIZE) break;
  }
  // Every link the mirror holds is still listed only if the counts agree: new ones are all in by now.
  if (total !== mirror.one<{ n: number }>('SELECT count(*) AS n FROM links').n) return false;
  // A link's count moves only up, and its first click brings it among the clicked: those are all there is to read.
  for (let n = 0; ; n++) {
    const result = await page(n, { clickCnt: 'DESC' });
    mirror.storeLinks(result.items);
    if (result.items.length < PAGE_SIZE || result.items.some((l) => !(Number(l.clickCnt) > 0))) break;
  }
  return true;
}
