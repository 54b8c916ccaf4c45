// Readers of the control API waiting for a message (GET /_emulator/messages
// with wait=): each is answered as soon as a message it matches is stored,
// or when its wait runs out. A message this process stores wakes them at
// once; one another process writes to the same database file (a --sandbox
// command beside `serve`) is noticed by the file's data version.

import type { Database } from '../store/database.js';

/** The longest a reader may wait, in ms: a test waits seconds, and a held connection is not free. */
export const MAX_WAIT_MS = 300_000;
/** Readers waiting at once; one more is told to come back (HTTP 503). */
export const MAX_WAITERS = 256;
/** How often a database file is looked at for other processes' messages, while someone waits. */
const COMMIT_POLL_MS = 250;

interface Waiter {
  /** Looks for what the reader asked for: an answer when there is one. */
  look(): unknown;
  /** The answer when nothing was found in time. */
  timedOut(): unknown;
  resolve(answer: unknown): void;
}

export class WaitersFull extends Error {}

export class Waiters {
  readonly #waiting = new Set<Waiter>();
  #scheduled = false;
  #poll: NodeJS.Timeout | null = null;
  #dataVersion = 0;
  #closed = false;

  constructor(private readonly db: Database) {
    db.onMessage(() => this.#wake());
  }

  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Resolves with what `look` finds as soon as it finds anything (after a
   * message is stored), or with `timedOut()` after `ms`, or when the signal
   * aborts (the reader went away) or the emulator closes.
   */
  wait<T>(look: () => T | undefined, ms: number, timedOut: () => T, signal?: AbortSignal): Promise<T> {
    if (this.#closed || this.#waiting.size >= MAX_WAITERS) return Promise.reject(new WaitersFull());
    return new Promise<T>((resolve) => {
      const done = (answer: T) => {
        if (!this.#waiting.delete(waiter)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        if (this.#waiting.size === 0) this.#stopPolling();
        resolve(answer);
      };
      const waiter: Waiter = { look, timedOut, resolve: (answer) => done(answer as T) };
      const timer = setTimeout(() => done(timedOut()), ms);
      const gone = () => done(timedOut());
      signal?.addEventListener('abort', gone, { once: true });
      this.#waiting.add(waiter);
      this.#startPolling();
    });
  }

  /** Answers every reader with what there is now (the emulator is closing); later waits are refused. */
  close(): void {
    this.#closed = true;
    this.db.onMessage(null);
    for (const w of [...this.#waiting]) w.resolve(w.look() ?? w.timedOut());
    this.#stopPolling();
  }

  /** A message was stored: the readers look again, once for a burst of messages, after the request that stored it. */
  #wake(): void {
    if (this.#waiting.size === 0 || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      for (const w of [...this.#waiting]) {
        const answer = w.look();
        if (answer !== undefined) w.resolve(answer);
      }
    });
  }

  #startPolling(): void {
    if (this.#poll !== null || this.db.path === ':memory:') return;
    this.#dataVersion = this.db.dataVersion();
    this.#poll = setInterval(() => {
      const version = this.db.dataVersion();
      if (version === this.#dataVersion) return;
      this.#dataVersion = version;
      this.#wake();
    }, COMMIT_POLL_MS);
  }

  #stopPolling(): void {
    if (this.#poll !== null) clearInterval(this.#poll);
    this.#poll = null;
  }
}
