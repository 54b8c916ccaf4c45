// Short-link codes: random, 4 or more characters of [0-9A-Za-z], unique over
// all accounts and never handed out twice (codes of deleted links are kept in
// retired_codes). Length grows when a length gets crowded.

import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const MIN_CODE_LENGTH = 4;
const MAX_CODE_LENGTH = 16;
/** Collisions tolerated at one length before trying a longer code. */
const TRIES_PER_LENGTH = 4;

const pool = Buffer.alloc(256);
let poolAt = pool.length;

function randomChar(): string {
  for (;;) {
    if (poolAt >= pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const b = pool[poolAt++];
    // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
    if (b < 248) return ALPHABET[b % 62];
  }
}

export function randomCode(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += randomChar();
  return s;
}

/** Calls `tryInsert` with fresh codes until one is accepted; returns what it returned. */
export function withNewCode<T>(tryInsert: (code: string) => T | null): T {
  for (let length = MIN_CODE_LENGTH; length <= MAX_CODE_LENGTH; length++) {
    for (let i = 0; i < TRIES_PER_LENGTH; i++) {
      const result = tryInsert(randomCode(length));
      if (result !== null) return result;
    }
  }
  throw new Error('no free short-link code found');
}
