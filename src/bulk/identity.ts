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

/**
 * A set of texts (the ids of what rows made) by their digest, in a compact
 * table: a million ids in ~16 MB, where a Set of strings holds several times that.
 */
export class DigestSet {
  readonly #table = new DigestTable(0);
  readonly #words = new Uint32Array(3);

  add(text: string): void {
    this.#table.find(digestWords(digestOf(text), this.#words), true);
  }

  has(text: string): boolean {
    return this.#table.find(digestWords(digestOf(text), this.#words), false) >= 0;
  }
}

/** Ids a lookup must not take for a lost row's: what other rows made. */
export type Claimed = Pick<DigestSet, 'add' | 'has'>;

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

// A digest's flags in the table (bit 0 is the table's): the state of its first row in the journal, two marks, and whether a row of this input came with it.
const STATE_SHIFT = 1;
const STATE = 7 << STATE_SHIFT;
/** The journal's row is sent and no row of the input has its values now: gone (changed or removed). */
const GONE = 16;
/** A gone row already paired with a row of the input (changed.ts). */
const PAIRED = 32;
/** A row of this input came with this digest. */
const SEEN = 64;

/**
 * Every row of the input and of the journal by its digest, in a compact
 * table (12 bytes a digest): which digests rows of this input came with so
 * far (which makes their keys), and what earlier runs recorded for them.
 * What few files have, several rows with the same values, sits in Maps of
 * its own: how many came, and what the journal says of the second, third...
 */
export class RowIndex {
  readonly #table: DigestTable;
  /** Rows of this input with the same digest, when more than one came. */
  readonly #repeats = new Map<string, number>();
  /** Earlier runs' flags of keys `digest.n` with n > 1 (state, GONE and PAIRED). */
  readonly #later = new Map<string, number>();
  readonly #words = new Uint32Array(3);

  /** `rows`: how many rows the input has (the journal's are mostly the same), to make room at once. */
  constructor(rows = 0) {
    this.#table = new DigestTable(0, rows);
  }

  /** The key of the next row with these values (canonical JSON), counting rows with the same values. */
  key(canonicalValues: string): string {
    const digest = digestOf(canonicalValues);
    const table = this.#table;
    const slot = table.find(digestWords(digest, this.#words), true);
    const flags = table.flags(slot);
    if ((flags & SEEN) === 0) {
      table.setFlags(slot, flags | SEEN);
      return digest;
    }
    const n = (this.#repeats.get(digest) ?? 1) + 1;
    this.#repeats.set(digest, n);
    return `${digest}.${n}`;
  }

  /** Counts rows from the start again: the input is read once more, and its rows get the same keys. */
  restartCounts(): void {
    const table = this.#table;
    table.forEach((slot) => table.setFlags(slot, table.flags(slot) & ~SEEN));
    this.#repeats.clear();
  }

  /** The flags of a key: its slot's (first row) or the later Map's; undefined for a key the index never saw. */
  #flags(key: string): { slot: number; later?: string; flags: number } | undefined {
    if (key.indexOf('.', 16) < 0) {
      const slot = this.#table.find(digestWords(key, this.#words), false);
      return slot < 0 ? undefined : { slot, flags: this.#table.flags(slot) };
    }
    const flags = this.#later.get(key);
    return flags === undefined ? undefined : { slot: -1, later: key, flags };
  }

  /** What earlier runs recorded for a key. Throws on a key that is no digest (journal.ts skips such a line). */
  state(key: string): RowState | undefined {
    const f = this.#flags(key);
    return f ? NAMES[(f.flags & STATE) >> STATE_SHIFT] : undefined;
  }

  setState(key: string, state: RowState): void {
    const code = CODES[state] << STATE_SHIFT;
    if (key.indexOf('.', 16) >= 0) {
      this.#later.set(key, code);
      return;
    }
    const slot = this.#table.find(digestWords(key, this.#words), true);
    this.#table.setFlags(slot, (this.#table.flags(slot) & SEEN) | code);
  }

  /** Forgets every state (--fresh). */
  clearStates(): void {
    const table = this.#table;
    table.forEach((slot) => table.setFlags(slot, table.flags(slot) & SEEN));
    this.#later.clear();
  }

  /** Calls `fn` with the state of every row earlier runs recorded. */
  forEachState(fn: (state: RowState) => void): void {
    const table = this.#table;
    table.forEach((slot) => {
      const state = NAMES[(table.flags(slot) & STATE) >> STATE_SHIFT];
      if (state) fn(state);
    });
    for (const flags of this.#later.values()) fn(NAMES[(flags & STATE) >> STATE_SHIFT]!);
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
      const flags = table.flags(slot);
      const isGone = wasSent(NAMES[(flags & STATE) >> STATE_SHIFT]) && (flags & SEEN) === 0;
      if (isGone) gone += 1;
      table.setFlags(slot, isGone ? flags | GONE : flags & ~GONE);
    });
    for (const [key, flags] of this.#later) {
      const dot = key.indexOf('.', 16);
      const digest = key.slice(0, dot);
      const first = table.find(digestWords(digest, this.#words), false);
      const count = first >= 0 && (table.flags(first) & SEEN) !== 0 ? (this.#repeats.get(digest) ?? 1) : 0;
      const isGone = wasSent(NAMES[(flags & STATE) >> STATE_SHIFT]) && count < Number(key.slice(dot + 1));
      if (isGone) gone += 1;
      this.#later.set(key, isGone ? flags | GONE : flags & ~GONE);
    }
    return gone;
  }

  /** Whether a key is a row markGone() found gone, not paired with a row of the input yet. */
  isGone(key: string): boolean {
    const f = this.#flags(key);
    return f !== undefined && (f.flags & (GONE | PAIRED)) === GONE;
  }

  /** Pairs a gone row with a row of the input (changed.ts): it is not paired again. */
  pairGone(key: string): void {
    const f = this.#flags(key);
    if (!f) return;
    if (f.later) this.#later.set(f.later, f.flags | PAIRED);
    else this.#table.setFlags(f.slot, f.flags | PAIRED);
  }
}
