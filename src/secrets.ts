// The secrets this process knows (API keys) and the one function that takes
// them out of any text before it is shown or written: messages, answers that
// echo the request, journals, crash output; how a key is masked when shown,
// and the parameter names that carry one.

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
 * Whether a value looks like an API key: one word of letters, digits, - and
 * _, 16 or more, which no URL is. Such a value given as the base URL (the
 * two given the wrong way round) is the key, and is shown masked.
 */
export function looksLikeKey(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,}$/.test(value.trim());
}

/**
 * A key as it may be shown (config, status, serve, the inspector): always 12
 * characters, so it tells nothing of the key's length: 8 stars and the last 4
 * characters of a key of 16 or more (they tell keys apart), 12 stars for a
 * shorter one, whose end would give away too much of it.
 */
export function maskKey(key: string): string {
  return key.length >= 16 ? `********${key.slice(-4)}` : '************';
}

/**
 * A parameter name that carries a key, however it is spelled: apiKey in any
 * case, with separators (api_key, api-key) and with brackets after it
 * (apiKey[], apiKey[0]). Its value is masked wherever a request is shown,
 * whether or not a server would take it for the key.
 */
export function isKeyName(name: string): boolean {
  return /^\s*api[\s._-]?key\s*(\[[^\]]*\]\s*)*$/i.test(name);
}

/** A form's decoded fields as they may be shown: a key's value (isKeyName) as ***. */
export function maskKeyFields(fields: Array<[string, string]>): Array<[string, string]> {
  return fields.map(([name, value]) => [name, isKeyName(name) ? '***' : value]);
}

/** A form body (`a=1&apiKey=...`) as it may be shown: a key's value as ***, the rest as it is. */
export function maskKeyBody(body: string): string {
  return body
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && isKeyName(decodeName(name)) ? `${name}=***` : pair;
    })
    .join('&');
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
