// Form encoding: which names a request carries is ours (the catalog's wire
// names, or `smslink api`'s as the user wrote them); writing values under
// them in bracket notation is qs.stringify's. Also the spellings of a value in
// a URL that secrets.ts scrubs (the key in the query string).

import type { IStringifyOptions } from 'qs';
import { loadQs } from './qs.js';

/** An unpaired UTF-16 surrogate, which encodeURIComponent refuses and qs would write as a broken byte sequence. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Characters encodeURIComponent leaves that the form encoding of URLSearchParams escapes, and the space it writes as +. */
const FORM_ESCAPES = /[!'()~]|%20/g;

/**
 * A query value as URLSearchParams writes it (application/x-www-form-urlencoded:
 * UTF-8 bytes percent-encoded except A-Z a-z 0-9 * - . _, a space as +, a lone
 * surrogate as U+FFFD), without loading URLSearchParams, whose first use
 * costs every command (`npm run bench -- --only get` with URLSearchParams in its
 * place). test/client/properties.test.ts holds it to URLSearchParams.
 */
export function formEncode(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(FORM_ESCAPES, (c) => (c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

/** A value as qs.stringify writes it (RFC 3986: ! ' ( ) * escaped too), for the spellings secrets.ts scrubs. */
export function encodeValue(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Our policy over qs's mechanics: names written as given (the service reads
 * `data[fullLink]`, and `smslink api` sends what the user typed), values
 * UTF-8 percent-encoded as RFC 3986, a lone surrogate as U+FFFD, null as an
 * empty value, undefined and empty lists left out.
 */
const base: IStringifyOptions = {
  encodeValuesOnly: true,
  format: 'RFC3986',
  charset: 'utf-8',
  encoder: (value, encode, charset) => encode(typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value, encode, charset),
};
const OPTIONS: Record<'indices' | 'brackets', IStringifyOptions> = {
  indices: { ...base, arrayFormat: 'indices' },
  brackets: { ...base, arrayFormat: 'brackets' },
};

/** A whole form: `{data: {fullLink: 'x'}, ids: [1, 2]}` -> `data[fullLink]=x&ids[0]=1&ids[1]=2` (or `ids[]=1&ids[]=2`). */
export function encodeForm(params: Record<string, unknown>, lists: 'indices' | 'brackets' = 'indices'): string {
  return loadQs().stringify(params, OPTIONS[lists]);
}
