// The form encoding of a query value, shared by the client (the key in the
// request URL) and the secrets list (the spelling of a key a server echoes).

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
