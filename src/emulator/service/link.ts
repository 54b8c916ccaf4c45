// Module Link: one handler per catalog operation, each under its catalog id
// (`link.create`), and what a send's link shortening and seed files share
// with them (addLink, expiryInstant).

import { parseDate, parseDateTime } from '../../catalog/rules.js';
import type { StatsType } from '../../catalog/link.js';
import { fail, ok, RawJson, type Handler, type EmulatorSettings } from './handler.js';
import { instantOf, likePattern, listQuery, sortKeys } from './list-query.js';
import type { LinkRow } from '../store/rows.js';
import { withNewCode } from './short-codes.js';
import { periodIndex, periods, requestedInterval } from './stats-periods.js';
import { DAY_MS, wallOf } from './time-zone.js';

export const NOT_FOUND = 'link not found';
export const BLOCKED_COMMENT = 'Blocked by moderation: the link matches a blocked pattern';

/** The short link of a code: the base it is served under, then the code. */
export function shortLinkOf(s: EmulatorSettings, code: string): string {
  return `${s.shortBase}/${code}`;
}

/** A link as the live service sends it: numbers as strings, plus the live extras redirectCnt and updateTs. */
export function linkJson(s: EmulatorSettings, r: LinkRow): Record<string, unknown> {
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
export function expiryInstant(s: EmulatorSettings, date: string | null): number | null {
  if (date === null) return null;
  return s.tz.fromWall(wallOf(parseDate(date)!) + DAY_MS);
}

export interface NewLinkFields {
  fullLink: string;
  status: number;
  expirationDate: string | null;
  comment: string | null;
  campaignId: number | null;
}

/** Adds a link with a fresh code: Link/Create and the links a send shortens. */
export function addLink(s: EmulatorSettings, accountId: number, now: number, l: NewLinkFields): { id: number; code: string } {
  const blocked = s.blockPattern !== null && s.blockPattern.test(l.fullLink);
  return withNewCode((code) => {
    const id = s.db.insertLink({
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

/** The code a short link ends with: its last path segment. */
function codeOfShortLink(shortLink: string): string {
  const bare = shortLink.trim().replace(/[?#].*$/, '').replace(/\/+$/, '');
  return bare.slice(bare.lastIndexOf('/') + 1);
}

/** Serialised links by row; rows stay the same objects while the database's read cache keeps them (link-cache.ts). */
const serialised = new WeakMap<LinkRow, RawJson>();

const SORT_COLUMNS: Record<string, string> = {
  createTs: 'create_ts',
  expirationDate: 'expiration_date',
  clickCnt: 'click_cnt',
  code: 'code',
  fullLink: 'full_link',
};

export const LINK_HANDLERS: Record<string, Handler> = {
  'link.create'({ settings: s, accountId, now, values: v }) {
    const { id, code } = addLink(s, accountId, now, {
      fullLink: v.fullLink as string,
      status: (v.status as number | undefined) ?? 1,
      expirationDate: (v.expirationDate as string | undefined) ?? null,
      comment: (v.comment as string | undefined) ?? null,
      campaignId: null,
    });
    return ok({ id: String(id), code, shortLink: shortLinkOf(s, code) });
  },

  'link.get'({ settings: s, accountId, values: v }) {
    let row: LinkRow | undefined;
    if (v.id !== undefined) row = s.db.linkById(accountId, v.id as number);
    else {
      const code = v.code !== undefined ? (v.code as string) : codeOfShortLink(v.shortLink as string);
      if (code !== '') row = s.db.linkByCode(accountId, code);
    }
    if (!row) return fail(2, NOT_FOUND);
    let json = serialised.get(row);
    if (!json) {
      json = new RawJson(JSON.stringify(linkJson(s, row)));
      serialised.set(row, json);
    }
    return ok(json);
  },

  'link.list'({ settings: s, accountId, values: v }) {
    const q = listQuery(v);
    if (v.status !== undefined) q.add('status = ?', v.status as number);
    if (v.moderatorStatus !== undefined) q.add('moderator_status = ?', v.moderatorStatus as number);
    if (v.createTsFrom !== undefined) q.add('create_ts >= ?', instantOf(s, v.createTsFrom as string));
    if (v.createTsTo !== undefined) q.add('create_ts < ?', instantOf(s, v.createTsTo as string, true));
    if (v.query !== undefined && v.query !== '') {
      const pattern = likePattern(v.query as string);
      q.add("(code LIKE ? ESCAPE '\\' OR comment LIKE ? ESCAPE '\\')", pattern, pattern);
    }
    q.sortBy(sortKeys(v.sort, SORT_COLUMNS, [{ column: 'create_ts', desc: true }]));
    const { rows, total } = s.db.listLinks(accountId, q);
    return ok({ items: rows.map((r) => linkJson(s, r)), totalItemCount: String(total) });
  },

  'link.update'({ settings: s, accountId, now, values: v }) {
    // service-api.md Link/Update: without expirationDate the link is valid indefinitely.
    const expirationDate = (v.expirationDate as string | undefined) ?? null;
    const changed = s.db.updateLink(accountId, v.id as number, {
      status: (v.status as number | undefined) ?? null,
      setComment: v.comment !== undefined,
      comment: (v.comment as string | undefined) ?? null,
      expirationDate,
      expiresTs: expiryInstant(s, expirationDate),
      now,
    });
    // Live answers `true`; the contract documents the short link string.
    return changed ? ok(true) : fail(2, NOT_FOUND);
  },

  'link.delete'({ settings: s, accountId, values: v }) {
    const ids = [...new Set(v.ids as number[])];
    const deleted = s.db.deleteLinks(accountId, ids);
    return ok({
      processed: ids.filter((id) => deleted.has(id)).map(String),
      notProcessed: ids.filter((id) => !deleted.has(id)).map(String),
    });
  },

  'link.stats'({ settings: s, accountId, now, values: v }) {
    const type = v.type as StatsType;
    const ids = v.ids as number[];
    const wallOfValue = (value: unknown) => (typeof value === 'string' ? wallOf(parseDateTime(value)!) : null);
    const interval = requestedInterval(type, wallOfValue(v.dateFrom), wallOfValue(v.dateTo), s.tz.toWall(now));
    const list = periods(type, interval);
    const clicks = list.map(() => ids.map(() => 0));
    const redirects = list.map(() => ids.map(() => 0));
    const owned = s.db.ownedLinkIds(accountId, ids);
    const from = s.tz.fromWall(interval.start);
    const to = s.tz.fromWall(interval.end);
    ids.forEach((id, n) => {
      if (!owned.has(id)) return;
      for (const { m, c, r } of s.db.clicksPerMinute(id, from, to)) {
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
  },

  'link.campaign'({ settings: s, accountId, values: v }) {
    const campaignId = v.campaignId as number;
    if (!s.db.campaignExists(accountId, campaignId)) return fail(2, 'campaign not found');
    return ok(
      s.db.campaignLinks(accountId, campaignId).map((r) => ({
        id: String(r.id),
        code: r.code,
        fullLink: r.full_link,
        shortLink: shortLinkOf(s, r.code),
        clickCnt: String(r.click_cnt),
        redirectCnt: String(r.redirect_cnt),
        comment: r.comment,
      })),
    );
  },
};
