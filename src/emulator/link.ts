// Handlers of module Link, one per catalog operation (handler name = catalog id).

import { parseDate, parseDateTime } from '../catalog/rules.js';
import { fail, ok, RawJson, type Handler, type Settings } from './handler.js';
import { withNewCode } from './short-codes.js';
import { periodIndex, periods, statsInterval, type StatsType } from './stats.js';
import type { LinkRow, ListQuery } from './store.js';
import { DAY_MS, wallOf } from './time.js';

export const NOT_FOUND = 'link not found';
export const BLOCKED_COMMENT = 'Blocked by moderation: the link matches a blocked pattern';

export function shortLinkOf(s: Settings, code: string): string {
  return `${s.shortBase}/${code}`;
}

/** A link as the live service sends it: numbers as strings, plus the live extras redirectCnt and updateTs. */
export function linkJson(s: Settings, r: LinkRow): Record<string, unknown> {
  return {
    id: String(r.id),
    code: r.code,
    shortLink: shortLinkOf(s, r.code),
    fullLink: r.full_link,
    status: String(r.status),
    moderatorStatus: String(r.moderator_status),
    clickCnt: String(r.click_cnt),
    redirectCnt: String(r.redirect_cnt),
    createTs: s.tz.format(r.create_ts),
    updateTs: s.tz.format(r.update_ts),
    expirationDate: r.expiration_date,
    comment: r.comment,
    moderatorComment: r.moderator_comment,
  };
}

/** The link is valid until the end of its expiration day in the account zone. */
export function expiryInstant(s: Settings, date: string | null): number | null {
  if (date === null) return null;
  return s.tz.fromWall(wallOf(parseDate(date)!) + DAY_MS);
}

export interface CreateLink {
  fullLink: string;
  status: number;
  expirationDate: string | null;
  comment: string | null;
  campaignId: number | null;
}

/** Creates a link with a fresh code; used by Link/Create and by link shortening in a send. */
export function createLink(s: Settings, accountId: number, now: number, l: CreateLink): { id: number; code: string } {
  const blocked = s.blockPattern !== null && s.blockPattern.test(l.fullLink);
  return withNewCode((code) => {
    const id = s.store.insertLink({
      accountId,
      code,
      fullLink: l.fullLink,
      status: l.status,
      moderatorStatus: blocked ? 0 : 1,
      moderatorComment: blocked ? BLOCKED_COMMENT : null,
      comment: l.comment,
      expirationDate: l.expirationDate,
      expiresTs: expiryInstant(s, l.expirationDate),
      campaignId: l.campaignId,
      now,
    });
    return id === null ? null : { id, code };
  });
}

const create: Handler = ({ settings: s, accountId, now, values: v }) => {
  const { id, code } = createLink(s, accountId, now, {
    fullLink: v.fullLink as string,
    status: (v.status as number | undefined) ?? 1,
    expirationDate: (v.expirationDate as string | undefined) ?? null,
    comment: (v.comment as string | undefined) ?? null,
    campaignId: null,
  });
  return ok({ id: String(id), code, shortLink: shortLinkOf(s, code) });
};

