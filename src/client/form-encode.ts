// Form encoding, shared by the client (the key in the request URL, the body
// in bracket notation) and the secrets list (the spellings of a key a server
// echoes).

/** An unpaired UTF-16 surrogate, which encodeURIComponent refuses. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Characters encodeURIComponent leaves that the form encoding of URLSearchParams escapes, and the space it writes as +. */
const FORM_ESCAPES = /[!'()~]|%20/g;

/**
 * A query value as URLSearchParams writes it (application/x-www-form-urlencoded:
 * UTF-8 bytes percent-encoded except A-Z a-z 0-9 * - . _, a space as +, a lone
 * surrogate as U+FFFD), without loading URLSearchParams, whose first use costs
 * a command ~0.5 ms. test/client/properties.test.ts holds it to URLSearchParams.
 */
export function formEncode(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(FORM_ESCAPES, (c) => (c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

/** A value as the service reads it: UTF-8 percent-encoded as RFC 3986 (! ' ( ) * too), a lone surrogate as U+FFFD. */
export function encodeValue(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `name=value` pairs of a value under a name, in bracket notation: an object
 * as `name[key]`, a list as `name[0]` (indices) or `name[]` (brackets),
 * nested as deep as it goes; null as an empty value, undefined left out.
 * Names are written as they are, values encoded (encodeValue).
 */
export function formPairs(name: string, value: unknown, lists: 'indices' | 'brackets', out: string[] = []): string[] {
  if (value === undefined) return out;
  if (Array.isArray(value)) value.forEach((item, i) => formPairs(`${name}[${lists === 'brackets' ? '' : i}]`, item, lists, out));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) formPairs(`${name}[${key}]`, item, lists, out);
  else out.push(`${name}=${encodeValue(value === null ? '' : String(value))}`);
  return out;
}

/** A whole form: `{data: {fullLink: 'x'}, ids: [1, 2]}` -> `data[fullLink]=x&ids[0]=1&ids[1]=2`. */
export function encodeForm(params: Record<string, unknown>, lists: 'indices' | 'brackets' = 'indices'): string {
  const out: string[] = [];
  for (const [name, value] of Object.entries(params)) formPairs(name, value, lists, out);
  return out.join('&');
}
