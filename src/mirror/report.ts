// Reports read from the mirror alone, never from the service: delivery per
// day, sender, country or operator, and the most clicked links. Times are
// the service's wire times (`YYYY-MM-DD HH:MM:SS`), compared as text.

import type { SqlValue } from '../emulator/store/connection.js';
import type { Mirror } from './store.js';

export const GROUPINGS = ['day', 'sender', 'country', 'operator'] as const;
export type Grouping = (typeof GROUPINGS)[number];

/** The final statuses a report counts, each under its own field. */
export const FINAL_COUNTS = { DELIVRD: 'delivered', UNDELIV: 'undelivered', REJECTD: 'rejected', EXPIRED: 'expired', DELETED: 'deleted' } as const;

export interface DeliveryRow {
  group: string;
  messages: number;
  segments: number;
  delivered: number;
  undelivered: number;
  rejected: number;
  expired: number;
  deleted: number;
  pending: number;
  /** delivered ÷ messages with a final status; null when none is final. */
  deliveryRate: number | null;
  /** Seconds from send to final status (nearest rank: the value at rank ⌈p·n⌉ of n in order). */
  medianSeconds: number | null;
  p90Seconds: number | null;
  /** Σ segUserBuy × segNum, in the account's currency. */
  cost: number;
}

export interface Period {
  since?: string;
  until?: string;
}

const GROUP_SQL: Record<Grouping, string> = {
  day: 'substr(start_send_ts, 1, 10)',
  sender: 'sender',
  country: 'country',
  operator: 'operator',
};

/** Messages sent in the period (by start_send_ts): the WHERE and its values. */
function inPeriod(period: Period): { sql: string; params: string[] } {
  const where = ['start_send_ts IS NOT NULL'];
  const params: string[] = [];
  if (period.since) {
    where.push('start_send_ts >= ?');
    params.push(period.since);
  }
  if (period.until) {
    where.push('start_send_ts <= ?');
    params.push(period.until);
  }
  return { sql: where.join(' AND '), params };
}

/** The rank (from 1) of the nearest-rank percentile p of n values: ⌈p·n⌉, at least 1. */
export function rankOf(n: number, p: number): number {
  return Math.max(1, Math.ceil(p * n));
}

/** The value at rank ⌈p·n⌉ of sorted values (nearest-rank percentile). */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  return sorted.length === 0 ? null : sorted[rankOf(sorted.length, p) - 1];
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

/** Seconds from send to final status. */
const DURATION = 'unixepoch(status_update_ts) - unixepoch(start_send_ts)';

/** A statement's rows one at a time (libsql reads them 100 at a time), as arrays. */
type Rows = { iterate(...params: SqlValue[]): Iterable<unknown[]> };

export function deliveryReport(mirror: Mirror, by: Grouping, period: Period): DeliveryRow[] {
  const { sql, params } = inPeriod(period);
  const group = GROUP_SQL[by];
  const counts = Object.entries(FINAL_COUNTS)
    .map(([status, field]) => `sum(status = '${status}') AS ${field}`)
    .join(', ');
  const timed = `final = 1 AND status_update_ts IS NOT NULL AND ${DURATION} IS NOT NULL`;
  const rows = mirror.all<Record<string, number | string | null>>(
    `SELECT ${group} AS g, count(*) AS messages, sum(seg_num) AS segments, ${counts}, sum(final = 0) AS pending, sum(seg_user_buy * seg_num) AS cost,
       sum(${timed}) AS timed
     FROM messages WHERE ${sql} GROUP BY g`,
    ...params,
  );
  // The median and p90 of each group's durations, found by counting through how many final messages took
  // each duration, shortest first: SQLite sorts (spilling to disk when it must); nothing per message is held here.
  const ranks = new Map(rows.map((r) => [r.g, { median: rankOf(Number(r.timed ?? 0), 0.5), p90: rankOf(Number(r.timed ?? 0), 0.9), seen: 0 }]));
  const percentiles = new Map<string | number | null, { median: number | null; p90: number | null }>();
  const stmt = mirror.db.prepare(`SELECT ${group} AS g, ${DURATION} AS d, count(*) AS n FROM messages WHERE ${sql} AND ${timed} GROUP BY g, d ORDER BY g, d`);
  for (const [g, d, n] of (stmt.raw(true) as unknown as Rows).iterate(...params) as Iterable<[string | null, number, number]>) {
    const rank = ranks.get(g);
    if (!rank) continue;
    const found = percentiles.get(g) ?? { median: null, p90: null };
    rank.seen += n;
    if (found.median === null && rank.seen >= rank.median) found.median = d;
    if (found.p90 === null && rank.seen >= rank.p90) found.p90 = d;
    percentiles.set(g, found);
  }
  const out = rows.map((r): DeliveryRow => {
    const key = r.g as string | null;
    const n = (field: string) => Number(r[field] ?? 0);
    const final = Object.values(FINAL_COUNTS).reduce((s, f) => s + n(f), 0);
    const found = percentiles.get(key);
    return {
      group: key ?? 'unknown',
      messages: n('messages'),
      segments: n('segments'),
      delivered: n('delivered'),
      undelivered: n('undelivered'),
      rejected: n('rejected'),
      expired: n('expired'),
      deleted: n('deleted'),
      pending: n('pending'),
      deliveryRate: final === 0 ? null : round(n('delivered') / final, 6),
      medianSeconds: found?.median ?? null,
      p90Seconds: found?.p90 ?? null,
      cost: round(n('cost'), 6),
    };
  });
  return by === 'day' ? out.sort((a, b) => a.group.localeCompare(b.group)) : out.sort((a, b) => b.messages - a.messages || a.group.localeCompare(b.group));
}

