// Checks an operation's input against the catalog before anything is sent
// (client) or carried out (emulator). Problems name the parameter and the rule.

import { checkParam, toList, type CheckContext } from './rules.js';
import type { OperationSpec, ParamSpec } from './types.js';

export interface Issue {
  /** Input key of the parameter (`fullLink`), or keys joined with `|` for a choice. */
  key: string;
  /** Wire name (`data[fullLink]`). */
  wire: string;
  value: unknown;
  rule: string;
  /** What the service answers for it: 11 missing, 12 constraint, 1 validation. */
  code: number;
}

export interface Validated {
  values: Record<string, unknown>;
  issues: Issue[];
}

const isAbsent = (v: unknown) => v === undefined || v === null;
/** An id list with no id in it (`ids=`, `ids[]=`) gives no identifiers: the contract's "none given", not a malformed id. */
const noIds = (param: ParamSpec, v: unknown) => param.type === 'ids' && toList(v).every((item) => isAbsent(item) || (typeof item === 'string' && item.trim() === ''));

/**
 * The one place where a request is read as the live service reads it (the
 * emulator, `ctx.live`) rather than as the contract writes it (the client):
 * real-service-notes.md "What the live service accepts". An optional
 * parameter sent empty (`data[expirationDate]=`, `from=`, `params[name]=`)
 * is absent, as PHP's empty() has it; a required one sent empty is still
 * checked, and refused. A parameter's `live` rules (ParamSpec.live) replace
 * the contract's. The client checks by the contract alone, so it still
 * refuses what the contract forbids before anything is sent.
 */
function asLiveService(op: OperationSpec, input: Record<string, unknown>): { input: Record<string, unknown>; params: readonly ParamSpec[] } {
  const read: Record<string, unknown> = { ...input };
  for (const param of op.params) if (!param.required && read[param.key] === '') delete read[param.key];
  let params = LIVE_PARAMS.get(op);
  if (!params) LIVE_PARAMS.set(op, (params = op.params.map((p) => (p.live ? { ...p, ...p.live } : p))));
  return { input: read, params };
}
const LIVE_PARAMS = new WeakMap<OperationSpec, readonly ParamSpec[]>();

export function paramByKey(op: OperationSpec, key: string): ParamSpec | undefined {
  return op.params.find((p) => p.key === key);
}

/** The words a parameter takes in place of wire values: one value's (active) and several's (failed). */
export function wordsOf(param: ParamSpec | undefined): string[] {
  return [...Object.keys(param?.cli?.aliases ?? {}), ...Object.keys(param?.cli?.groups ?? {})];
}

/**
 * A rule as read by whoever typed the value, on the command line, in a bulk
 * file's column or in a seed: with the words the parameter also takes
 * (`must be 0 or 1 (or active, inactive)`).
 */
export function ruleAsTyped(param: ParamSpec | undefined, rule: string, value: unknown): string {
  const words = wordsOf(param);
  return words.length && !isAbsent(value) ? `${rule} (or ${words.join(', ')})` : rule;
}

/** How many ids one request of the operation takes (its `ids` parameter's limit). */
export function idLimit(op: OperationSpec): number {
  return paramByKey(op, 'ids')?.maxItems ?? Infinity;
}

/** Validates and coerces input; returns the values to send and every problem found. */
export function validateInput(op: OperationSpec, given: Record<string, unknown>, ctx: CheckContext): Validated {
  const { input, params } = ctx.live ? asLiveService(op, given) : { input: given, params: op.params };
  const values: Record<string, unknown> = {};
  const issues: Issue[] = [];
  if (op.exactlyOne) {
    const given = op.exactlyOne.filter((k) => !isAbsent(input[k]));
    if (given.length !== 1) {
      issues.push({
        key: op.exactlyOne.join('|'),
        wire: op.exactlyOne.join('|'),
        value: given.length ? given.map((k) => input[k]) : undefined,
        rule: `give exactly one of ${op.exactlyOne.join(', ')}`,
        code: 12,
      });
    }
  }
  for (const param of params) {
    const raw = input[param.key];
    if (isAbsent(raw) || noIds(param, raw)) {
      if (param.required) issues.push({ key: param.key, wire: param.wire, value: isAbsent(raw) ? raw : undefined, rule: 'is required', code: param.missingCode ?? 11 });
      continue;
    }
    const result = checkParam(param, raw, ctx);
    if (result.ok) values[param.key] = result.value;
    else issues.push({ key: param.key, wire: param.wire, value: raw, rule: result.rule, code: param.constraint ? 12 : 1 });
  }
  for (const key of Object.keys(input)) {
    if (!paramByKey(op, key) && !isAbsent(input[key])) {
      issues.push({ key, wire: key, value: input[key], rule: `is not a parameter of ${op.module}/${op.operation}`, code: 1 });
    }
  }
  if (issues.length === 0 && op.crossCheck) {
    for (const [key, rule] of op.crossCheck(values)) {
      issues.push({ key, wire: paramByKey(op, key)?.wire ?? key, value: values[key], rule, code: 1 });
    }
  }
  return { values, issues };
}
