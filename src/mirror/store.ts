// The local mirror of one account: a SQLite file (libsql, as the emulator's)
// per service and profile in the data directory, holding the account's
// messages and links, the clicks per day of its links, full-text indexes
// over texts, comments and full links (FTS5), and what sync has done so far.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../config/paths.js';
import { FINAL_STATUSES } from '../catalog/codes.js';
import { wireTime } from '../catalog/rules.js';
import { openConnection, type Connection, type SqlValue } from '../emulator/store/connection.js';

/** Where one mirror comes from: the service's base URL (or `sandbox`) and the profile. */
export interface MirrorSource {
  baseUrl: string;
  profile: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
-- Pages of the first sync already stored (id order, so a page holds the same messages on a rerun).
CREATE TABLE IF NOT EXISTS first_pages (page INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  campaign_id INTEGER,
  sender TEXT,
  recipient TEXT NOT NULL,
  text TEXT NOT NULL,
  status TEXT,
  final INTEGER NOT NULL,
  seg_num INTEGER NOT NULL,
  seg_user_buy REAL NOT NULL,
  country TEXT,
  operator TEXT,
  start_send_ts TEXT,
  status_update_ts TEXT
);
CREATE INDEX IF NOT EXISTS messages_sent ON messages (start_send_ts);
CREATE INDEX IF NOT EXISTS messages_pending ON messages (id) WHERE final = 0;
CREATE TABLE IF NOT EXISTS links (
  id INTEGER PRIMARY KEY,
  code TEXT,
  short_link TEXT,
  full_link TEXT NOT NULL,
  comment TEXT,
  status INTEGER,
  click_cnt INTEGER NOT NULL,
  create_ts TEXT,
  -- click_cnt when link_clicks was last fetched: a link whose count moved is fetched again.
  stats_click_cnt INTEGER
);
CREATE TABLE IF NOT EXISTS link_clicks (
  link_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  clicks INTEGER NOT NULL,
  redirects INTEGER NOT NULL,
  PRIMARY KEY (link_id, day)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(text, content='messages', content_rowid='id');
CREATE VIRTUAL TABLE IF NOT EXISTS links_fts USING fts5(full_link, comment, content='links', content_rowid='id');
-- The indexes follow their tables (SQLite's external-content pattern); a status update touches no index.
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_au AFTER UPDATE OF text ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS links_ai AFTER INSERT ON links BEGIN
  INSERT INTO links_fts (rowid, full_link, comment) VALUES (new.id, new.full_link, new.comment);
END;
CREATE TRIGGER IF NOT EXISTS links_au AFTER UPDATE OF full_link, comment ON links BEGIN
  INSERT INTO links_fts (links_fts, rowid, full_link, comment) VALUES ('delete', old.id, old.full_link, old.comment);
  INSERT INTO links_fts (rowid, full_link, comment) VALUES (new.id, new.full_link, new.comment);
END;
CREATE TRIGGER IF NOT EXISTS links_ad AFTER DELETE ON links BEGIN
  INSERT INTO links_fts (links_fts, rowid, full_link, comment) VALUES ('delete', old.id, old.full_link, old.comment);
END;
`;


/**
 * The mirror's file: named by the profile, and a digest of the base URL and
 * profile, so that two services (or the sandbox and a service) never share one.
 */
export function mirrorPath(env: Record<string, string | undefined>, source: MirrorSource): string {
  const digest = createHash('sha256').update(`${source.baseUrl}\n${source.profile}`).digest('hex').slice(0, 12);
  const name = source.profile.replace(/[^\w.-]/g, '_').slice(0, 40);
  return join(dataDir(env), 'mirror', `${name}-${digest}.db`);
}

/** A message as Message/List (withNumberInfo=1) or Message/GetSMSStatus gives it, normalised by the client. */
export type MessageItem = Record<string, unknown>;

const str = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : String(v));
/** A wire time in the usual form (wireTime), or as it came when it is in another. */
const time = (v: unknown): string | null => {
  const s = str(v);
  return s === null ? null : (wireTime(s) ?? s);
};
const int = (v: unknown): number | null => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v));

export class Mirror {
  readonly db: Connection;
  #upsertMessage;
  #upsertLink;

  private constructor(readonly path: string) {
    this.db = openConnection(path);
    this.db.exec(SCHEMA);
    this.#upsertMessage = this.db.prepare(`INSERT INTO messages (id, campaign_id, sender, recipient, text, status, final, seg_num, seg_user_buy, country, operator, start_send_ts, status_update_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET status = excluded.status, final = excluded.final, seg_num = excluded.seg_num, seg_user_buy = excluded.seg_user_buy,
        country = coalesce(excluded.country, country), operator = coalesce(excluded.operator, operator),
        start_send_ts = excluded.start_send_ts, status_update_ts = excluded.status_update_ts`);
    this.#upsertLink = this.db.prepare(`INSERT INTO links (id, code, short_link, full_link, comment, status, click_cnt, create_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET code = excluded.code, short_link = excluded.short_link, full_link = excluded.full_link, comment = excluded.comment,
        status = excluded.status, click_cnt = excluded.click_cnt, create_ts = excluded.create_ts`);
  }

  static open(path: string): Mirror {
    return new Mirror(path);
  }

  /** Opens a mirror only if sync has made it; undefined otherwise. */
  static openExisting(path: string): Mirror | undefined {
    return existsSync(path) ? new Mirror(path) : undefined;
  }

  get(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? undefined;
  }

  set(key: string, value: string | number | null): void {
    if (value === null) this.db.prepare('DELETE FROM meta WHERE key = ?').run(key);
    else this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, String(value));
  }

  /** Stores one page of messages (and, in the same transaction, the first sync's page number): all of it or none. */
  storeMessages(items: readonly MessageItem[], firstPage?: number): void {
    this.db.transaction(() => {
      for (const m of items) {
        const status = str(m.status);
        this.#upsertMessage.run(
          int(m.id),
          int(m.campaignId),
          str(m.from),
          String(m.to ?? ''),
          String(m.text ?? ''),
          status,
          status !== null && FINAL_STATUSES.has(status) ? 1 : 0,
          int(m.segNum) ?? 0,
          Number(m.segUserBuy ?? 0) || 0,
          str(m.countryA2),
          str(m.operatorName),
          time(m.startSendTs),
          time(m.statusUpdateTs),
        );
      }
      if (firstPage !== undefined) this.db.prepare('INSERT OR IGNORE INTO first_pages (page) VALUES (?)').run(firstPage);
    }).immediate();
  }

  /**
   * Status records of Message/GetSMSStatus onto the messages they name. Says
   * how many of them now have another status than the mirror held, and how
   * many of those reached a final one. (SQLite's `changes` of the UPDATE is
   * no measure of that: it counts every row the WHERE matched, changed or not.)
   */
  storeStatuses(records: readonly MessageItem[]): { changed: number; becameFinal: number } {
    const before = this.db.prepare('SELECT status, final FROM messages WHERE id = ?');
    const update = this.db.prepare('UPDATE messages SET status = ?, final = ?, seg_num = coalesce(?, seg_num), start_send_ts = ?, status_update_ts = ? WHERE id = ?');
    const counts = { changed: 0, becameFinal: 0 };
    this.db.transaction(() => {
      for (const r of records) {
        const id = int(r.id);
        const held = before.get(id) as { status: string | null; final: number } | undefined;
        if (!held) continue;
        const status = str(r.status);
        const final = status !== null && FINAL_STATUSES.has(status) ? 1 : 0;
        update.run(status, final, int(r.segNum), time(r.startSendTs), time(r.statusUpdateTs), id);
        if (status !== held.status) counts.changed++;
        if (final && !held.final) counts.becameFinal++;
      }
    }).immediate();
    return counts;
  }

  storeLinks(items: readonly MessageItem[]): void {
    this.db.transaction(() => {
      for (const l of items) {
        this.#upsertLink.run(int(l.id), str(l.code), str(l.shortLink), String(l.fullLink ?? ''), str(l.comment), int(l.status), int(l.clickCnt) ?? 0, str(l.createTs));
      }
    }).immediate();
  }

  /** Links the service no longer lists (deleted) leave the mirror, with their clicks. */
  dropLinksExcept(ids: readonly number[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM link_clicks WHERE link_id NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
      this.db.prepare('DELETE FROM links WHERE id NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
    }).immediate();
  }

  /** Clicks per day of some links (Link/GetStats daily), replacing what was held for them. */
  storeLinkClicks(rows: ReadonlyArray<{ linkId: number; day: string; clicks: number; redirects: number }>, ids: readonly number[]): void {
    const insert = this.db.prepare('INSERT INTO link_clicks (link_id, day, clicks, redirects) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM link_clicks WHERE link_id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
      for (const r of rows) if (r.clicks || r.redirects) insert.run(r.linkId, r.day, r.clicks, r.redirects);
      this.db.prepare('UPDATE links SET stats_click_cnt = click_cnt WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
    }).immediate();
  }

  all<T>(sql: string, ...params: SqlValue[]): T[] {
    return this.db.prepare(sql).all(...params) as T[];
  }

  one<T>(sql: string, ...params: SqlValue[]): T {
    return this.db.prepare(sql).get(...params) as T;
  }

  #closed = false;

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.db.close();
  }
}
