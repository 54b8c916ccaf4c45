// The secrets this process knows (API keys) and the one function that takes
// them out of any text before it is shown or written: messages, answers that
// echo the request, journals, crash output.

import { encodeValue, formEncode, LONE_SURROGATE } from './client/form-encode.js';

/** Each secret, and the other spellings of it that a server or proxy may echo. */
const SECRETS = new Map<string, string[]>();

/**
 * Shorter values are not treated as secrets: they could be ordinary words
 * in the data (the emulator's public key is "sandbox"). The service's keys
 * have 40 or 70 characters.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * A secret as a URL may carry it, when that differs from the secret:
 * encodeURIComponent's spelling, the form encoding the client sends
 * (formEncode) and RFC 3986's (also ! ' ( ) * escaped).
 */
function spellings(secret: string): string[] {
  const uri = encodeURIComponent(secret.replace(LONE_SURROGATE, '\uFFFD'));
  return [...new Set([uri, formEncode(secret), encodeValue(secret)])].filter((s) => s !== secret);
}

export function registerSecret(secret: string | undefined): void {
  if (!secret || secret.length < MIN_SECRET_LENGTH || SECRETS.has(secret)) return;
  SECRETS.set(secret, spellings(secret));
}

/** Replaces every known secret (and its URL-encoded spellings) with ***. */
export function redact(text: string): string {
  let out = text;
  for (const [secret, others] of SECRETS) {
    if (out.includes(secret)) out = out.split(secret).join('***');
    for (const spelling of others) if (out.includes(spelling)) out = out.split(spelling).join('***');
  }
  return out;
}

/**
 * A key as it may be shown (config, status, the inspector): its first and
 * last 4 characters, which tell keys apart, around at most `maxStars` stars;
 * a key shorter than 20 characters as stars alone, its ends would show most of it.
 */
export function maskKey(key: string, maxStars = 32): string {
  if (key.length < 20) return '*'.repeat(key.length);
  return `${key.slice(0, 4)}${'*'.repeat(Math.min(key.length - 8, maxStars))}${key.slice(-4)}`;
}
