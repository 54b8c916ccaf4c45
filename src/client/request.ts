// Builds the HTTP request of an operation: URL with output/api/apiKey in the
// query, form body in bracket notation (service-api.md "Common rules"), the
// catalog's wire names written by qs (form-encode.ts).

import type { OperationSpec } from '../catalog/types.js';
import { encodeForm, encodeValue, formEncode } from './form-encode.js';

export { encodeValue, formEncode };

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

/**
 * The form body of validated values, in catalog order, under each
 * parameter's wire name: `data[fullLink]=...`, lists as `ids[0]=1` (indices),
 * `ids[]=1` (brackets) or one comma-separated value, `sort[createTs]=DESC`.
 */
export function encodeParams(op: OperationSpec, values: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const param of op.params) {
    const value = values[param.key];
    if (value === undefined || value === null) continue;
    // One parameter at a time: each list has its own form (GetStats' ids[], Delete's ids[0]).
    const part = encodeForm({ [param.wire]: param.list === 'comma' && Array.isArray(value) ? value.join(',') : value }, param.list === 'brackets' ? 'brackets' : 'indices');
    if (part) parts.push(part);
  }
  return parts.join('&');
}

const urls = new Map<string, [url: string, redacted: string]>();

/** The request of one operation: path `Module/Operation`, an encoded form body; its fields decoded when shown (--verbose, --dry-run). */
export function buildRequest(path: string, operationName: string, body: string, settings: { baseUrl: string; apiKey: string }): PreparedRequest {
  const id = `${settings.baseUrl}\n${path}\n${settings.apiKey}`;
  // serviceUrl() leaves no query or fragment: the query is appended as searchParams.set() would write it. Kept: a bulk run sends thousands.
  let known = urls.get(id);
  if (!known) {
    const url = `${serviceUrl(settings.baseUrl, path).href}?output=json&api=v1&apiKey=`;
    if (urls.size > 100) urls.clear();
    urls.set(id, (known = [`${url}${formEncode(settings.apiKey)}`, `${url}${REDACTED}`]));
  }
  return {
    operation: operationName,
    method: 'POST',
    url: known[0],
    redactedUrl: known[1],
    body,
    get fields(): Array<[string, string]> {
      return [...new URLSearchParams(body)];
    },
  };
}
