// The first statements of every connection, so that any number of processes
// can open one database file at the same instant: `serve`, the tests' emulator
// processes and every `--sandbox` command share one file.
//
// The busy timeout comes first: from then on a statement that meets another
// process's lock waits for it. It does not cover the switch to WAL of a file
// that is not in WAL yet (a new one): the switch reads the file's header under
// a read lock, then asks for the write lock, and when another process already
// holds that write lock (switching the same new file), SQLite answers
// SQLITE_BUSY at once, without waiting, because a process that waits for a
// lock while holding one could deadlock
// (https://www.sqlite.org/c3ref/busy_handler.html). Such a refusal is safe to
// try again once this process's read lock is gone: by then the other process
// has usually switched the file, which makes the switch here a no-op (the
// mode is kept in the file).

/** How long an open, or any statement, waits for other processes' locks. */
export const BUSY_TIMEOUT_MS = 10_000;

interface Connection {
  pragma(sql: string): unknown;
}

/** Sets up a connection just opened: busy timeout, then, for a file, WAL and its sync level. */
export function setUpConnection(db: Connection, file: boolean): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!file) return;
  switchToWal(db, Date.now() + BUSY_TIMEOUT_MS);
  db.pragma('synchronous = NORMAL');
}

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
