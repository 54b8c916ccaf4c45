// One sync of a mirror at a time. The lock is SQLite's own: a small file
// beside the mirror held in an exclusive transaction for the whole sync. The
// operating system drops it when the process ends, however it ends, so a
// killed sync never leaves a stale lock behind (a pid file would).

import { ExitError, EXIT } from '../exit-codes.js';
import { privateDatabase } from '../private-files.js';
import { loadLibsql } from '../emulator/store/libsql.js';
import type { Connection } from '../emulator/store/connection.js';

export interface MirrorLock {
  release(): void;
}

/** Takes the sync lock of the mirror at `path`, or refuses at once when another sync holds it:
 * exit 2 (nothing was sent), as for any run that cannot start. */
export function lockMirror(path: string): MirrorLock {
  const Libsql = loadLibsql() as new (file: string) => Connection;
  privateDatabase(`${path}.lock`);
  const db = new Libsql(`${path}.lock`);
  try {
    // No waiting: a second sync is told at once, not after the first one ends.
    db.pragma('busy_timeout = 0');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
      throw new ExitError('sync: another sync of this mirror is running (same service and profile); wait for it to end, or press Ctrl-C there. Nothing was changed', EXIT.USAGE);
    }
    throw err;
  }
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
