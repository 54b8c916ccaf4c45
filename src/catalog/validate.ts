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

export function paramByKey(op: OperationSpec, key: string): ParamSpec | undefined {
  return op.params.find((p) => p.key === key);
}

/** Validates and coerces input; returns the values to send and every problem found. */
export function validateInput(op: OperationSpec, input: Record<string, unknown>, ctx: CheckContext): Validated {
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
  for (const param of op.params) {
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
