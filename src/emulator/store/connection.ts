// Opening the emulator's database, so that any number of processes can open
// one file at the same instant (`serve`, the tests' emulators, every
// `--sandbox` command): the busy timeout, then WAL, retried; and libsql's
// connection as this code uses it. docs/architecture.md says why the switch
// to WAL is retried.

import { resolve } from 'node:path';
import { privateDatabase } from '../../private-files.js';
import { loadLibsql } from './libsql.js';

/** How long an open, or any statement, waits for other processes' locks. */
export const BUSY_TIMEOUT_MS = 10_000;

export type SqlValue = string | number | bigint | null;
type Params = SqlValue[] | [Record<string, SqlValue>];

export interface Statement {
  raw(on: boolean): Statement;
  run(...params: Params): { changes: number; lastInsertRowid: number | bigint };
  get(...params: Params): unknown;
  all(...params: Params): unknown[];
}

export interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}

/**
 * A libsql connection (better-sqlite3's API). Its quirks: stmt.get() adds an
 * enumerable `_metadata` key to rows (rows are mapped column by column, never
 * spread into answers), binding a boolean aborts the process (only numbers,
 * strings and null are bound), and strings are cut at a NUL (the wire refuses NUL).
 */
export interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  close(): void;
  readonly open: boolean;
}

/** The path a database is known by: ':memory:' (also for '') or the file's absolute path. */
export function databasePath(path: string): string {
  return path === ':memory:' || path === '' ? ':memory:' : resolve(path);
}

/**
 * Opens a connection (creating the file, 0600, and its directory, 0700, if
 * needed) and sets it up. A file that is not the user's alone is refused
 * before SQLite opens it (src/private-files.ts): it holds an account's numbers and texts.
 */
export function openConnection(path: string): Connection {
  const memory = path === ':memory:';
  if (!memory) privateDatabase(path);
  const Libsql = loadLibsql() as new (file: string) => Connection;
  const db = new Libsql(path);
  try {
    setUpConnection(db, !memory);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Sets up a connection just opened: busy timeout, then, for a file, WAL and its sync level. */
function setUpConnection(db: Connection, file: boolean): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!file) return;
  switchToWal(db, Date.now() + BUSY_TIMEOUT_MS);
  db.pragma('synchronous = NORMAL');
}

/**
 * The busy timeout does not cover switching a new file to WAL: the switch
 * reads the header under a read lock, then asks for the write lock, and
 * when another process holds it (switching the same file) SQLite answers
 * SQLITE_BUSY at once, since waiting while holding a lock could deadlock
 * (https://www.sqlite.org/c3ref/busy_handler.html). Tried again once this
 * read lock is gone, the other process has usually switched the file, and
 * the switch here is a no-op (the mode is kept in the file).
 */
function switchToWal(db: Connection, deadline: number): void {
  for (let pause = 1; ; pause = Math.min(2 * pause, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() + pause > deadline) throw err;
      sleepSync(pause);
    }
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Opening is synchronous (Database.open), as SQLite's own busy wait is. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
