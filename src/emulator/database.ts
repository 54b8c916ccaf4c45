// The emulator's state in SQLite (libsql): opening, pragmas, migrations and
// every statement, prepared once, when first used. Parameters are always
// bound, never spliced into SQL; the only SQL built at run time is the
// WHERE/ORDER BY of the List operations, made from fixed fragments and cached
// by its text.
//
// libsql quirks this file hides: stmt.get() adds an enumerable `_metadata`
// key to rows (rows are mapped column by column, never spread into answers),
// binding a boolean aborts the process (only numbers, strings and null are
// bound), and strings are cut at a NUL character (the wire layer refuses NUL).

import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setUpConnection } from './connection.js';
import { loadLibsql } from './libsql.js';
import type { LifecyclePlan } from './lifecycle.js';
import type { ListQuery } from './list-query.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export type SqlValue = string | number | bigint | null;
type Params = SqlValue[] | [Record<string, SqlValue>];

interface Statement {
  raw(on: boolean): Statement;
  run(...params: Params): { changes: number; lastInsertRowid: number | bigint };
  get(...params: Params): unknown;
  all(...params: Params): unknown[];
}
interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}
interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  close(): void;
  readonly open: boolean;
}

export interface LinkRow {
  id: number;
  code: string;
  full_link: string;
  status: number;
  moderator_status: number;
  moderator_comment: string | null;
  comment: string | null;
  expiration_date: string | null;
  expires_ts: number | null;
  click_cnt: number;
  redirect_cnt: number;
  campaign_id: number | null;
  create_ts: number;
  update_ts: number;
}

export interface MessageRow {
  id: number;
  campaign_id: number;
  uuid: string;
  sender: string;
  recipient: string;
  text: string;
  seg_num: number;
  seg_price: number;
  groups: string | null;
  status: string;
  start_send_ts: number | null;
  status_update_ts: number | null;
}

const LINK_COLUMNS =
  'id, code, full_link, status, moderator_status, moderator_comment, comment, expiration_date, expires_ts, click_cnt, redirect_cnt, campaign_id, create_ts, update_ts';
const MESSAGE_COLUMNS = 'id, campaign_id, uuid, sender, recipient, text, seg_num, seg_price, groups, status, start_send_ts, status_update_ts';

// Rows come back as arrays (raw mode): libsql builds objects column by column,
// which costs more than the query itself. The mappers follow the lists above.
type Raw = unknown[];

export function linkRow(r: Raw): LinkRow {
  return {
    id: r[0] as number,
    code: r[1] as string,
    full_link: r[2] as string,
    status: r[3] as number,
    moderator_status: r[4] as number,
    moderator_comment: r[5] as string | null,
    comment: r[6] as string | null,
    expiration_date: r[7] as string | null,
    expires_ts: r[8] as number | null,
    click_cnt: r[9] as number,
    redirect_cnt: r[10] as number,
    campaign_id: r[11] as number | null,
    create_ts: r[12] as number,
    update_ts: r[13] as number,
  };
}

export function messageRow(r: Raw): MessageRow {
  return {
    id: r[0] as number,
    campaign_id: r[1] as number,
    uuid: r[2] as string,
    sender: r[3] as string,
    recipient: r[4] as string,
    text: r[5] as string,
    seg_num: r[6] as number,
    seg_price: r[7] as number,
    groups: r[8] as string | null,
    status: r[9] as string,
    start_send_ts: r[10] as number | null,
    status_update_ts: r[11] as number | null,
  };
}

export interface NewLink {
  accountId: number;
  code: string;
  fullLink: string;
  status: number;
  moderatorStatus: number;
  moderatorComment: string | null;
  comment: string | null;
  expirationDate: string | null;
  expiresTs: number | null;
  campaignId: number | null;
  now: number;
}

export interface NewMessage {
  accountId: number;
  campaignId: number;
  uuid: string;
  sender: string;
  recipient: string;
  text: string;
  segNum: number;
  segPrice: number;
  deferredTs: number | null;
  validityMin: number;
  now: number;
  plan: LifecyclePlan;
}

const STATEMENT_CACHE_LIMIT = 256;

export class SchemaTooNewError extends Error {}

/** Most links kept by the read cache. */
const LINK_CACHE_LIMIT = 10_000;

