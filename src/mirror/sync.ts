// `smslink sync`: brings the mirror up to date with the service. The first
// run pages through every message in id order (pages are stable, so a rerun
// after Ctrl-C fetches only the pages it lacks); later runs fetch messages
// newest first down to the last id a finished run had, refresh the statuses
// of messages not yet final (100 ids a request), and list the links, then
// fetch clicks per day of those whose click count moved (5 ids a request).
// Every page is stored in one transaction as it arrives: what was fetched
// before an interruption is kept.

import { Limiter } from '../bulk/limiter.js';
import { keyStats } from '../output/stats.js';
import type { LinkStatsResult } from '../catalog/types.js';
import { formatDateTime } from '../catalog/rules.js';
import { idLimit } from '../catalog/validate.js';
import { linkStats } from '../catalog/link.js';
import { messageStatus } from '../catalog/message.js';
import type { Mirror, MessageItem } from './store.js';

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
}

export interface SyncStep {
  name: string;
  /** Requests the step makes, when known. */
  total: number;
  done: number;
  inFlight: number;
}

export interface SyncSummary {
  first: boolean;
  since: string | null;
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
/** Link/GetStats daily gives 90 days at most (service-api.md, Limits). */
const STATS_DAYS = 90;

const idOf = (item: MessageItem) => Number(item.id);

/**
 * Runs `tasks` with at most `concurrency` in flight under the limiter's rate:
 * each worker takes the next task when its last one ends. The first failure
 * stops the taking; the tasks in flight end, then it is thrown.
 */
async function runAll(limiter: Limiter, concurrency: number, tasks: Array<() => Promise<void>>, step: SyncStep, onStep?: (s: SyncStep) => void): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < tasks.length) {
      const task = tasks[next++];
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
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  if (failure !== undefined) throw failure;
}

export async function syncMirror(mirror: Mirror, service: MirrorService, opts: SyncOptions): Promise<SyncSummary> {
  const limiter = new Limiter(opts.concurrency, opts.rate, opts.signal);
  const first = mirror.get('first_done') !== '1';
  const summary: SyncSummary = { first, since: null, messagesFetched: 0, statusesChecked: 0, statusesChanged: 0, becameFinal: 0, statusesRefreshed: 0, links: 0, linkStatsFetched: 0 };
  const begun = formatDateTime(opts.now);
  if (first) await firstSync(mirror, service, limiter, opts, summary);
  else {
    summary.since = mirror.get('since') ?? null;
    await newMessages(mirror, service, limiter, opts, summary);
    await refreshStatuses(mirror, service, limiter, opts, summary);
  }
  await syncLinks(mirror, service, limiter, opts, summary);
  mirror.set('last_sync', begun);
  return summary;
}

async function firstSync(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary): Promise<void> {
  // A first sync under way keeps the bound it started with.
  const since = mirror.get('since') ?? opts.since ?? null;
  if (since !== null) mirror.set('since', since);
  summary.since = since;
  const criteria = { withNumberInfo: 1, pageSize: PAGE_SIZE, sort: { id: 'ASC' }, ...(since ? { startSendTsFrom: since } : {}) };
  const done = new Set(mirror.all<{ page: number }>('SELECT page FROM first_pages').map((r) => r.page));
  const fetchPage = async (page: number) => {
    const result = await service.listMessages({ ...criteria, currentPage: page });
    mirror.storeMessages(result.items, page);
    summary.messagesFetched += result.items.length;
    return result;
  };
  const step: SyncStep = { name: 'messages', total: 0, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  // Page 0 says how many pages there are; it is fetched again on a rerun, for the count.
  const head = await limiter.run(() => fetchPage(0));
  const pages = Math.max(1, Math.ceil(Number(head.totalItemCount) / PAGE_SIZE));
  step.total = pages;
  step.done = 1 + [...done].filter((p) => p > 0 && p < pages).length;
  opts.onStep?.(step);
  const left = Array.from({ length: pages - 1 }, (_, i) => i + 1).filter((p) => !done.has(p));
  await runAll(limiter, opts.concurrency, left.map((p) => () => fetchPage(p).then(() => undefined)), step, opts.onStep);
  // Messages that arrived meanwhile are past the last page: the next sync fetches them as new ones.
  const top = mirror.one<{ id: number | null }>('SELECT max(id) AS id FROM messages').id;
  mirror.db.transaction(() => {
    mirror.set('watermark', top ?? 0);
    mirror.set('first_done', '1');
    mirror.db.prepare('DELETE FROM first_pages').run();
  }).immediate();
}

/** Messages newer than the watermark, newest first, until a page reaches it; the watermark moves only when they are all in. */
async function newMessages(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary): Promise<void> {
  const watermark = Number(mirror.get('watermark') ?? 0);
  const step: SyncStep = { name: 'new messages', total: 0, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  let top = watermark;
  for (let page = 0; ; page++) {
    step.inFlight = 1;
    const result = await limiter.run(() => service.listMessages({ withNumberInfo: 1, pageSize: PAGE_SIZE, currentPage: page, sort: { id: 'DESC' } }));
    step.inFlight = 0;
    const fresh = result.items.filter((m) => idOf(m) > watermark);
    mirror.storeMessages(fresh);
    summary.messagesFetched += fresh.length;
    if (page === 0 && result.items.length) top = Math.max(watermark, idOf(result.items[0]));
    step.done++;
    step.total = Math.max(step.done, Math.ceil(Math.min(Number(result.totalItemCount), top - watermark) / PAGE_SIZE));
    opts.onStep?.(step);
    if (fresh.length < result.items.length || result.items.length < PAGE_SIZE) break;
  }
  mirror.set('watermark', top);
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

/** Statuses of the messages not yet final, 100 ids a request (Message/GetSMSStatus). */
async function refreshStatuses(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary): Promise<void> {
  const ids = mirror.all<{ id: number }>('SELECT id FROM messages WHERE final = 0 ORDER BY id').map((r) => r.id);
  await inChunks(limiter, opts, 'statuses', ids, idLimit(messageStatus), async (chunk) => {
    // Counted only once the answer is in: `summary.x += await ...` would read
    // the sum before the wait, and chunks in flight together would overwrite
    // each other's counts.
    const records = await service.messageStatuses(chunk);
    const { changed, becameFinal } = mirror.storeStatuses(records);
    summary.statusesChecked += chunk.length;
    summary.statusesChanged += changed;
    summary.becameFinal += becameFinal;
  });
  summary.statusesRefreshed = summary.statusesChecked;
}

/** Every link (its click count), then clicks per day of those whose count moved since they were last fetched. */
async function syncLinks(mirror: Mirror, service: MirrorService, limiter: Limiter, opts: SyncOptions, summary: SyncSummary): Promise<void> {
  const step: SyncStep = { name: 'links', total: 0, done: 0, inFlight: 0 };
  opts.onStep?.(step);
  const ids: number[] = [];
  const fetchPage = async (page: number) => {
    const result = await service.listLinks({ pageSize: PAGE_SIZE, currentPage: page, sort: { createTs: 'ASC' } });
    mirror.storeLinks(result.items);
    ids.push(...result.items.map(idOf));
    return result;
  };
  const head = await limiter.run(() => fetchPage(0));
  const pages = Math.max(1, Math.ceil(Number(head.totalItemCount) / PAGE_SIZE));
  step.total = pages;
  step.done = 1;
  await runAll(limiter, opts.concurrency, Array.from({ length: pages - 1 }, (_, i) => () => fetchPage(i + 1).then(() => undefined)), step, opts.onStep);
  mirror.dropLinksExcept(ids);
  summary.links = ids.length;

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
