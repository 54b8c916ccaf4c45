// Builds the HTTP request of an operation: URL with output/api/apiKey in the
// query, form body in bracket notation (service-api.md "Common rules").

import qs from 'qs';
import type { OperationSpec } from '../catalog/types.js';
import { formEncode, LONE_SURROGATE } from './form-encode.js';

export { formEncode };

export interface PreparedRequest {
  operation: string;
  method: 'POST';
  /** Full URL including the API key; never print it, use `redactedUrl`. */
  url: string;
  redactedUrl: string;
  body: string;
  /** Decoded fields in wire order, for --verbose and --dry-run. */
  fields: Array<[string, string]>;
}

export const REDACTED = '***';

/** Joins a base URL (with or without a path prefix or trailing slash) and the service path. */
export function serviceUrl(baseUrl: string, path: string): URL {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  base.pathname = `${prefix}/service/${path}`;
  base.search = '';
  base.hash = '';
  return base;
}

/** Path parts of each wire name: a bulk run builds thousands of requests from the same few. */
const wireParts = new Map<string, string[]>();

function setPath(target: Record<string, unknown>, wire: string, value: unknown): void {
  // data[fullLink] -> ['data', 'fullLink']; sort -> ['sort']
  let parts = wireParts.get(wire);
  if (!parts) {
    parts = wire.replace(/\]/g, '').split('[');
    wireParts.set(wire, parts);
  }
  let node = target;
  const last = parts.length - 1;
  for (let i = 0; i < last; i++) {
    node[parts[i]] ??= {};
    node = node[parts[i]] as Record<string, unknown>;
  }
  node[parts[last]] = value;
}

/** Nested parameter object of validated values, in catalog order. */
export function toWireParams(op: OperationSpec, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const param of op.params) {
    let value = values[param.key];
    if (value === undefined) continue;
    if (param.list === 'comma' && Array.isArray(value)) value = value.join(',');
    setPath(out, param.wire, value);
  }
  return out;
}

/**
 * Encodes parameters as an application/x-www-form-urlencoded body with
 * bracket keys (`data[fullLink]=...`, `ids[0]=1` or `ids[]=1`) through qs:
 * keys as they are, values percent-encoded as UTF-8 (RFC 3986). A lone
 * surrogate (possible in JSON input) is sent as U+FFFD; qs would emit the
 * bytes of a made-up code point and drop the next character.
 */
export function encodeForm(params: Record<string, unknown>, arrayFormat: 'indices' | 'brackets' = 'indices'): string {
  return qs.stringify(params, FORM_OPTIONS[arrayFormat]);
}

const FORM_OPTIONS = Object.fromEntries(
  (['indices', 'brackets'] as const).map((arrayFormat) => [
    arrayFormat,
    {
      encodeValuesOnly: true,
      arrayFormat,
      format: 'RFC3986',
      charset: 'utf-8',
      encoder: (value, encode, charset, type) =>
        encode(typeof value === 'string' && type === 'value' ? value.replace(LONE_SURROGATE, '\uFFFD') : value, undefined, charset),
    } satisfies qs.IStringifyOptions,
  ]),
) as Record<'indices' | 'brackets', qs.IStringifyOptions>;

/** Decodes a form body back into [name, value] pairs (for display). */
export function decodeFields(body: string): Array<[string, string]> {
  if (!body) return [];
  return body.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    return [dec(name), dec(value)];
  });
}

export function arrayFormatOf(op: OperationSpec): 'indices' | 'brackets' {
  return op.params.some((p) => p.list === 'brackets') ? 'brackets' : 'indices';
}

/** URL and redacted URL of each (base URL, key, path) seen: a bulk run sends thousands of requests to one. */
const urls = new Map<string, { url: string; redactedUrl: string }>();


function urlsOf(path: string, settings: { baseUrl: string; apiKey: string }): { url: string; redactedUrl: string } {
  const id = `${settings.baseUrl}\n${settings.apiKey}\n${path}`;
  let known = urls.get(id);
  if (!known) {
    // serviceUrl() leaves no query or fragment: the query is appended as searchParams.set() would write it.
    const url = `${serviceUrl(settings.baseUrl, path).href}?output=json&api=v1&apiKey=`;
    known = { url: `${url}${formEncode(settings.apiKey)}`, redactedUrl: `${url}${REDACTED}` };
    if (urls.size >= 100) urls.clear();
    urls.set(id, known);
  }
  return known;
}

/** A built request; its fields are decoded when shown (--verbose, --dry-run), not for every request. */
class Request implements PreparedRequest {
  readonly method = 'POST';
  #fields: Array<[string, string]> | undefined;

  constructor(
    readonly operation: string,
    readonly url: string,
    readonly redactedUrl: string,
    readonly body: string,
  ) {}

  get fields(): Array<[string, string]> {
    this.#fields ??= decodeFields(this.body);
    return this.#fields;
  }
}

/** The request of one operation: path `Module/Operation`, an encoded form body. */
export function buildRequest(path: string, operationName: string, body: string, settings: { baseUrl: string; apiKey: string }): PreparedRequest {
  const { url, redactedUrl } = urlsOf(path, settings);
  return new Request(operationName, url, redactedUrl, body);
}
