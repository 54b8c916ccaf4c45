// Builds the HTTP request of an operation: URL with output/api/apiKey in the
// query, form body in bracket notation (service-api.md "Common rules").

import type { OperationSpec } from '../catalog/types.js';

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

function setPath(target: Record<string, unknown>, wire: string, value: unknown): void {
  // data[fullLink] -> ['data', 'fullLink']; sort -> ['sort']
  const parts = wire.replace(/\]/g, '').split('[');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** UTF-8 percent-encoding of everything but A-Z a-z 0-9 - . _ ~ (RFC 3986); a lone surrogate becomes U+FFFD. */
function encodeValue(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    encoded = encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
  }
  return encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Encodes parameters as an application/x-www-form-urlencoded body with
 * bracket keys (`data[fullLink]=...`, `ids[0]=1` or `ids[]=1`), keys as
 * they are and values percent-encoded: what qs.stringify makes with
 * encodeValuesOnly and RFC 3986 (test/client/properties.test.ts compares
 * the two), without loading qs and its twenty helper packages on every run.
 * Undefined values are left out, null sends an empty value.
 */
export function encodeForm(params: Record<string, unknown>, arrayFormat: 'indices' | 'brackets' = 'indices'): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => add(arrayFormat === 'indices' ? `${key}[${i}]` : `${key}[]`, item));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else {
      parts.push(`${key}=${encodeValue(value === null ? '' : value instanceof Date ? value.toISOString() : String(value))}`);
    }
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  return parts.join('&');
}

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
    const url = serviceUrl(settings.baseUrl, path);
    url.searchParams.set('output', 'json');
    url.searchParams.set('api', 'v1');
    const redacted = new URL(url);
    url.searchParams.set('apiKey', settings.apiKey);
    redacted.searchParams.set('apiKey', REDACTED);
    known = { url: url.toString(), redactedUrl: redacted.toString().replace(encodeURIComponent(REDACTED), REDACTED) };
    if (urls.size >= 100) urls.clear();
    urls.set(id, known);
  }
  return known;
}

/** The request of one operation: path `Module/Operation`, an encoded form body. */
export function buildRequest(path: string, operationName: string, body: string, settings: { baseUrl: string; apiKey: string }): PreparedRequest {
  let fields: Array<[string, string]> | undefined;
  return {
    operation: operationName,
    method: 'POST',
    ...urlsOf(path, settings),
    body,
    // Decoded when shown (--verbose, --dry-run), not for every request.
    get fields() {
      fields ??= decodeFields(body);
      return fields;
    },
  };
}
