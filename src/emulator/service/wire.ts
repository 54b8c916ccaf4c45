// From the wire to catalog input: decodes form bodies and query strings with
// qs.parse, within limits a request cannot get round (parameters, nesting,
// list length), and maps wire names (`data[fullLink]`, `ids[]`, `sort[code]`)
// back to parameter keys. A request past a limit is refused, not cut.

import type { IParseOptions } from 'qs';
import { toList } from '../../catalog/rules.js';
import type { OperationSpec, ParamSpec } from '../../catalog/types.js';
import { loadQs } from '../../client/qs.js';

/** Stands in for a value whose percent-encoding is not UTF-8 (a lone surrogate never comes out of decoding). */
export const INVALID_ENCODING = '\uD800invalid-encoding';

/**
 * Most parameters one request may carry, query and body together; more is
 * refused (code 12). The largest request the contract describes has ~110
 * (100 ids, or 100 campaign ids and the criteria); qs.parse slows faster
 * than the number of indexed names grows, so the limit is what keeps one
 * request from stalling the rest (test/emulator/hostile.test.ts sends more).
 */
export const MAX_PARAMS = 1000;
/** Deepest bracket nesting (qs's `depth`): `criteria[campaignIds][0]` is 2; deeper is refused (code 12). */
export const MAX_DEPTH = 3;
/**
 * Indices below this stay a list (`ids[0]` … `ids[99]` and beyond, past the
 * service's limit of 100, so that the limit is the one named); higher indices
 * become object keys in qs, which toList() reads in index order all the same.
 */
export const ARRAY_LIMIT = 1000;

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

/** Percent-decoding as qs's own, but a value that is not UTF-8 becomes INVALID_ENCODING, to be refused by name. */
function decode(s: string, _default: unknown, _charset: unknown, type: 'key' | 'value'): string {
  let t = s;
  if (t.includes('+')) t = t.replace(/\+/g, ' ');
  if (!t.includes('%')) return t;
  try {
    return decodeURIComponent(t);
  } catch {
    return type === 'value' ? INVALID_ENCODING : t;
  }
}

const PARSE: IParseOptions & { decoder: typeof decode } = {
  parameterLimit: MAX_PARAMS,
  depth: MAX_DEPTH,
  strictDepth: true,
  arrayLimit: ARRAY_LIMIT,
  decoder: decode,
  // qs's default: a name that is a property of Object.prototype (`constructor`,
  // `__proto__[x]`, `toString`) is dropped, as the service ignores any name it
  // does not know; nothing reaches a prototype. (`plainObjects: true` kept those
  // names, in objects without a prototype, which V8 keeps as slow dictionaries:
  // measured by the emulator row of `npm run bench`, docs/performance.md.)
  plainObjects: false,
  allowPrototypes: false,
};

/** Why a request cannot be read: past a limit; the caller answers code 12 with this rule. */
export class FormLimitError extends RangeError {}

/** Parameters in a form as qs counts them for its parameterLimit: the parts between `&`s, empty ones too. */
function countParams(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let at = text.indexOf('&'); at >= 0; at = text.indexOf('&', at + 1)) n++;
  return n;
}

/** The first name in a form that nests deeper than MAX_DEPTH brackets, to name in the refusal. */
function tooDeep(text: string): string {
  for (const pair of text.split('&')) {
    const name = decode(pair.split('=')[0], null, null, 'key');
    if ((name.match(/\[/g)?.length ?? 0) > MAX_DEPTH) return name.slice(0, 60);
  }
  return '';
}

/**
 * The parameters of a request: query string and body decoded by qs.parse,
 * a body's names over the query's. Throws FormLimitError past MAX_PARAMS
 * or MAX_DEPTH.
 */
export function parseRequest(query: string, body = ''): FormObject {
  if (countParams(query) + countParams(body) > MAX_PARAMS) {
    throw new FormLimitError(`a request carries at most ${MAX_PARAMS} parameters`);
  }
  const qs = loadQs();
  const read = (text: string): FormObject => {
    try {
      return qs.parse(text, PARSE) as FormObject;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw new FormLimitError(`${tooDeep(text)}: parameter names nest at most ${MAX_DEPTH} brackets deep`);
    }
  };
  const params = read(query);
  return body ? Object.assign(params, read(body)) : params;
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
  wire: string;
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
      problems.push({ key: spec.key, wire: spec.wire, rule: bad });
      continue;
    }
    if (spec.truncate && spec.maxItems !== undefined) value = toList(value).slice(0, spec.maxItems);
    input[spec.key] = value;
  }
  return { input, problems };
}
