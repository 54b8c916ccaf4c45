// The emulator's state in SQLite (libsql): every read and write the handlers,
// the redirect, seed files and the test bench make, as methods. Parameters
// are always bound, never spliced into SQL; the only SQL built at run time is
// that of the List operations (pager.ts), made from fixed fragments. Opening
// is connection.ts's, the schema schema.ts's, the SQL statements.ts's.

import { databasePath, openConnection, type Connection, type SqlValue } from './connection.js';
import { LinkCache } from './link-cache.js';
import type { ListQuery } from './list-query.js';
import { Pager } from './pager.js';
import { LINK_COLUMNS, linkRow, MESSAGE_COLUMNS, messageRow, type LifecyclePlan, type LinkRow, type MessageRow, type NewLink, type NewMessage, type Raw, type Stage } from './rows.js';
import { migrate } from './schema.js';
import { prepareStatements, StatementCache, transactions, type Statements, type Transactions } from './statements.js';

export class Database {
  readonly #conn: Connection;
  readonly #dynamic: StatementCache;
  /** ':memory:', or the file's absolute path. */
  readonly path: string;
  readonly #s: Statements;
  /** Only for a private in-memory database, whose every write this process makes (link-cache.ts). */
  readonly #linkCache: LinkCache | null;
  readonly #pager: Pager;
  /** data_version when the pager was last known true: other processes' writes change it (a database file). */
  #seenVersion = -1;
  /** Told after each message this connection stores (waiting readers of the control API). */
  #onMessage: (() => void) | null = null;

  constructor(db: Connection, path: string) {
    this.#conn = db;
    this.path = path;
    this.#s = prepareStatements(db);
    this.#dynamic = new StatementCache(db);
    this.#linkCache = path === ':memory:' ? new LinkCache() : null;
    this.#pager = new Pager(this.#dynamic);
  }

  /** Every write calls this: cached reads are no longer true. */
  #wrote(): void {
    this.#linkCache?.clear();
    this.#pager.forget();
  }

  /** Before the pager answers from what it keeps: a database file may have been written by another process. */
  #noticeOthers(): void {
    if (this.path === ':memory:') return;
    const version = this.dataVersion();
    if (version === this.#seenVersion) return;
    this.#seenVersion = version;
    this.#pager.forget();
  }

  /** Opens (creating if needed) and migrates the database. ':memory:' gives a private, empty one. */
  static open(path: string): Database {
    const file = databasePath(path);
    const db = openConnection(file);
    try {
      migrate(db);
      return new Database(db, file);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  close(): void {
    if (this.#conn.open) this.#conn.close();
  }

  /** Why the database cannot be read now (closed, or a read fails), or null when it can: the emulator's readiness. */
  problem(): string | null {
    if (!this.#conn.open) return 'the database is closed';
    try {
      this.#s.ping.get();
      return null;
    } catch (err) {
      return `the database cannot be read: ${(err as Error).message}`;
    }
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
    const read = () => {
      const r = this.#s.linkById.get(id, accountId) as Raw | undefined;
      return r && linkRow(r);
    };
    return this.#linkCache ? this.#linkCache.get(accountId, id, read) : read();
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
    const sent = this.#tx.send.immediate(accountId, name, now, build);
    this.#onMessage?.();
    return sent;
  }

  /** `fn` is told after each message stored through this connection (one listener; null removes it). */
  onMessage(fn: (() => void) | null): void {
    this.#onMessage = fn;
  }

  /** One message's status and its five planned slots (lifecycle.ts), any account's; undefined when there is none. */
  messageSlots(id: number): { status: string; slots: Array<Stage | null> } | undefined {
    const r = this.#s.messageSlots.get(id) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    const slots = [0, 1, 2, 3, 4].map((i) => (r[`t${i}`] === null ? null : { t: r[`t${i}`] as number, status: r[`s${i}`] as string, campaign: r[`c${i}`] as string }));
    return { status: r.status as string, slots };
  }

  /** Replaces a message's planned slots and applies what is due at `now`. */
  replanMessage(id: number, stages: LifecyclePlan['stages'], now: number): void {
    this.#wrote();
    this.#s.replanMessage.run(...stages.flatMap((x) => [x?.t ?? null, x?.status ?? null, x?.campaign ?? null]), now, id);
    this.advance(now);
  }

  /** Applies every planned lifecycle stage that is due; cheap when none is. */
  advance(now: number): number {
    if (this.#s.anyDue.get(now) === undefined) return 0;
    this.#wrote();
    return this.#s.advance.run({ now }).changes;
  }

  /**
   * Brings every planned stage still ahead forward to `now` and applies it:
   * each message on its way gets its final status without the clock moving.
   * Returns how many messages changed.
   */
  deliverNow(now: number): number {
    this.advance(now);
    this.#wrote();
    const moved = this.#s.deliverNow.run({ now, never: Number.MAX_SAFE_INTEGER }).changes;
    if (moved > 0) this.advance(now);
    return moved;
  }

  messageStatuses(accountId: number, ids: number[]): MessageRow[] {
    return (this.#s.messageStatuses.all(JSON.stringify(ids), accountId) as Raw[]).map(messageRow);
  }

  listMessages(accountId: number, q: ListQuery): { rows: MessageRow[]; total: number } {
    return this.#list('messages', MESSAGE_COLUMNS, accountId, q, messageRow);
  }

  /** What the account's messages cost: segments times the price of one, summed. */
  spent(accountId: number): number {
    return (this.#s.spent.get(accountId) as { spent: number }).spent;
  }

  /**
   * A number that changes when another connection, of this process or
   * another, commits to the database (PRAGMA data_version; this one's own
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
    this.#tx.reset.immediate();
  }

  // ---- inspector, control API and seed files -----------------------------------

  /**
   * Rows of a read-only query of the inspector and the control API
   * (src/emulator/inspector/inspect.ts): fixed SQL text, values always bound.
   */
  select(sql: string, params: SqlValue[] = []): Array<Record<string, unknown>> {
    return this.#dynamic.get(sql).all(...params) as Array<Record<string, unknown>>;
  }

  /** A campaign without a message (seed files); returns its id. */
  insertCampaign(accountId: number, name: string | null, now: number): number {
    this.#wrote();
    return Number(this.#s.insertCampaign.run(accountId, name, now).lastInsertRowid);
  }

  // ---- internals ------------------------------------------------------------

  #list<T>(table: string, columns: string, accountId: number, q: ListQuery, map: (r: Raw) => T): { rows: T[]; total: number } {
    this.#noticeOthers();
    const { rows, total } = this.#pager.list(table, columns, accountId, q);
    return { rows: rows.map(map), total };
  }

  #txCache: Transactions | undefined;
  get #tx(): Transactions {
    this.#txCache ??= transactions(this.#conn, this.#s);
    return this.#txCache;
  }
}