/** The code a short link ends with: its last path segment. */
export function codeOfShortLink(shortLink: string): string {
  const bare = shortLink.trim().replace(/[?#].*$/, '').replace(/\/+$/, '');
  return bare.slice(bare.lastIndexOf('/') + 1);
}

/** Serialised links by row; rows stay the same objects while the store's read cache keeps them. */
const serialised = new WeakMap<LinkRow, RawJson>();

const get: Handler = ({ settings: s, accountId, values: v }) => {
  let row: LinkRow | undefined;
  if (v.id !== undefined) row = s.store.linkById(accountId, v.id as number);
  else {
    const code = v.code !== undefined ? (v.code as string) : codeOfShortLink(v.shortLink as string);
    if (code !== '') row = s.store.linkByCode(accountId, code);
  }
  if (!row) return fail(2, NOT_FOUND);
  let json = serialised.get(row);
  if (!json) {
    json = new RawJson(JSON.stringify(linkJson(s, row)));
    serialised.set(row, json);
  }
  return ok(json);
};

const LINK_SORT_COLUMNS: Record<string, string> = {
  createTs: 'create_ts',
  expirationDate: 'expiration_date',
  clickCnt: 'click_cnt',
  code: 'code',
  fullLink: 'full_link',
};

export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * ORDER BY from a validated sort map; fields come from the catalog's list,
 * columns from a fixed table. Ties go by id in the direction of the last
 * field, so one (account_id, column) index serves the whole order.
 */
export function orderBy(sort: Record<string, 'ASC' | 'DESC'> | undefined, columns: Record<string, string>, fallback: string): string {
  const parts = Object.entries(sort ?? {}).map(([field, dir]) => `${columns[field]} ${dir === 'DESC' ? 'DESC' : 'ASC'}`);
  if (parts.length === 0) return fallback;
  return `${parts.join(', ')}, id ${parts.at(-1)!.endsWith('DESC') ? 'DESC' : 'ASC'}`;
}

export function page(v: Record<string, unknown>): { limit: number; offset: number } {
  const limit = (v.pageSize as number | undefined) ?? 25;
  const currentPage = (v.currentPage as number | undefined) ?? 0;
  return { limit, offset: Math.min(currentPage * limit, Number.MAX_SAFE_INTEGER) };
}

/** First instant of a `YYYY-MM-DD` day, or of the second after a `YYYY-MM-DD HH:MM:SS` (for "up to and including"). */
export function instantOf(s: Settings, value: string, endOfSecond = false): number {
  const parts = parseDateTime(value) ?? parseDate(value)!;
  return s.tz.fromWall(wallOf(parts)) + (endOfSecond ? 1000 : 0);
}

const list: Handler = ({ settings: s, accountId, values: v }) => {
  const q: ListQuery = { where: [], params: [], orderBy: '', ...page(v) };
  if (v.status !== undefined) {
    q.where.push('status = ?');
    q.params.push(v.status as number);
  }
  if (v.moderatorStatus !== undefined) {
    q.where.push('moderator_status = ?');
    q.params.push(v.moderatorStatus as number);
  }
  if (v.createTsFrom !== undefined) {
    q.where.push('create_ts >= ?');
    q.params.push(instantOf(s, v.createTsFrom as string));
  }
  if (v.createTsTo !== undefined) {
    q.where.push('create_ts < ?');
    q.params.push(instantOf(s, v.createTsTo as string, true));
  }
  if (v.query !== undefined && v.query !== '') {
    q.where.push("(code LIKE ? ESCAPE '\\' OR comment LIKE ? ESCAPE '\\')");
    const pattern = likePattern(v.query as string);
    q.params.push(pattern, pattern);
  }
  q.orderBy = orderBy(v.sort as Record<string, 'ASC' | 'DESC'> | undefined, LINK_SORT_COLUMNS, 'create_ts DESC, id DESC');
  const { rows, total } = s.store.listLinks(accountId, q);
  return ok({ items: rows.map((r) => linkJson(s, r)), totalItemCount: String(total) });
};

const update: Handler = ({ settings: s, accountId, now, values: v }) => {
  // service-api.md Link/Update: without expirationDate the link is valid indefinitely.
  const expirationDate = (v.expirationDate as string | undefined) ?? null;
  const changed = s.store.updateLink(accountId, v.id as number, {
    status: (v.status as number | undefined) ?? null,
    setComment: v.comment !== undefined,
    comment: (v.comment as string | undefined) ?? null,
    expirationDate,
    expiresTs: expiryInstant(s, expirationDate),
    now,
  });
  // Live answers `true`; the contract documents the short link string.
  return changed ? ok(true) : fail(2, NOT_FOUND);
};

const remove: Handler = ({ settings: s, accountId, values: v }) => {
  const ids = [...new Set(v.ids as number[])];
  const deleted = s.store.deleteLinks(accountId, ids);
  return ok({
    processed: ids.filter((id) => deleted.has(id)).map(String),
    notProcessed: ids.filter((id) => !deleted.has(id)).map(String),
  });
};

const stats: Handler = ({ settings: s, accountId, now, values: v }) => {
  const type = v.type as StatsType;
  const ids = v.ids as number[];
  const wallOfValue = (value: unknown) => (typeof value === 'string' ? wallOf(parseDateTime(value)!) : null);
  const interval = statsInterval(type, wallOfValue(v.dateFrom), wallOfValue(v.dateTo), s.tz.toWall(now));
  const list = periods(type, interval);
  const clicks = list.map(() => ids.map(() => 0));
  const redirects = list.map(() => ids.map(() => 0));
  const owned = s.store.ownedLinkIds(accountId, ids);
  const from = s.tz.fromWall(interval.start);
  const to = s.tz.fromWall(interval.end);
  ids.forEach((id, n) => {
    if (!owned.has(id)) return;
    for (const { m, c, r } of s.store.clicksPerMinute(id, from, to)) {
      const i = periodIndex(list, s.tz.toWall(m * 60_000));
      if (i < 0) continue;
      clicks[i][n] += c;
      redirects[i][n] += r;
    }
  });
  // Live rows: counts from the database as strings, zeros as numbers; totals as numbers.
  const items = list.map((p, i) => {
    const row: Record<string, string | number> = { param: p.label };
    ids.forEach((_, n) => {
      row[`clicks${n}`] = clicks[i][n] ? String(clicks[i][n]) : 0;
      row[`redirects${n}`] = redirects[i][n] ? String(redirects[i][n]) : 0;
    });
    return row;
  });
  const totals: Record<string, number> = {};
  ids.forEach((_, n) => {
    totals[`totalClicks${n}`] = clicks.reduce((sum, row) => sum + row[n], 0);
    totals[`totalRedirects${n}`] = redirects.reduce((sum, row) => sum + row[n], 0);
  });
  return ok({ items, totals });
};

const campaign: Handler = ({ settings: s, accountId, values: v }) => {
  const campaignId = v.campaignId as number;
  if (!s.store.campaignExists(accountId, campaignId)) return fail(2, 'campaign not found');
  return ok(
    s.store.campaignLinks(accountId, campaignId).map((r) => ({
      id: String(r.id),
      code: r.code,
      fullLink: r.full_link,
      shortLink: shortLinkOf(s, r.code),
      clickCnt: String(r.click_cnt),
      redirectCnt: String(r.redirect_cnt),
      comment: r.comment,
    })),
  );
};

export const LINK_HANDLERS: Record<string, Handler> = {
  'link.create': create,
  'link.get': get,
  'link.list': list,
  'link.update': update,
  'link.delete': remove,
  'link.stats': stats,
  'link.campaign': campaign,
};

