// The emulator's database schema, as numbered migrations. A database records
// the last migration applied in schema_version; opening it applies the rest
// inside one write transaction, so processes opening the same file at once
// agree. Every List filter and sort has an index that starts with account_id.

import type { Connection } from './connection.js';

export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_hash TEXT NOT NULL UNIQUE,
  created_ts INTEGER NOT NULL
);

CREATE TABLE links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  code TEXT NOT NULL UNIQUE,
  full_link TEXT NOT NULL,
  status INTEGER NOT NULL,
  moderator_status INTEGER NOT NULL,
  moderator_comment TEXT,
  comment TEXT,
  expiration_date TEXT,
  expires_ts INTEGER,
  click_cnt INTEGER NOT NULL DEFAULT 0,
  redirect_cnt INTEGER NOT NULL DEFAULT 0,
  campaign_id INTEGER,
  create_ts INTEGER NOT NULL,
  update_ts INTEGER NOT NULL
);
CREATE INDEX links_account_create ON links (account_id, create_ts);
CREATE INDEX links_account_status ON links (account_id, status, create_ts);
CREATE INDEX links_account_moderator ON links (account_id, moderator_status, create_ts);
CREATE INDEX links_account_expiration ON links (account_id, expiration_date);
CREATE INDEX links_account_clicks ON links (account_id, click_cnt);
CREATE INDEX links_account_code ON links (account_id, code);
CREATE INDEX links_account_full ON links (account_id, full_link);
CREATE INDEX links_campaign ON links (campaign_id) WHERE campaign_id IS NOT NULL;

-- Codes of deleted links: never handed out again.
CREATE TABLE retired_codes (code TEXT PRIMARY KEY) WITHOUT ROWID;

-- One row per visit of a short link.
CREATE TABLE clicks (
  link_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  redirected INTEGER NOT NULL
);
CREATE INDEX clicks_link_ts ON clicks (link_id, ts);

CREATE TABLE campaigns (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  name TEXT,
  create_ts INTEGER NOT NULL
);

-- A single-message campaign's status lives on its message row, where the
-- lifecycle moves it and where Message/List filters and sorts by it.
-- t0..t4 are the planned stage times (NULL: stage skipped), s0..s4 the message
-- status and c0..c4 the campaign status from that time on; next_ts is the next
-- planned time not yet applied (NULL once final).
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL,
  campaign_id INTEGER NOT NULL,
  uuid TEXT NOT NULL,
  sender TEXT NOT NULL,
  recipient TEXT NOT NULL,
  text TEXT NOT NULL,
  seg_num INTEGER NOT NULL,
  seg_price REAL NOT NULL,
  groups TEXT,
  status TEXT NOT NULL,
  start_send_ts INTEGER,
  status_update_ts INTEGER,
  campaign_status TEXT NOT NULL,
  campaign_create_ts INTEGER NOT NULL,
  campaign_sent_ts INTEGER,
  deferred_ts INTEGER,
  validity_min INTEGER NOT NULL,
  t0 INTEGER NOT NULL, s0 TEXT NOT NULL, c0 TEXT NOT NULL,
  t1 INTEGER NOT NULL, s1 TEXT NOT NULL, c1 TEXT NOT NULL,
  t2 INTEGER, s2 TEXT, c2 TEXT,
  t3 INTEGER, s3 TEXT, c3 TEXT,
  t4 INTEGER, s4 TEXT, c4 TEXT,
  next_ts INTEGER
);
CREATE INDEX messages_account_id ON messages (account_id, id);
CREATE INDEX messages_account_campaign ON messages (account_id, campaign_id);
CREATE INDEX messages_account_sender ON messages (account_id, sender);
CREATE INDEX messages_account_recipient ON messages (account_id, recipient);
CREATE INDEX messages_account_text ON messages (account_id, text);
CREATE INDEX messages_account_status ON messages (account_id, status);
CREATE INDEX messages_account_campaign_status ON messages (account_id, campaign_status);
CREATE INDEX messages_account_campaign_create ON messages (account_id, campaign_create_ts);
CREATE INDEX messages_account_campaign_sent ON messages (account_id, campaign_sent_ts);
CREATE INDEX messages_account_start_send ON messages (account_id, start_send_ts);
CREATE INDEX messages_account_status_update ON messages (account_id, status_update_ts);
CREATE INDEX messages_account_segments ON messages (account_id, seg_num);
CREATE INDEX messages_due ON messages (next_ts) WHERE next_ts IS NOT NULL;
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export class SchemaTooNewError extends Error {}

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

/** Brings a database up to SCHEMA_VERSION; refuses one written by a newer smslink. */
export function migrate(db: Connection): void {
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
