// How the journal knows a row (docs/bulk.md, "Journals"): by what it sends, a
// digest of its request's values, so rows inserted, removed or moved around
// it never make it look new; the n-th row with the same values is `digest.n`.
// Apart from that a row has a recipient (a message) or a full link (a link):
// what tells a row sent before and changed since from one never sent.

import { hash } from 'node:crypto';
import { DigestTable, digestWords } from './digest-table.js';

/** What the journal records of a row. */
export type RowState = 'sending' | 'done' | 'failed' | 'unknown' | 'invalid';

/** A row's request values as one canonical JSON text (keys sorted): what the journal keeps to look the row up. */
export function canonical(values: Record<string, unknown>): string {
  return JSON.stringify(values, Object.keys(values).sort());
}

/** 132 bits of sha256 in 22 characters. crypto.hash builds no Hash object. */
export function digestOf(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 22);
}

/** The key of the n-th row (from 1) with these values. */
export function rowKey(canonicalValues: string, n = 1): string {
  const digest = digestOf(canonicalValues);
  return n === 1 ? digest : `${digest}.${n}`;
}

/**
 * What makes two rows with other values the same row, changed: a message's
 * recipient (its digits), a link's full link. A row sent before and one
 * never sent with the same `sameRow` are taken for one row, edited.
 */
export function sameRowOf(command: string): (input: Record<string, unknown>) => string {
  if (command === 'message send') return (input) => `to:${String(input.recipient ?? '').replace(/\D/g, '')}`;
  return (input) => `link:${String(input.fullLink ?? '')}`;
}

const CODES: Record<RowState, number> = { sending: 1, done: 2, failed: 3, unknown: 4, invalid: 5 };
const NAMES: ReadonlyArray<RowState | undefined> = [undefined, 'sending', 'done', 'failed', 'unknown', 'invalid'];
/** A row an earlier run sent, or may have: what a rerun never sends again unasked. */
export const wasSent = (state: RowState | undefined) => state === 'done' || state === 'sending' || state === 'unknown';

// A digest's word in the table: the state of its first row in the journal (3 bits), two marks, and the count of rows.
const STATE = 7;
/** The journal's row is sent and no row of the input has its values now: gone (changed or removed). */
const GONE = 8;
/** A gone row already paired with a row of the input (changed.ts). */
const PAIRED = 16;
const COUNT_SHIFT = 5;
/** The state and the marks, below the count. */
const LOW = (1 << COUNT_SHIFT) - 1;
const COUNT_MAX = 2 ** (32 - COUNT_SHIFT) - 1;

/**
 * Every row of the input and of the journal by its digest, in a compact
 * table: how many rows of this input came with each digest so far (which
 * makes their keys), and what earlier runs recorded for them. The state of
 * a second, third... row with the same values sits in a Map of its own: few
 * files repeat a row.
 */
export class RowIndex {
  readonly #table = new DigestTable(1);
  /** Earlier runs' states of keys `digest.n` with n > 1 (with GONE and PAIRED). */
  readonly #later = new Map<string, number>();
  readonly #words = new Uint32Array(3);

  /** The key of the next row with these values (canonical JSON), counting rows with the same values. */
  key(canonicalValues: string): string {
    const digest = digestOf(canonicalValues);
    const slot = this.#table.find(digestWords(digest, this.#words), true);
    const word = this.#table.get(slot, 0);
    const n = (word >>> COUNT_SHIFT) + 1;
    if (n > COUNT_MAX) throw new Error(`more than ${COUNT_MAX} rows with the same values`);
    this.#table.set(slot, 0, (n << COUNT_SHIFT) | (word & LOW));
    return n === 1 ? digest : `${digest}.${n}`;
  }

  /** Counts rows from the start again: the input is read once more, and its rows get the same keys. */
  restartCounts(): void {
    const table = this.#table;
    table.forEach((slot) => table.set(slot, 0, table.get(slot, 0) & LOW));
  }

  /** The word of a key: its slot's (first row) or the later Map's; undefined for a key the index never saw. */
  #word(key: string): { slot: number; later?: string; word: number } | undefined {
    const dot = key.indexOf('.', 16);
    if (dot < 0) {
      const slot = this.#table.find(digestWords(key, this.#words), false);
      return slot < 0 ? undefined : { slot, word: this.#table.get(slot, 0) };
    }
    const word = this.#later.get(key);
    return word === undefined ? undefined : { slot: -1, later: key, word };
  }

  #setWord(key: string, word: number): void {
    const dot = key.indexOf('.', 16);
    if (dot >= 0) {
      this.#later.set(key, word);
      return;
    }
    const slot = this.#table.find(digestWords(key, this.#words), true);
    this.#table.set(slot, 0, (this.#table.get(slot, 0) & ~LOW) | (word & LOW));
  }

  /** What earlier runs recorded for a key. Throws on a key that is no digest (journal.ts skips such a line). */
  state(key: string): RowState | undefined {
    const w = this.#word(key);
    return w ? NAMES[w.word & STATE] : undefined;
  }

  setState(key: string, state: RowState): void {
    this.#setWord(key, CODES[state]);
  }

  /** Forgets every state (--fresh). */
  clearStates(): void {
    const table = this.#table;
    table.forEach((slot) => table.set(slot, 0, table.get(slot, 0) & ~LOW));
    this.#later.clear();
  }

  /** Calls `fn` with the state of every row earlier runs recorded. */
  forEachState(fn: (state: RowState) => void): void {
    const table = this.#table;
    table.forEach((slot) => {
      const state = NAMES[table.get(slot, 0) & STATE];
      if (state) fn(state);
    });
    for (const word of this.#later.values()) fn(NAMES[word & STATE]!);
  }

  /**
   * Once every row of the input was counted: marks the rows earlier runs
   * sent whose values no row of the input has now (a key `digest.n` with
   * fewer than n rows of that digest). Returns how many.
   */
  markGone(): number {
    let gone = 0;
    const table = this.#table;
    table.forEach((slot) => {
      const word = table.get(slot, 0);
      const sent = wasSent(NAMES[word & STATE]);
      if (sent && word >>> COUNT_SHIFT === 0) gone += 1;
      table.set(slot, 0, sent && word >>> COUNT_SHIFT === 0 ? word | GONE : word & ~GONE);
    });
    for (const [key, word] of this.#later) {
      const n = Number(key.slice(key.indexOf('.', 16) + 1));
      const first = table.find(digestWords(key, this.#words), false);
      const count = first < 0 ? 0 : table.get(first, 0) >>> COUNT_SHIFT;
      const isGone = wasSent(NAMES[word & STATE]) && count < n;
      if (isGone) gone += 1;
      this.#later.set(key, isGone ? word | GONE : word & ~GONE);
    }
    return gone;
  }

  /** Whether a key is a row markGone() found gone, not paired with a row of the input yet. */
  isGone(key: string): boolean {
    const w = this.#word(key);
    return w !== undefined && (w.word & (GONE | PAIRED)) === GONE;
  }

  /** Pairs a gone row with a row of the input (changed.ts): it is not paired again. */
  pairGone(key: string): void {
    const w = this.#word(key);
    if (!w) return;
    if (w.later) this.#later.set(w.later, w.word | PAIRED);
    else this.#table.set(w.slot, 0, w.word | PAIRED);
  }
}
