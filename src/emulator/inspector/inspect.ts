// Reading the database for the inspector and the control API: messages with
// the times of their statuses, conversations per recipient, links,
// campaigns and what each account holds. Read-only, fixed SQL, values bound.

import { countSegments } from '../../catalog/segments.js';
import type { EmulatorSettings } from '../service/handler.js';
import type { LinkFields } from '../store/rows.js';

type Row = Record<string, unknown>;
const num = (v: unknown) => v as number;
const text = (v: unknown) => v as string;
const maybe = <T>(v: unknown) => (v ?? null) as T | null;

export interface TimelineStep {
  status: string;
  at: number;
  /** Planned, not reached yet. */
  pending?: boolean;
}

export interface MessageView {
  id: number;
  accountId: number;
  campaignId: number;
  campaignName: string | null;
  from: string;
  to: string;
  text: string;
  status: string;
  campaignStatus: string;
  segments: number;
  encoding: 'GSM-7' | 'UCS-2';
  /** Price of one segment (segUserBuy). */
  segPrice: number;
  price: number;
  createdAt: number;
  startSendTs: number | null;
  statusUpdateTs: number | null;
  timeline: TimelineStep[];
}

export interface MessageFilter {
  /** One message. */
  id?: number;
  accountId?: number;
  /** Part of the recipient number. */
  to?: string;
  /** The whole recipient number (one conversation). */
  recipient?: string;
  /** Part of the text. */
  text?: string;
  /** One status, or any of several (a group: failed, pending). */
  status?: string | readonly string[];
  campaignId?: number;
  /** Created at or after (ms). */
  since?: number;
  limit: number;
}

/** Planned stages of one message: slot times and statuses, as the schema keeps them. */
function timelineOf(r: Row, now: number): TimelineStep[] {
  const steps: TimelineStep[] = [{ status: 'NEW', at: num(r.campaign_create_ts) }];
  for (let i = 0; i <= 4; i++) {
    const t = r[`t${i}`];
    const s = r[`s${i}`];
    if (typeof t !== 'number' || typeof s !== 'string' || t >= Number.MAX_SAFE_INTEGER) continue;
    if (t > now) {
      steps.push({ status: s, at: t, pending: true });
      break;
    }
    if (steps.at(-1)!.status !== s) steps.push({ status: s, at: t });
  }
  return steps;
}

const MESSAGE_SELECT = `SELECT m.id, m.account_id, m.campaign_id, c.name AS campaign_name, m.sender, m.recipient, m.text, m.seg_num, m.seg_price,
  m.status, m.campaign_status, m.campaign_create_ts, m.start_send_ts, m.status_update_ts,
  m.t0, m.s0, m.t1, m.s1, m.t2, m.s2, m.t3, m.s3, m.t4, m.s4
  FROM messages AS m LEFT JOIN campaigns AS c ON c.id = m.campaign_id`;