export class Database {
  readonly #db: Connection;
  readonly #dynamic = new Map<string, Statement>();
  readonly path: string;
  readonly #s: ReturnType<typeof prepareAll>;
  /**
   * Link/Get by id of a private in-memory database (`serve --db :memory:`),
   * whose every write this Database makes, is kept until anything is written:
   * it serves the emulator row of `npm run bench` (Link/Get on
   * `serve --db :memory:` at >= 0.5 of a bare node:http server), where a
   * libsql call costs more than the rest of the request. A file may be
   * written by other processes too (`--sandbox` commands while `serve`
   * runs), so there every read asks SQLite. `node bench/inspector.js` prints
   * the emulator's CPU time per request; run it with `--bin` on a build
   * without this cache to see what it saves (about half, and the row above
   * its budget rather than under it, when it was last measured).
   */
  readonly #linkCache: Map<string, LinkRow> | null;

  constructor(db: Connection, path: string) {
    this.#db = db;
    this.path = path;
    this.#s = prepareAll(db);
    this.#linkCache = path === ':memory:' ? new Map() : null;
  }

  /** Every write calls this: cached reads are no longer true. */
  #wrote(): void {
    if (this.#linkCache?.size) this.#linkCache.clear();
  }

  /** Opens (creating if needed) and migrates the database. ':memory:' gives a private, empty one. */
  static open(path: string): Database {
    const memory = path === ':memory:' || path === '';
    const file = memory ? ':memory:' : resolve(path);
    if (!memory) mkdirSync(dirname(file), { recursive: true });
    const Libsql = loadLibsql() as new (file: string) => Connection;
    const db = new Libsql(file);
    try {
      setUpConnection(db, !memory);
      migrate(db);
      return new Database(db, file);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** Account id for a key hash, created on first use. */
  account(keyHash: string, now: number): number {
    const known = this.#s.accountId.get(keyHash) as { id: number } | undefined;
    if (known) return known.id;
    this.#wrote();
    this.#s.insertAccount.run(keyHash, now);
    return (this.#s.accountId.get(keyHash) as { id: number }).id;
  }

  // ---- links ------------------------------------------------------------

  /** Inserts a link unless its code is taken or retired; null means "pick another code". */
  insertLink(l: NewLink): number | null {
    this.#wrote();
    try {
      const r = this.#s.insertLink.run(
        l.accountId,
        l.code,
        l.fullLink,
        l.status,
        l.moderatorStatus,
        l.moderatorComment,
        l.comment,
        l.expirationDate,
        l.expiresTs,
        l.campaignId,
        l.now,
        l.now,
        l.code,
      );
      return r.changes === 1 ? Number(r.lastInsertRowid) : null;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return null;
      throw err;
    }
  }

  linkById(accountId: number, id: number): LinkRow | undefined {
    const cache = this.#linkCache;
    const key = `${accountId}/${id}`;
    const hit = cache?.get(key);
    if (hit) return hit;
    const r = this.#s.linkById.get(id, accountId) as Raw | undefined;
    const row = r && linkRow(r);
    if (row && cache) {
      if (cache.size >= LINK_CACHE_LIMIT) cache.clear();
      cache.set(key, row);
    }
    return row;
  }

  linkByCode(accountId: number, code: string): LinkRow | undefined {
    const r = this.#s.linkByCode.get(code, accountId) as Raw | undefined;
    return r && linkRow(r);
  }

  /** Any account's link, for the redirect. */
  linkForVisit(code: string): LinkRow | undefined {
    const r = this.#s.linkForVisit.get(code) as Raw | undefined;
    return r && linkRow(r);
  }

  updateLink(
    accountId: number,
    id: number,
    u: { status: number | null; comment: string | null; setComment: boolean; expirationDate: string | null; expiresTs: number | null; now: number },
  ): boolean {
    this.#wrote();
    const r = this.#s.updateLink.run(u.status, u.expirationDate, u.expiresTs, u.setComment ? 1 : 0, u.comment, u.now, id, accountId);
    return r.changes === 1;
  }

  /** Deletes the account's links among `ids`; returns the ids deleted. Their codes are retired. */
  deleteLinks(accountId: number, ids: number[]): Set<number> {
    const json = JSON.stringify(ids);
    this.#wrote();
    return this.#tx.deleteLinks.immediate(accountId, json);
  }

  recordVisit(linkId: number, ts: number, redirected: boolean): void {
    this.#wrote();
    this.#tx.visit(linkId, ts, redirected ? 1 : 0);
  }

  /** Of `ids`, the ones that are this account's links. */
  ownedLinkIds(accountId: number, ids: number[]): Set<number> {
    const rows = this.#s.ownedLinks.all(accountId, JSON.stringify(ids)) as Array<{ id: number }>;
    return new Set(rows.map((r) => r.id));
  }

  /** Clicks per minute of one link in [from, to): minute number, clicks, redirects. */
  clicksPerMinute(linkId: number, from: number, to: number): Array<{ m: number; c: number; r: number }> {
    return (this.#s.clicksPerMinute.all(linkId, from, to) as Array<Record<string, number>>).map((x) => ({ m: x.m, c: x.c, r: x.r }));
  }

  campaignExists(accountId: number, campaignId: number): boolean {
    return this.#s.campaignExists.get(campaignId, accountId) !== undefined;
  }

  campaignLinks(accountId: number, campaignId: number): LinkRow[] {
    return (this.#s.campaignLinks.all(campaignId, accountId) as Raw[]).map(linkRow);
  }

  listLinks(accountId: number, q: ListQuery): { rows: LinkRow[]; total: number } {
    return this.#list('links', LINK_COLUMNS, accountId, q, linkRow);
  }

  // ---- messages -----------------------------------------------------------

  /** Creates a campaign, its shortened links (built by `links` once the campaign id is known) and its message, atomically. */
  send(
    accountId: number,
    name: string | null,
    now: number,
    build: (campaignId: number) => Omit<NewMessage, 'campaignId' | 'accountId'>,
  ): { campaignId: number; messageId: number } {
    this.#wrote();
    return this.#tx.send.immediate(accountId, name, now, build);
  }

  /** Applies every planned lifecycle stage that is due; cheap when none is. */
  advance(now: number): number {
    if (this.#s.anyDue.get(now) === undefined) return 0;
    this.#wrote();
    return this.#s.advance.run({ now }).changes;
  }

  messageStatuses(accountId: number, ids: number[]): MessageRow[] {
    return (this.#s.messageStatuses.all(JSON.stringify(ids), accountId) as Raw[]).map(messageRow);
  }

  listMessages(accountId: number, q: ListQuery): { rows: MessageRow[]; total: number } {
    return this.#list('messages', MESSAGE_COLUMNS, accountId, q, messageRow);
  }

  /**
   * A number that changes when another connection, of this process or
   * another, commits to the database (PRAGMA data_version; this Database's own
   * writes leave it as is): the inspector's pages learn of `--sandbox`
   * commands' writes from it.
   */
  dataVersion(): number {
    return (this.#s.dataVersion.get() as [number])[0];
  }

  /** Counts rows of a table, for tests and the sandbox. */
  count(table: 'links' | 'messages' | 'clicks' | 'campaigns'): number {
    return (this.#s.counts[table].get() as { n: number }).n;
  }

  /** Empties every table (sandbox reset); the schema stays. */
  reset(): void {
    this.#wrote();
    this.#db.transaction(() => {
      for (const table of ['links', 'retired_codes', 'clicks', 'campaigns', 'messages', 'accounts']) this.#db.exec(`DELETE FROM ${table}`);
      this.#db.exec(`DELETE FROM sqlite_sequence`);
    }).immediate();
  }

  // ---- inspector, control API and seed files -----------------------------------

  /**
   * Rows of a read-only query of the inspector and the control API
   * (src/emulator/inspect.ts): fixed SQL text, values always bound.
   */
  select(sql: string, params: SqlValue[] = []): Array<Record<string, unknown>> {
    return this.#statement(sql).all(...params) as Array<Record<string, unknown>>;
  }

  /** A campaign without a message (seed files); returns its id. */
  insertCampaign(accountId: number, name: string | null, now: number): number {
    this.#wrote();
    return Number(this.#s.insertCampaign.run(accountId, name, now).lastInsertRowid);
  }

  // ---- internals ------------------------------------------------------------

  #statement(sql: string, raw = false): Statement {
    let st = this.#dynamic.get(sql);
    if (st) {
      this.#dynamic.delete(sql);
    } else {
      st = this.#db.prepare(sql);
      if (raw) st.raw(true);
      if (this.#dynamic.size >= STATEMENT_CACHE_LIMIT) this.#dynamic.delete(this.#dynamic.keys().next().value!);
    }
    this.#dynamic.set(sql, st);
    return st;
  }

  #list<T>(table: string, columns: string, accountId: number, q: ListQuery, map: (r: Raw) => T): { rows: T[]; total: number } {
    const where = ['account_id = ?', ...q.where].join(' AND ');
    const params: SqlValue[] = [accountId, ...q.params];
    const total = (this.#statement(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...params) as { n: number }).n;
    const rows =
      q.offset >= total
        ? []
        : (this.#statement(`SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY ${q.orderBy} LIMIT ? OFFSET ?`, true).all(
            ...params,
            q.limit,
            q.offset,
          ) as Raw[]);
    return { rows: rows.map(map), total };
  }

  #txCache: ReturnType<typeof transactions> | undefined;
  get #tx(): ReturnType<typeof transactions> {
    this.#txCache ??= transactions(this.#db, this.#s);
    return this.#txCache;
  }
}

/** The schema version a database records; 0 for a new one. */
function schemaVersion(db: Connection): number {
  const known = db.prepare("SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (known === undefined) return 0;
  const current = (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  if (current > SCHEMA_VERSION) {
    throw new SchemaTooNewError(`the database was written by a newer smslink (schema ${current}, this one knows ${SCHEMA_VERSION})`);
  }
  return current;
}

function migrate(db: Connection): void {
  // A database that is up to date is only read: no write lock for the many processes that open the sandbox.
  if (schemaVersion(db) === SCHEMA_VERSION) return;
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  db.transaction(() => {
    // Read again under the write lock: another process may have migrated meanwhile.
    const current = schemaVersion(db);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.prepare('DELETE FROM schema_version').run();
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(m.version);
    }
  }).immediate();
}

/** The stage CASE: the last planned stage whose time has come. */
function stageCase(pick: (i: number) => string, otherwise: string): string {
  const arms = [4, 3, 2, 1, 0].map((i) => `WHEN t${i} <= :now THEN ${pick(i)}`).join(' ');
  return `CASE ${arms} ELSE ${otherwise} END`;
}

/** An object whose every member is made on first use, then kept. */
function lazily<T extends object>(makers: { [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const key of Object.keys(makers) as Array<keyof T>) {
    Object.defineProperty(out, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = makers[key]();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return out;
}

/** Every fixed statement, prepared on first use: a command of the sandbox makes one request, which needs two or three. */
function prepareAll(db: Connection) {
  const p = (sql: string) => () => db.prepare(sql);
  /** A statement whose rows come back as arrays. */
  const rows = (sql: string) => () => db.prepare(sql).raw(true);
  return lazily({
    insertAccount: p('INSERT OR IGNORE INTO accounts (key_hash, created_ts) VALUES (?, ?)'),
    accountId: p('SELECT id FROM accounts WHERE key_hash = ?'),
    insertLink: p(
      `INSERT INTO links (account_id, code, full_link, status, moderator_status, moderator_comment, comment, expiration_date, expires_ts, campaign_id, create_ts, update_ts)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM retired_codes WHERE code = ?)`,
    ),
    linkById: rows(`SELECT ${LINK_COLUMNS} FROM links WHERE id = ? AND account_id = ?`),
    linkByCode: rows(`SELECT ${LINK_COLUMNS} FROM links WHERE code = ? AND account_id = ?`),
    linkForVisit: rows(`SELECT ${LINK_COLUMNS} FROM links WHERE code = ?`),
    updateLink: p(
      `UPDATE links SET status = coalesce(?, status), expiration_date = ?, expires_ts = ?,
         comment = CASE WHEN ? = 1 THEN ? ELSE comment END, update_ts = ?
       WHERE id = ? AND account_id = ?`,
    ),
    ownedLinks: p('SELECT id FROM links WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))'),
    retireCodes: p('INSERT OR IGNORE INTO retired_codes (code) SELECT code FROM links WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))'),
    deleteClicks: p('DELETE FROM clicks WHERE link_id IN (SELECT id FROM links WHERE account_id = ? AND id IN (SELECT value FROM json_each(?)))'),
    deleteLinks: p('DELETE FROM links WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))'),
    insertClick: p('INSERT INTO clicks (link_id, ts, redirected) VALUES (?, ?, ?)'),
    countClick: p('UPDATE links SET click_cnt = click_cnt + 1, redirect_cnt = redirect_cnt + ? WHERE id = ?'),
    clicksPerMinute: p(
      'SELECT ts / 60000 AS m, count(*) AS c, sum(redirected) AS r FROM clicks WHERE link_id = ? AND ts >= ? AND ts < ? GROUP BY m ORDER BY m',
    ),
    campaignExists: p('SELECT 1 AS one FROM campaigns WHERE id = ? AND account_id = ?'),
    campaignLinks: rows(`SELECT ${LINK_COLUMNS} FROM links WHERE campaign_id = ? AND account_id = ? ORDER BY id`),
    insertCampaign: p('INSERT INTO campaigns (account_id, name, create_ts) VALUES (?, ?, ?)'),
    insertMessage: p(
      `INSERT INTO messages (account_id, campaign_id, uuid, sender, recipient, text, seg_num, seg_price, groups, status,
         start_send_ts, status_update_ts, campaign_status, campaign_create_ts, campaign_sent_ts, deferred_ts, validity_min,
         t0, s0, c0, t1, s1, c1, t2, s2, c2, t3, s3, c3, t4, s4, c4, next_ts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    dataVersion: rows('PRAGMA data_version'),
    anyDue: p('SELECT 1 AS one FROM messages WHERE next_ts <= ? LIMIT 1'),
    advance: p(
      `UPDATE messages SET
         status = ${stageCase((i) => `s${i}`, 'status')},
         campaign_status = ${stageCase((i) => `c${i}`, 'campaign_status')},
         status_update_ts = ${stageCase((i) => (i === 0 ? 'status_update_ts' : `t${i}`), 'status_update_ts')},
         start_send_ts = CASE WHEN t1 <= :now THEN t1 ELSE start_send_ts END,
         campaign_sent_ts = CASE WHEN t1 <= :now THEN t1 ELSE campaign_sent_ts END,
         next_ts = CASE ${[0, 1, 2, 3, 4].map((i) => `WHEN t${i} > :now THEN t${i}`).join(' ')} ELSE NULL END
       WHERE next_ts <= :now`,
    ),
    messageStatuses: rows(
      `SELECT ${MESSAGE_COLUMNS.split(', ')
        .map((c) => `m.${c}`)
        .join(', ')} FROM json_each(?) AS j JOIN messages AS m ON m.id = j.value AND m.account_id = ? GROUP BY m.id ORDER BY min(j.key)`,
    ),
    counts: () =>
      lazily({
        links: p('SELECT count(*) AS n FROM links'),
        messages: p('SELECT count(*) AS n FROM messages'),
        clicks: p('SELECT count(*) AS n FROM clicks'),
        campaigns: p('SELECT count(*) AS n FROM campaigns'),
      }),
  });
}

function transactions(db: Connection, s: ReturnType<typeof prepareAll>) {
  return {
    deleteLinks: db.transaction((accountId: number, json: string) => {
      const owned = new Set((s.ownedLinks.all(accountId, json) as Array<{ id: number }>).map((r) => r.id));
      if (owned.size > 0) {
        s.retireCodes.run(accountId, json);
        s.deleteClicks.run(accountId, json);
        s.deleteLinks.run(accountId, json);
      }
      return owned;
    }),
    visit: db.transaction((linkId: number, ts: number, redirected: number) => {
      s.insertClick.run(linkId, ts, redirected);
      s.countClick.run(redirected, linkId);
    }),
    send: db.transaction(
      (accountId: number, name: string | null, now: number, build: (campaignId: number) => Omit<NewMessage, 'campaignId' | 'accountId'>) => {
        const campaignId = Number(s.insertCampaign.run(accountId, name, now).lastInsertRowid);
        const m = build(campaignId);
        const st = m.plan.stages;
        const messageId = Number(
          s.insertMessage.run(
            accountId,
            campaignId,
            m.uuid,
            m.sender,
            m.recipient,
            m.text,
            m.segNum,
            m.segPrice,
            m.plan.status,
            m.plan.campaignStatus,
            m.now,
            m.deferredTs,
            m.validityMin,
            ...st.flatMap((x) => [x?.t ?? null, x?.status ?? null, x?.campaign ?? null]),
            m.plan.nextTs,
          ).lastInsertRowid,
        );
        return { campaignId, messageId };
      },
    ),
  };
}
