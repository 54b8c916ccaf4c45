// Every SQL statement of the emulator's database but the read-only queries
// of the inspector (inspect.ts): the fixed ones, each prepared when first
// used (a `--sandbox` command makes one request, which needs two or three),
// the transactions that write several tables, and a small cache of the
// statements whose text is assembled at run time (the List operations').

import type { Connection, Statement } from './connection.js';
import { LINK_COLUMNS, MESSAGE_COLUMNS, type NewMessage } from './rows.js';

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

/** Every fixed statement, prepared on first use. */
export function prepareStatements(db: Connection) {
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
    messageSlots: p('SELECT status, t0, s0, c0, t1, s1, c1, t2, s2, c2, t3, s3, c3, t4, s4, c4 FROM messages WHERE id = ?'),
    replanMessage: p(
      `UPDATE messages SET t0 = ?, s0 = ?, c0 = ?, t1 = ?, s1 = ?, c1 = ?, t2 = ?, s2 = ?, c2 = ?, t3 = ?, s3 = ?, c3 = ?, t4 = ?, s4 = ?, c4 = ?, next_ts = ?
       WHERE id = ?`,
    ),
    dataVersion: rows('PRAGMA data_version'),
    ping: p('SELECT 1 AS one'),
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
    // Stages still ahead come due now, in their order; a seeded message's never-coming stage stays (seed-apply.ts).
    deliverNow: p(
      `UPDATE messages SET ${[0, 1, 2, 3, 4].map((i) => `t${i} = CASE WHEN t${i} > :now AND t${i} < :never THEN :now ELSE t${i} END`).join(', ')}, next_ts = :now
       WHERE next_ts IS NOT NULL AND next_ts > :now AND next_ts < :never`,
    ),
    // CROSS JOIN keeps the ids the outer loop: each is one lookup by primary key. With a plain JOIN
    // SQLite walked the account's messages instead, a cost that grew with the account (node bench/mirror.js).
    messageStatuses: rows(
      `SELECT ${MESSAGE_COLUMNS.split(', ')
        .map((c) => `m.${c}`)
        .join(', ')} FROM json_each(?) AS j CROSS JOIN messages AS m ON m.id = j.value AND m.account_id = ? GROUP BY m.id ORDER BY min(j.key)`,
    ),
    spent: p('SELECT coalesce(sum(seg_num * seg_price), 0) AS spent FROM messages WHERE account_id = ?'),
    counts: () =>
      lazily({
        links: p('SELECT count(*) AS n FROM links'),
        messages: p('SELECT count(*) AS n FROM messages'),
        clicks: p('SELECT count(*) AS n FROM clicks'),
        campaigns: p('SELECT count(*) AS n FROM campaigns'),
      }),
  });
}

export function transactions(db: Connection, s: Statements) {
  return {
    /** Empties every table; the schema stays. */
    reset: db.transaction(() => {
      for (const table of ['links', 'retired_codes', 'clicks', 'campaigns', 'messages', 'accounts']) db.exec(`DELETE FROM ${table}`);
      db.exec('DELETE FROM sqlite_sequence');
    }),
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

export type Statements = ReturnType<typeof prepareStatements>;
export type Transactions = ReturnType<typeof transactions>;

/** Statements made from SQL text at run time, the most recently used kept. */
export class StatementCache {
  static readonly LIMIT = 256;
  readonly #kept = new Map<string, Statement>();

  constructor(private readonly db: Connection) {}

  /** The statement of `sql`; `raw` ones give rows as arrays. */
  get(sql: string, raw = false): Statement {
    let st = this.#kept.get(sql);
    if (st) {
      this.#kept.delete(sql);
    } else {
      st = this.db.prepare(sql);
      if (raw) st.raw(true);
      if (this.#kept.size >= StatementCache.LIMIT) this.#kept.delete(this.#kept.keys().next().value!);
    }
    this.#kept.set(sql, st);
    return st;
  }
}
