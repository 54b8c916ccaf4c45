// The local mirror of one account: a SQLite file (libsql, as the emulator's)
// per service and profile in the data directory, holding the account's
// messages and links, the clicks per day of its links, full-text indexes
// over texts, comments and full links (FTS5), and what sync has done so far
// (the windows of a sync under way and their pages).

import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
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

/** The sandbox's own mirror, the one `--sandbox` commands use (src/cli/mirror.ts): `sandbox reset` removes it with the sandbox. */
export const SANDBOX_SOURCE: MirrorSource = { baseUrl: 'sandbox', profile: 'sandbox' };

/** PRAGMA user_version of this schema; an older file is brought up to it when opened (migrate()). */
const VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
-- The windows of a first sync under way: messages of one part (not yet sent, or sent) whose time
-- (campaign creation, or send time) is from from_ts to to_ts (wire times, both included; NULL: open).
CREATE TABLE IF NOT EXISTS sync_windows (
  id INTEGER PRIMARY KEY,
  part TEXT NOT NULL,
  from_ts TEXT,
  to_ts TEXT,
  -- Messages the window is expected to hold (its parent's count shared out), for the progress bar.
  expected INTEGER,
  done INTEGER NOT NULL DEFAULT 0
);
-- Pages of a window already stored (id order within it, so a page holds the same messages on a rerun).
CREATE TABLE IF NOT EXISTS sync_window_pages (window INTEGER NOT NULL, page INTEGER NOT NULL, PRIMARY KEY (window, page)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  -- The service's own identifier of the message: the same id with another uuid is another message.
  uuid TEXT,
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
CREATE TRIGGER IF NOT EXISTS links_au AFTER UPDATE OF full_link, comment ON links
WHEN old.full_link IS NOT new.full_link OR old.comment IS NOT new.comment BEGIN
  INSERT INTO links_fts (links_fts, rowid, full_link, comment) VALUES ('delete', old.id, old.full_link, old.comment);
  INSERT INTO links_fts (rowid, full_link, comment) VALUES (new.id, new.full_link, new.comment);
END;
-- Another code or creation time under the same id is another link: the clicks held were the old one's.
CREATE TRIGGER IF NOT EXISTS links_other AFTER UPDATE OF code, create_ts ON links
WHEN old.code IS NOT new.code OR old.create_ts IS NOT new.create_ts BEGIN
  DELETE FROM link_clicks WHERE link_id = new.id;
  UPDATE links SET stats_click_cnt = NULL WHERE id = new.id;
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

/** A window of a first sync (see sync_windows). */
export interface SyncWindow {
  id: number;
  part: string;
  from: string | null;
  to: string | null;
  expected: number | null;
}

/** What a held message is known by: the service's uuid, else its recipient and text. */
export interface HeldMessage {
  uuid: string | null;
  recipient: string;
  text: string;
}

/**
 * Whether a message as the service lists it is the one the mirror holds under
 * its id: the same uuid (the service's own identifier), else, when either has
 * none (a mirror made before uuids were kept), the same recipient and text.
 */
export function sameMessage(held: HeldMessage, m: MessageItem): boolean {
  const uuid = str(m.uuid);
  return held.uuid !== null && uuid !== null ? held.uuid === uuid : held.recipient === String(m.to ?? '') && held.text === String(m.text ?? '');
}

/** Removes a mirror's files (the database and SQLite's journal files beside it): reports have none, the next sync starts afresh. */
export function removeMirror(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** Removes the sandbox's mirror (`sandbox reset`): what it held is gone from the sandbox. */
export function removeSandboxMirror(env: Record<string, string | undefined>): void {
  removeMirror(mirrorPath(env, SANDBOX_SOURCE));
}

export class Mirror {
  readonly db: Connection;
  #upsertMessage;
  #heldMessage;
  #heldMessages;
  #upsertLink;

  private constructor(readonly path: string) {
    this.db = openConnection(path);
    // libsql builds SQLite with its temporary files in memory unless asked (TEMP_STORE=2): a report's GROUP BY
    // sorts every message of the period, so it would hold them all. On disk, SQLite deletes them as it opens them.
    this.db.pragma('temp_store = FILE');
    this.#migrate();
    this.#upsertMessage = this.db.prepare(`INSERT INTO messages (id, uuid, campaign_id, sender, recipient, text, status, final, seg_num, seg_user_buy, country, operator, start_send_ts, status_update_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET uuid = coalesce(excluded.uuid, uuid), status = excluded.status, final = excluded.final, seg_num = excluded.seg_num,
        seg_user_buy = excluded.seg_user_buy, country = coalesce(excluded.country, country), operator = coalesce(excluded.operator, operator),
        start_send_ts = excluded.start_send_ts, status_update_ts = excluded.status_update_ts`);
    this.#heldMessage = this.db.prepare('SELECT uuid, recipient, text FROM messages WHERE id = ?');
    this.#heldMessages = this.db.prepare('SELECT id, uuid, recipient, text FROM messages WHERE id IN (SELECT value FROM json_each(?))');
    // A link is written only when something of it differs: an unchanged listing writes nothing (and touches no index).
    this.#upsertLink = this.db.prepare(`INSERT INTO links (id, code, short_link, full_link, comment, status, click_cnt, create_ts)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET code = excluded.code, short_link = excluded.short_link, full_link = excluded.full_link, comment = excluded.comment,
        status = excluded.status, click_cnt = excluded.click_cnt, create_ts = excluded.create_ts
      WHERE code IS NOT excluded.code OR short_link IS NOT excluded.short_link OR full_link IS NOT excluded.full_link OR comment IS NOT excluded.comment
        OR status IS NOT excluded.status OR click_cnt IS NOT excluded.click_cnt OR create_ts IS NOT excluded.create_ts`);
  }

  /**
   * Makes the schema, and brings a mirror of an older release up to it: the
   * uuid of messages (held ones get theirs when next listed), the link
   * triggers, and the windows of the first sync in place of its pages (a first
   * sync under way goes on by windows; the messages it stored stay).
   */
  #migrate(): void {
    const version = (this.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version >= VERSION) return;
    this.db.transaction(() => {
      const old = (this.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'messages'").get() as { n: number }).n > 0;
      if (old) {
        const columns = this.db.prepare('PRAGMA table_info(messages)').all() as Array<{ name: string }>;
        if (!columns.some((c) => c.name === 'uuid')) this.db.exec('ALTER TABLE messages ADD COLUMN uuid TEXT');
        this.db.exec('DROP TRIGGER IF EXISTS links_au; DROP TABLE IF EXISTS first_pages;');
      }
      this.db.exec(SCHEMA);
      this.db.exec(`PRAGMA user_version = ${VERSION}`);
    }).immediate();
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

  /**
   * Stores one page of messages (and, in the same transaction, which page of
   * which window of a first sync it was): all of it or none. Says how many of
   * them the mirror did not hold before; when one is another message than the
   * mirror holds under its id (sameMessage), stores nothing and names it.
   */
  storeMessages(items: readonly MessageItem[], windowPage?: { window: number; page: number }): { added: number; other?: number } {
    return this.db.transaction(() => {
      // Those of the page the mirror holds, in one query (a first sync holds none of them).
      const rows = this.#heldMessages.all(JSON.stringify(items.map((m) => int(m.id)))) as Array<HeldMessage & { id: number }>;
      const held = new Map(rows.map((r) => [r.id, r]));
      for (const m of items) {
        const h = held.get(Number(m.id));
        if (h && !sameMessage(h, m)) return { added: 0, other: Number(m.id) };
      }
      const added = items.length - held.size;
      for (const m of items) {
        const status = str(m.status);
        this.#upsertMessage.run(
          int(m.id),
          str(m.uuid),
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
      if (windowPage) this.db.prepare('INSERT OR IGNORE INTO sync_window_pages (window, page) VALUES (?, ?)').run(windowPage.window, windowPage.page);
      return { added };
    }).immediate();
  }

  /** What the mirror holds under a message id, to tell whether the service's message of that id is the same one. */
  heldMessage(id: number): HeldMessage | undefined {
    const row = this.#heldMessage.get(id) as HeldMessage | undefined;
    return row && { uuid: row.uuid, recipient: row.recipient, text: row.text };
  }

  /**
   * Empties the mirror for a sync to fill it again: messages, links, clicks
   * and what sync had done, in one transaction (a report sees the old mirror
   * or the empty one). The --since of its first sync stays.
   */
  empty(): void {
    this.db.transaction(() => {
      // The external-content indexes are emptied whole; links_ad would otherwise delete row by row.
      this.db.exec(`INSERT INTO messages_fts (messages_fts) VALUES ('delete-all');
        INSERT INTO links_fts (links_fts) VALUES ('delete-all');
        DROP TRIGGER links_ad;
        DELETE FROM messages; DELETE FROM links; DELETE FROM link_clicks; DELETE FROM sync_windows; DELETE FROM sync_window_pages;
        DELETE FROM meta WHERE key <> 'since';`);
      this.db.exec(SCHEMA);
    }).immediate();
  }

  // ---- the windows of a first sync ----------------------------------------

  /** The windows of `part` not yet done, earliest first. */
  windows(part: string): SyncWindow[] {
    return this.all<{ id: number; part: string; from_ts: string | null; to_ts: string | null; expected: number | null }>(
      'SELECT id, part, from_ts, to_ts, expected FROM sync_windows WHERE part = ? AND done = 0 ORDER BY from_ts IS NOT NULL, from_ts, id',
      part,
    ).map((r) => ({ id: r.id, part: r.part, from: r.from_ts, to: r.to_ts, expected: r.expected }));
  }

  /** Adds windows, in place of `replacing` (a window split: it and its pages go) when given; returns them with their ids. */
  addWindows(part: string, windows: ReadonlyArray<{ from: string | null; to: string | null; expected: number | null }>, replacing?: number): SyncWindow[] {
    return this.db.transaction(() => {
      if (replacing !== undefined) {
        this.db.prepare('DELETE FROM sync_window_pages WHERE window = ?').run(replacing);
        this.db.prepare('DELETE FROM sync_windows WHERE id = ?').run(replacing);
      }
      return this.#insertWindows(part, windows);
    }).immediate();
  }

  #insertWindows(part: string, windows: ReadonlyArray<{ from: string | null; to: string | null; expected: number | null }>): SyncWindow[] {
    const insert = this.db.prepare('INSERT INTO sync_windows (part, from_ts, to_ts, expected) VALUES (?, ?, ?, ?)');
    return windows.map((w) => ({ id: Number(insert.run(part, w.from, w.to, w.expected).lastInsertRowid), part, ...w }));
  }

  /** Starts a sync's plan: the windows it begins with and what it keeps in meta, in one transaction (earlier windows go). */
  beginPlan(windows: ReadonlyArray<{ part: string; from: string | null; to: string | null }>, meta: Record<string, string | number | null>): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM sync_windows; DELETE FROM sync_window_pages;');
      for (const w of windows) this.#insertWindows(w.part, [{ from: w.from, to: w.to, expected: null }]);
      for (const [key, value] of Object.entries(meta)) this.set(key, value);
    }).immediate();
  }

  /** Ends a sync's plan: its windows go, and meta is written, in one transaction. */
  endPlan(meta: Record<string, string | number | null>): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM sync_windows; DELETE FROM sync_window_pages;');
      for (const [key, value] of Object.entries(meta)) this.set(key, value);
    }).immediate();
  }

  /** Pages of a window already stored. */
  windowPages(window: number): Set<number> {
    return new Set(this.all<{ page: number }>('SELECT page FROM sync_window_pages WHERE window = ?', window).map((r) => r.page));
  }

  windowDone(window: number): void {
    this.db.transaction(() => {
      this.db.prepare('UPDATE sync_windows SET done = 1 WHERE id = ?').run(window);
      this.db.prepare('DELETE FROM sync_window_pages WHERE window = ?').run(window);
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

  /** Stores links as Link/List gives them; those that hold nothing new are not written. */
  storeLinks(items: readonly MessageItem[]): void {
    this.db.transaction(() => {
      for (const l of items) {
        this.#upsertLink.run(int(l.id), str(l.code), str(l.shortLink), String(l.fullLink ?? ''), str(l.comment), int(l.status), int(l.clickCnt) ?? 0, str(l.createTs));
      }
    }).immediate();
  }

  /** The code and creation time held for a link id, to tell whether the service's link of that id is the same one. */
  heldLink(id: number): { code: string | null; createTs: string | null } | undefined {
    const row = this.db.prepare('SELECT code, create_ts FROM links WHERE id = ?').get(id) as { code: string | null; create_ts: string | null } | undefined;
    return row && { code: row.code, createTs: row.create_ts };
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
