// API keys: each accepted key is its own account, and only a key's SHA-256
// digest is stored. A presented key is looked up in a Map of the accepted
// ones, which hashes the whole string and compares characters only when the
// hash matches, so the time an answer takes does not tell how much of a
// guessed key was right (docs/security.md).

import { hash } from 'node:crypto';

export function keyDigest(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

export class KeyRing {
  readonly #accounts = new Map<string, number>();

  /** `accountOf` maps a key digest (hex) to its account id; called once per key at start-up. */
  constructor(keys: readonly string[], accountOf: (digestHex: string) => number) {
    for (const key of keys) this.#accounts.set(key, accountOf(keyDigest(key).toString('hex')));
  }

  /** The account of a presented key, or null. */
  account(presented: unknown): number | null {
    return typeof presented === 'string' ? (this.#accounts.get(presented) ?? null) : null;
  }
}
