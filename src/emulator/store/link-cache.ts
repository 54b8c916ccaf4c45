// The read cache of Link/Get by id, for a private in-memory database only
// (`serve --db :memory:`, the tests' emulators), where this process makes
// every write and so knows when a row read before is no longer true; a file
// may be written by other processes, so there every read asks SQLite.
// docs/performance.md says what it buys; `node bench/inspector.js` measures it.

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
