// A hash table of row digests (identity.ts) held in one typed array: a bulk
// run keeps an entry per row, 12 bytes and a few 32-bit words of its own,
// where a Map keyed by strings cost ~135 bytes a row (docs/bulk.md, "Memory").
// Open addressing with linear probing: digests are uniformly random, so
// their first word places them as it is.

/** The table grows before it is fuller than this, which keeps probes short. */
const MAX_LOAD = 0.75;
/** The low bits of a digest's third word are the entry's flags; bit 0 marks a slot in use. */
export const FLAG_BITS = 8;
const FLAGS = (1 << FLAG_BITS) - 1;
const USED = 1;

export class DigestTable {
  /** Slot i's words at i * stride: the digest's three words (flags in the third), then the slot's values. */
  #words: Uint32Array;
  #slots: number;
  #size = 0;
  readonly #stride: number;

  /** `values`: 32-bit words kept beside each digest (0 in a new slot); `expected`: entries to make room for at once. */
  constructor(values: number, expected = 0) {
    this.#stride = 3 + values;
    this.#slots = Math.max(1024, Math.ceil(expected / MAX_LOAD) + 1);
    this.#words = new Uint32Array(this.#slots * this.#stride);
  }

  get size(): number {
    return this.#size;
  }

  /** The slot of a digest (digestWords); when absent, a new slot (flags and values 0) if `add`, else -1. */
  find(d: Uint32Array, add: boolean): number {
    const words = this.#words;
    const stride = this.#stride;
    const slots = this.#slots;
    const d0 = d[0];
    const d1 = d[1];
    const d2 = d[2] & ~FLAGS;
    for (let i = Math.floor((d0 / 2 ** 32) * slots); ; i = i + 1 === slots ? 0 : i + 1) {
      const at = i * stride;
      const w2 = words[at + 2];
      if ((w2 & USED) === 0) {
        if (!add) return -1;
        if (this.#size + 1 > slots * MAX_LOAD) {
          this.#grow();
          return this.find(d, true);
        }
        words[at] = d0;
        words[at + 1] = d1;
        words[at + 2] = d2 | USED;
        this.#size += 1;
        return i;
      }
      if ((w2 & ~FLAGS) === d2 && words[at] === d0 && words[at + 1] === d1) return i;
    }
  }

  /** A slot's flags (FLAG_BITS bits; bit 0 is the table's own). */
  flags(slot: number): number {
    return this.#words[slot * this.#stride + 2] & FLAGS;
  }

  setFlags(slot: number, flags: number): void {
    const at = slot * this.#stride + 2;
    this.#words[at] = (this.#words[at] & ~FLAGS) | (flags & FLAGS) | USED;
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
    for (let i = 0; i < this.#slots; i++) if ((words[i * stride + 2] & USED) !== 0) fn(i);
  }

  #grow(): void {
    const old = this.#words;
    const stride = this.#stride;
    const slots = this.#slots * 2;
    const words = new Uint32Array(slots * stride);
    for (let at = 0; at < old.length; at += stride) {
      if ((old[at + 2] & USED) === 0) continue;
      let i = Math.floor((old[at] / 2 ** 32) * slots);
      while ((words[i * stride + 2] & USED) !== 0) i = i + 1 === slots ? 0 : i + 1;
      words.set(old.subarray(at, at + stride), i * stride);
    }
    this.#words = words;
    this.#slots = slots;
  }
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEXTET = new Uint8Array(128).fill(255);
for (let i = 0; i < 64; i++) SEXTET[BASE64URL.charCodeAt(i)] = i;

/**
 * The first 16 characters of a base64url digest as three words, written
 * into `out` (no allocation: this runs for every row). The table keeps 88
 * of their 96 bits (the low byte of the third word holds flags): out of reach
 * of a collision for billions of rows. Throws on a text that is no digest
 * (a journal line forged or cut).
 */
export function digestWords(digest: string, out: Uint32Array): Uint32Array {
  if (digest.length < 16) throw new Error(`not a digest: "${digest}"`);
  // Four groups of four characters, 24 bits each, packed into three words.
  let g0 = 0;
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  for (let i = 0; i < 16; i++) {
    const c = digest.charCodeAt(i);
    const s = c < 128 ? SEXTET[c] : 255;
    if (s === 255) throw new Error(`not a digest: "${digest}"`);
    if (i < 4) g0 = (g0 << 6) | s;
    else if (i < 8) g1 = (g1 << 6) | s;
    else if (i < 12) g2 = (g2 << 6) | s;
    else g3 = (g3 << 6) | s;
  }
  out[0] = g0 | (g1 << 24);
  out[1] = (g1 >>> 8) | (g2 << 16);
  out[2] = (g2 >>> 16) | (g3 << 8);
  return out;
}
