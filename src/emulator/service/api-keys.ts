// API keys: each accepted key is its own account. Keys are compared by their
// SHA-256 digests with timingSafeEqual against every accepted key, so the time
// an answer takes does not tell how much of a guessed key was right. Only the
// digest is stored in the database.

import crypto, { timingSafeEqual } from 'node:crypto';

// crypto.hash (Node >= 20.12) skips building a Hash object, which costs about
// as much as the digest itself: time a loop of `crypto.hash('sha256', key)`
// against one of `crypto.createHash('sha256').update(key).digest()`.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;

export function keyDigest(key: string): Buffer {
  return oneShot ? oneShot('sha256', key, 'buffer') : crypto.createHash('sha256').update(key, 'utf8').digest();
}

export class KeyRing {
  readonly #digests: Buffer[];
  readonly #accounts: number[];

  /** `accountOf` maps a key digest (hex) to its account id; called once per key at start-up. */
  constructor(keys: readonly string[], accountOf: (digestHex: string) => number) {
    this.#digests = keys.map(keyDigest);
    this.#accounts = this.#digests.map((d) => accountOf(d.toString('hex')));
  }

  /** The account of a presented key, or null. Looks at every accepted key whatever matches. */
  account(presented: unknown): number | null {
    if (typeof presented !== 'string' || presented === '') return null;
    const digest = keyDigest(presented);
    let found = -1;
    for (let i = 0; i < this.#digests.length; i++) if (timingSafeEqual(digest, this.#digests[i])) found = i;
    return found < 0 ? null : this.#accounts[found];
  }
}
