// From the wire to catalog input: decodes form bodies and query strings in the
// bracket notation the client writes (src/client/form-encode.ts) and maps
// wire names (`data[fullLink]`, `ids[]`, `sort[code]`) back to parameter keys.
//
// The decoder builds the same structure as qs.parse for everything the client
// sends (test/emulator/wire.test.ts checks that against qs), but in linear
// time: qs.parse building arrays is quadratic in the number of items (time
// `qs.parse(body, { arrayLimit: Infinity, parameterLimit: Infinity })` on
// 10,000 and 20,000 `ids[i]=` items: twice the items, four times the time),
// which would let one 1 MiB request stall the emulator.

import { toList } from '../../catalog/rules.js';
import type { OperationSpec, ParamSpec } from '../../catalog/types.js';

/** Stands in for a value whose percent-encoding is not UTF-8 (a lone surrogate never comes out of decoding). */
export const INVALID_ENCODING = '\uD800invalid-encoding';

/** Most parameters one request may carry; the rest are ignored. */
export const MAX_PARAMS = 100_000;
/** Deepest bracket nesting kept, as qs's `depth`; deeper brackets stay part of the last key. */
export const MAX_DEPTH = 3;

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

function decode(s: string, isValue: boolean): string {
  let t = s;
  if (t.includes('+')) t = t.replace(/\+/g, ' ');
  if (!t.includes('%')) return t;
  try {
    return decodeURIComponent(t);
  } catch {
    return isValue ? INVALID_ENCODING : t;
  }
}

/** A node while parsing: direct values, keyed children and `[]` pushes. */
interface Node {
  values: string[] | null;
  keyed: Map<string, Node> | null;
  pushed: Node[] | null;
}

const newNode = (): Node => ({ values: null, keyed: null, pushed: null });
const INDEX_RE = /^(?:0|[1-9]\d{0,8})$/;

function child(node: Node, segment: string): Node {
  if (segment === '') {
    const n = newNode();
    (node.pushed ??= []).push(n);
    return n;
  }
  node.keyed ??= new Map();
  let n = node.keyed.get(segment);
  if (!n) {
    n = newNode();
    node.keyed.set(segment, n);
  }
  return n;
}

function finish(node: Node): FormValue {
  if (node.keyed || node.pushed) {
    const keys = node.keyed ? [...node.keyed.keys()] : [];
    if (keys.every((k) => INDEX_RE.test(k))) {
      // qs: numeric keys make an array, compacted in index order; pushes follow.
      const arr: FormValue[] = keys
        .map(Number)
        .sort((a, b) => a - b)
        .map((k) => finish(node.keyed!.get(String(k))!));
      if (node.pushed) for (const n of node.pushed) arr.push(finish(n));
      return arr;
    }
    const obj: FormObject = Object.create(null);
    for (const k of keys) obj[k] = finish(node.keyed!.get(k)!);
    if (node.pushed) {
      let i = 0;
      for (const n of node.pushed) {
        while (Object.hasOwn(obj, String(i))) i++;
        obj[String(i)] = finish(n);
      }
    }
    return obj;
  }
  const values = node.values!;
  return values.length === 1 ? values[0] : values.slice();
}

/** Splits `a[b][c]` into ['a', 'b', 'c']; anything else is one flat key. */
function splitKey(key: string): string[] {
  const open = key.indexOf('[');
  if (open <= 0 || !key.endsWith(']')) return [key];
  const segments = [key.slice(0, open)];
  let i = open;
  while (i < key.length) {
    if (key[i] !== '[') return [key];
    const close = key.indexOf(']', i);
    const inner = key.slice(i + 1, close);
    if (inner.includes('[')) return [key];
    if (segments.length > MAX_DEPTH) {
      segments[segments.length - 1] += key.slice(i);
      return segments;
    }
    segments.push(inner);
    i = close + 1;
  }
  return segments;
}

/** Parses `application/x-www-form-urlencoded` text (or a query string) into nested values, like qs.parse. */
export function parseForm(text: string, into?: FormObject): FormObject {
  const root = newNode();
  let count = 0;
  let start = 0;
  while (start <= text.length && count < MAX_PARAMS) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      const pair = text.slice(start, end);
      const eq = pair.indexOf('=');
      const key = decode(eq < 0 ? pair : pair.slice(0, eq), false);
      const value = eq < 0 ? '' : decode(pair.slice(eq + 1), true);
      if (key !== '' && key !== '__proto__') {
        count++;
        let node = root;
        for (const segment of splitKey(key)) node = child(node, segment);
        (node.values ??= []).push(value);
      }
    }
    start = end + 1;
  }
  const out: FormObject = into ?? Object.create(null);
  if (root.keyed) for (const [k, n] of root.keyed) out[k] = finish(n);
  return out;
}

/** Path of a wire name: `data[fullLink]` -> ['data', 'fullLink']. */
function wirePath(wire: string): string[] {
  return wire.replace(/\]/g, '').split('[');
}

const PATHS = new WeakMap<ParamSpec, string[]>();

function lookup(params: FormObject, spec: ParamSpec): FormValue | undefined {
  let path = PATHS.get(spec);
  if (!path) {
    path = wirePath(spec.wire);
    PATHS.set(spec, path);
  }
  let node: FormValue | undefined = params;
  for (const part of path) {
    if (node === undefined || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, part)) return undefined;
    node = (node as FormObject)[part];
  }
  return node;
}

export interface WireProblem {
  key: string;
  rule: string;
}

function badText(value: FormValue): string | null {
  if (typeof value === 'string') {
    if (value === INVALID_ENCODING) return 'is not valid UTF-8 percent-encoding';
    if (value.includes('\u0000')) return 'must not contain NUL characters';
    return null;
  }
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) {
    const bad = badText(item);
    if (bad) return bad;
  }
  return null;
}

/**
 * Picks an operation's parameters out of decoded wire params, keyed by the
 * catalog's param keys. Unknown wire names are ignored, as the live service
 * does. Lists whose extra items the service ignores (`truncate`) are cut.
 */
export function fromWire(op: OperationSpec, params: FormObject): { input: Record<string, unknown>; problems: WireProblem[] } {
  const input: Record<string, unknown> = {};
  const problems: WireProblem[] = [];
  for (const spec of op.params) {
    let value: unknown = lookup(params, spec);
    if (value === undefined) continue;
    const bad = badText(value as FormValue);
    if (bad) {
      problems.push({ key: spec.key, rule: bad });
      continue;
    }
    if (spec.truncate && spec.maxItems !== undefined) value = toList(value).slice(0, spec.maxItems);
    input[spec.key] = value;
  }
  return { input, problems };
}
