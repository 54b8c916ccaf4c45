// How the journal knows a row: by what it sends, not by where it sits in the
// file. A row's key is a digest of its request's values (after template
// filling and the flag values that fill empty cells), so rows inserted,
// removed or moved around it never make it look new, and a row whose values
// changed is a new row. The n-th row with the same values gets its own key:
// two identical rows in one file are two requests.

import { hash } from 'node:crypto';

/** A row's request values as one canonical JSON text (keys sorted): what the journal keeps to look the row up. */
export function canonical(values: Record<string, unknown>): string {
  return JSON.stringify(values, Object.keys(values).sort());
}

/** 132 bits of sha256: collisions are out of reach even for billions of rows. crypto.hash builds no Hash object. */
function digestOf(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 22);
}

/** Gives each row its key, counting repeated values. */
export class RowKeys {
  /** How many rows with each digest came so far. */
  readonly #seen = new Map<string, number>();

  key(canonicalValues: string): string {
    const digest = digestOf(canonicalValues);
    const n = (this.#seen.get(digest) ?? 0) + 1;
    this.#seen.set(digest, n);
    return n === 1 ? digest : `${digest}.${n}`;
  }

  /** Whether a key belongs to a row of this input (asked once every row was read). */
  has(key: string): boolean {
    const dot = key.indexOf('.');
    const digest = dot < 0 ? key : key.slice(0, dot);
    const n = dot < 0 ? 1 : Number(key.slice(dot + 1));
    return (this.#seen.get(digest) ?? 0) >= n;
  }
}
