// The read cache of Link/Get by id, for a private in-memory database only
// (`serve --db :memory:`, the tests' emulators), where this process makes
// every write and so knows when a row read before is no longer true. A
// database file may be written by other processes (`--sandbox` commands
// while `serve` runs), so there every read asks SQLite.
//
// It serves the emulator row of `npm run bench` (Link/Get on
// `serve --db :memory:` at >= 0.5 of a bare node:http server): a libsql
// call costs more than the rest of such a request, and the rows it keeps
// let link.ts keep their serialised answers too. `node bench/inspector.js`
// prints the emulator's CPU time per request and its ratio to the bare
// server; run it with `--bin` on a build without this cache to see what it
// saves (about half the CPU a request, and the row above its budget rather
// than under it, when it was last measured).

import type { LinkRow } from './rows.js';

/** Most links kept. */
const LIMIT = 10_000;

export class LinkCache {
  readonly #rows = new Map<string, LinkRow>();

  /** The link `id` of the account: the row kept, else what `read` gives (kept). */
  get(accountId: number, id: number, read: () => LinkRow | undefined): LinkRow | undefined {
    const key = `${accountId}/${id}`;
    const hit = this.#rows.get(key);
    if (hit) return hit;
    const row = read();
    if (row) {
      if (this.#rows.size >= LIMIT) this.#rows.clear();
      this.#rows.set(key, row);
    }
    return row;
  }

  /** Every write calls this: what was read before may no longer be true. */
  clear(): void {
    if (this.#rows.size) this.#rows.clear();
  }
}