export interface LinkReportRow {
  id: number;
  shortLink: string | null;
  clicks: number;
  redirects: number;
  /** Days of the period with at least one click. */
  activeDays: number;
  /** Clicks ÷ days of the period. */
  clicksPerDay: number;
  busiestDay: string | null;
  fullLink: string;
  comment: string | null;
  /** Clicks per day, for scripts. */
  daily: Record<string, number>;
}

/** The most clicked links in the days from `sinceDay` to `untilDay` (YYYY-MM-DD), from the clicks per day sync fetched. */
export function linksReport(mirror: Mirror, sinceDay: string, untilDay: string, top: number): LinkReportRow[] {
  const days = Math.max(1, Math.round((Date.parse(`${untilDay}T00:00:00Z`) - Date.parse(`${sinceDay}T00:00:00Z`)) / 86_400_000) + 1);
  const rows = mirror.all<{ id: number; short_link: string | null; full_link: string; comment: string | null; clicks: number; redirects: number; active: number }>(
    `SELECT l.id, l.short_link, l.full_link, l.comment, sum(c.clicks) AS clicks, sum(c.redirects) AS redirects, count(*) AS active
     FROM link_clicks AS c JOIN links AS l ON l.id = c.link_id
     WHERE c.day >= ? AND c.day <= ? GROUP BY l.id HAVING sum(c.clicks) > 0 ORDER BY clicks DESC, l.id LIMIT ?`,
    sinceDay,
    untilDay,
    top,
  );
  const daily = mirror.db.prepare('SELECT day, clicks FROM link_clicks WHERE link_id = ? AND day >= ? AND day <= ? ORDER BY day');
  return rows.map((r) => {
    const perDay = Object.fromEntries((daily.all(r.id, sinceDay, untilDay) as Array<{ day: string; clicks: number }>).map((d) => [d.day, d.clicks]));
    const busiest = Object.entries(perDay).reduce<[string, number] | null>((best, e) => (best === null || e[1] > best[1] ? e : best), null);
    return {
      id: r.id,
      shortLink: r.short_link,
      clicks: r.clicks,
      redirects: r.redirects,
      activeDays: r.active,
      clicksPerDay: round(r.clicks / days, 2),
      busiestDay: busiest?.[0] ?? null,
      fullLink: r.full_link,
      comment: r.comment,
      daily: perDay,
    };
  });
}

export interface MirrorStatus {
  path: string;
  messages: number;
  pending: number;
  firstSent: string | null;
  lastSent: string | null;
  links: number;
  linksWithClicks: number;
  firstSyncDone: boolean;
  since: string | null;
  lastSync: string | null;
}

export function mirrorStatus(mirror: Mirror): MirrorStatus {
  const m = mirror.one<{ n: number; pending: number | null; first: string | null; last: string | null }>(
    'SELECT count(*) AS n, sum(final = 0) AS pending, min(start_send_ts) AS first, max(start_send_ts) AS last FROM messages',
  );
  const l = mirror.one<{ n: number; clicked: number | null }>('SELECT count(*) AS n, sum(click_cnt > 0) AS clicked FROM links');
  return {
    path: mirror.path,
    messages: m.n,
    pending: m.pending ?? 0,
    firstSent: m.first,
    lastSent: m.last,
    links: l.n,
    linksWithClicks: l.clicked ?? 0,
    firstSyncDone: mirror.get('first_done') === '1',
    since: mirror.get('since') ?? null,
    lastSync: mirror.get('last_sync') ?? null,
  };
}
