// A hash table of 96-bit digests (identity.ts), each with a few 32-bit words
// of its own, held in one typed array: a bulk run keeps one entry per row, and
// a Map keyed by strings cost ~135 bytes a row where this costs 16 to 20
// (docs/bulk.md, "Memory"). Open addressing, linear probing: digests are
// uniformly random, so their first word is a good index as it is.

/** The table doubles before it is fuller than this: linear probing stays short. */
const MAX_LOAD = 0.75;

export class DigestTable {
  /** Slot i's words at i * stride: the digest's three words, then the slot's values. A slot is empty while its third word is 0 (digestWords never makes one). */
  #words: Uint32Array;
  #mask: number;
  #size = 0;
  readonly #stride: number;

  /** `values`: 32-bit words kept with each digest (0 in a new slot). */
  constructor(values: number, capacity = 1024) {
    this.#stride = 3 + values;
    let slots = 1024;
    while (slots * MAX_LOAD < capacity) slots *= 2;
    this.#words = new Uint32Array(slots * this.#stride);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** The slot of a digest; when absent, a new slot (its values 0) if `add`, else -1. */
  find(d: Uint32Array, add: boolean): number {
    const words = this.#words;
    const stride = this.#stride;
    const d0 = d[0];
    const d1 = d[1];
    const d2 = d[2];
    for (let i = d0 & this.#mask; ; i = (i + 1) & this.#mask) {
      const at = i * stride;
      const w2 = words[at + 2];
      if (w2 === 0) {
        if (!add) return -1;
        if ((this.#size + 1) / (this.#mask + 1) > MAX_LOAD) {
          this.#grow();
          return this.find(d, true);
        }
        words[at] = d0;
        words[at + 1] = d1;
        words[at + 2] = d2;
        this.#size += 1;
        return i;
      }
      if (w2 === d2 && words[at] === d0 && words[at + 1] === d1) return i;
    }
  }

  get(slot: number, value: number): number {
    return this.#words[slot * this.#stride + 3 + value];
  }

  set(slot: number, value: number, v: number): void {
    this.#words[slot * this.#stride + 3 + value] = v;
  }

  /** Calls `fn` with every slot in use (in no particular order). */
  forEach(fn: (slot: number) => void): void {
    const words = this.#words;
    const stride = this.#stride;
    for (let i = 0; i <= this.#mask; i++) if (words[i * stride + 2] !== 0) fn(i);
  }

  #grow(): void {
    const old = this.#words;
    const stride = this.#stride;
    const slots = (this.#mask + 1) * 2;
    const words = new Uint32Array(slots * stride);
    const mask = slots - 1;
    for (let at = 0; at < old.length; at += stride) {
      if (old[at + 2] === 0) continue;
      let i = old[at] & mask;
      while (words[i * stride + 2] !== 0) i = (i + 1) & mask;
      words.set(old.subarray(at, at + stride), i * stride);
    }
    this.#words = words;
    this.#mask = mask;
  }
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEXTET = new Uint8Array(128).fill(255);
for (let i = 0; i < 64; i++) SEXTET[BASE64URL.charCodeAt(i)] = i;

/**
 * The first 96 bits of a base64url digest (its first 16 characters) as three
 * words, written into `out` (no allocation: this runs for every row). The
 * lowest bit of the third word is set, so that no digest is all zero: 95 bits
 * tell digests apart, out of reach of a collision for billions of rows.
 * Throws on a text that is not a digest (a journal line forged or cut).
 */
export function digestWords(digest: string, out: Uint32Array): Uint32Array {
  if (digest.length < 16) throw new Error(`not a digest: "${digest}"`);
  // Four groups of four characters, 24 bits each, packed into three words.
  const g = [0, 0, 0, 0];
  for (let i = 0; i < 16; i++) {
    const s = SEXTET[digest.charCodeAt(i) & 127];
    if (s === 255 || digest.charCodeAt(i) > 127) throw new Error(`not a digest: "${digest}"`);
    g[i >> 2] = (g[i >> 2] << 6) | s;
  }
  out[0] = g[0] | (g[1] << 24);
  out[1] = (g[1] >>> 8) | (g[2] << 16);
  out[2] = (g[2] >>> 16) | (g[3] << 8) | 1;
  return out;
}