function where(f: Omit<MessageFilter, 'limit'>, prefix = 'm.'): { sql: string; params: Array<string | number> } {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  const add = (sql: string, v: string | number) => {
    parts.push(sql);
    params.push(v);
  };
  if (f.id !== undefined) add(`${prefix}id = ?`, f.id);
  if (f.accountId !== undefined) add(`${prefix}account_id = ?`, f.accountId);
  if (f.to) add(`instr(${prefix}recipient, ?) > 0`, f.to);
  if (f.recipient) add(`${prefix}recipient = ?`, f.recipient);
  if (f.text) add(`instr(${prefix}text, ?) > 0`, f.text);
  if (typeof f.status === 'string') add(`${prefix}status = ?`, f.status);
  else if (f.status?.length) {
    parts.push(`${prefix}status IN (${f.status.map(() => '?').join(', ')})`);
    params.push(...f.status);
  }
  if (f.campaignId !== undefined) add(`${prefix}campaign_id = ?`, f.campaignId);
  if (f.since !== undefined) add(`${prefix}campaign_create_ts >= ?`, f.since);
  return { sql: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', params };
}

/** Messages matching `f`, newest first, with their timelines; due statuses are applied first. */
export function messages(s: EmulatorSettings, f: MessageFilter): { items: MessageView[]; total: number } {
  const now = s.clock.now();
  s.db.advance(now);
  const w = where(f);
  const total = num(s.db.select(`SELECT count(*) AS n FROM messages AS m${w.sql}`, w.params)[0].n);
  const rows = s.db.select(`${MESSAGE_SELECT}${w.sql} ORDER BY m.id DESC LIMIT ?`, [...w.params, f.limit]);
  return {
    total,
    items: rows.map((r) => {
      const body = text(r.text);
      const segments = num(r.seg_num);
      return {
        id: num(r.id),
        accountId: num(r.account_id),
        campaignId: num(r.campaign_id),
        campaignName: maybe<string>(r.campaign_name),
        from: text(r.sender),
        to: text(r.recipient),
        text: body,
        status: text(r.status),
        campaignStatus: text(r.campaign_status),
        segments,
        encoding: countSegments(body).encoding,
        segPrice: num(r.seg_price),
        price: Math.round(segments * num(r.seg_price) * 1e6) / 1e6,
        createdAt: num(r.campaign_create_ts),
        startSendTs: maybe<number>(r.start_send_ts),
        statusUpdateTs: maybe<number>(r.status_update_ts),
        timeline: timelineOf(r, now),
      };
    }),
  };
}

export interface Conversation {
  to: string;
  count: number;
  lastText: string;
  lastStatus: string;
  lastAt: number;
}

/** One entry per recipient, the latest conversation first (at most `limit`), and how many recipients there are. */
export function conversations(s: EmulatorSettings, f: Omit<MessageFilter, 'limit' | 'recipient'>, limit: number): { items: Conversation[]; total: number } {
  const w = where(f, '');
  const total = num(s.db.select(`SELECT count(DISTINCT recipient) AS n FROM messages${w.sql}`, w.params)[0]?.n);
  const rows = s.db.select(
    `SELECT m.recipient, g.n, m.text, m.status, m.campaign_create_ts FROM
       (SELECT recipient, count(*) AS n, max(id) AS last_id FROM messages${w.sql} GROUP BY recipient ORDER BY last_id DESC LIMIT ?) AS g
     JOIN messages AS m ON m.id = g.last_id ORDER BY g.last_id DESC`,
    [...w.params, limit],
  );
  return { items: rows.map((r) => ({ to: text(r.recipient), count: num(r.n), lastText: text(r.text), lastStatus: text(r.status), lastAt: num(r.campaign_create_ts) })), total };
}

export interface LinkView extends LinkFields {
  id: number;
  expired: boolean;
  clicks: number;
  redirects: number;
  campaignName: string | null;
  createTs: number;
}

const LINK_SELECT = `SELECT l.id, l.code, l.full_link, l.status, l.moderator_status, l.moderator_comment, l.comment, l.expiration_date,
  l.expires_ts, l.click_cnt, l.redirect_cnt, l.campaign_id, c.name AS campaign_name, l.create_ts
  FROM links AS l LEFT JOIN campaigns AS c ON c.id = l.campaign_id`;

function linkView(r: Row, now: number): LinkView {
  const expires = maybe<number>(r.expires_ts);
  return {
    id: num(r.id),
    code: text(r.code),
    fullLink: text(r.full_link),
    status: num(r.status),
    moderatorStatus: num(r.moderator_status),
    moderatorComment: maybe<string>(r.moderator_comment),
    comment: maybe<string>(r.comment),
    expirationDate: maybe<string>(r.expiration_date),
    expired: expires !== null && now >= expires,
    clicks: num(r.click_cnt),
    redirects: num(r.redirect_cnt),
    campaignId: maybe<number>(r.campaign_id),
    campaignName: maybe<string>(r.campaign_name),
    createTs: num(r.create_ts),
  };
}

export interface LinkFilter {
  accountId: number;
  /** Part of the code, full link or comment. */
  query?: string;
  status?: number;
  campaignId?: number;
  limit: number;
}

export function links(s: EmulatorSettings, f: LinkFilter): { items: LinkView[]; total: number } {
  const parts = ['l.account_id = ?'];
  const params: Array<string | number> = [f.accountId];
  if (f.query) {
    parts.push('(instr(l.code, ?) > 0 OR instr(l.full_link, ?) > 0 OR instr(coalesce(l.comment, \'\'), ?) > 0)');
    params.push(f.query, f.query, f.query);
  }
  if (f.status !== undefined) {
    parts.push('l.status = ?');
    params.push(f.status);
  }
  if (f.campaignId !== undefined) {
    parts.push('l.campaign_id = ?');
    params.push(f.campaignId);
  }
  const w = ` WHERE ${parts.join(' AND ')}`;
  const total = num(s.db.select(`SELECT count(*) AS n FROM links AS l${w}`, params)[0].n);
  const now = s.clock.now();
  const rows = s.db.select(`${LINK_SELECT}${w} ORDER BY l.id DESC LIMIT ?`, [...params, f.limit]);
  return { total, items: rows.map((r) => linkView(r, now)) };
}

export function link(s: EmulatorSettings, accountId: number, id: number): LinkView | null {
  const r = s.db.select(`${LINK_SELECT} WHERE l.account_id = ? AND l.id = ?`, [accountId, id])[0];
  return r ? linkView(r, s.clock.now()) : null;
}

/** Of the codes given, those of existing links (short links in message texts). */
export function knownCodes(s: EmulatorSettings, codes: string[]): Set<string> {
  if (codes.length === 0) return new Set();
  const rows = s.db.select('SELECT code FROM links WHERE code IN (SELECT value FROM json_each(?))', [JSON.stringify(codes)]);
  return new Set(rows.map((r) => text(r.code)));
}

export interface CampaignView {
  id: number;
  name: string | null;
  createTs: number;
  messages: number;
  status: string | null;
  links: LinkView[];
}

export function campaigns(s: EmulatorSettings, accountId: number, limit: number): { items: CampaignView[]; total: number } {
  const now = s.clock.now();
  s.db.advance(now);
  const total = num(s.db.select('SELECT count(*) AS n FROM campaigns WHERE account_id = ?', [accountId])[0].n);
  const rows = s.db.select(
    `SELECT c.id, c.name, c.create_ts,
       (SELECT count(*) FROM messages AS m WHERE m.account_id = c.account_id AND m.campaign_id = c.id) AS messages,
       (SELECT m.campaign_status FROM messages AS m WHERE m.account_id = c.account_id AND m.campaign_id = c.id ORDER BY m.id DESC LIMIT 1) AS status
     FROM campaigns AS c WHERE c.account_id = ? ORDER BY c.id DESC LIMIT ?`,
    [accountId, limit],
  );
  const ids = rows.map((r) => num(r.id));
  const byCampaign = new Map<number, LinkView[]>();
  if (ids.length) {
    for (const r of s.db.select(`${LINK_SELECT} WHERE l.account_id = ? AND l.campaign_id IN (SELECT value FROM json_each(?)) ORDER BY l.id`, [accountId, JSON.stringify(ids)])) {
      const v = linkView(r, now);
      byCampaign.set(v.campaignId!, [...(byCampaign.get(v.campaignId!) ?? []), v]);
    }
  }
  return {
    total,
    items: rows.map((r) => ({
      id: num(r.id),
      name: maybe<string>(r.name),
      createTs: num(r.create_ts),
      messages: num(r.messages),
      status: maybe<string>(r.status),
      links: byCampaign.get(num(r.id)) ?? [],
    })),
  };
}

/** How many links, campaigns and messages each account holds. */
export function accountTotals(s: EmulatorSettings): Map<number, { links: number; campaigns: number; messages: number }> {
  const out = new Map<number, { links: number; campaigns: number; messages: number }>();
  const entry = (id: number) => out.get(id) ?? (out.set(id, { links: 0, campaigns: 0, messages: 0 }), out.get(id)!);
  for (const table of ['links', 'campaigns', 'messages'] as const) {
    for (const r of s.db.select(`SELECT account_id, count(*) AS n FROM ${table} GROUP BY account_id`)) entry(num(r.account_id))[table] = num(r.n);
  }
  return out;
}

/** Seconds the clock must move for every message on its way to reach its final status; 0 when none is. */
export function pendingSeconds(s: EmulatorSettings): number {
  const r = s.db.select(
    `SELECT max(coalesce(t4, t3, t2, t1)) AS t FROM messages WHERE next_ts IS NOT NULL AND coalesce(t4, t3, t2, t1) < ${Number.MAX_SAFE_INTEGER}`,
  )[0];
  const t = r?.t;
  return typeof t === 'number' ? Math.max(0, Math.ceil((t - s.clock.now()) / 1000)) : 0;
}
