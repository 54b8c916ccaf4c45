// What a bulk command tells the engine: how a row becomes the operation's
// input, and the check each row gets (the catalog's rules, as for a single
// command) right before it is sent.

import type { CheckContext } from '../catalog/rules.js';
import type { OperationSpec } from '../catalog/types.js';
import { paramByKey, ruleAsTyped, validateInput, type Issue } from '../catalog/validate.js';

export interface RowProblem {
  column: string;
  rule: string;
}

export interface BulkSpec {
  /** `link create` or `message send`: also the journal's command identity. */
  command: string;
  op: OperationSpec;
  /** Checks the columns before anything is read further (e.g. template placeholders). */
  checkColumns(columns: string[]): void;
  /** Turns a row into the operation's input, or says what is wrong with it. */
  toInput(fields: Record<string, unknown>): { input: Record<string, unknown>; problems: RowProblem[] };
  /** Which column feeds each parameter key, to name it in messages. */
  columnOf(key: string): string;
  /** Result fields shown per row (from the operation's data). */
  resultColumns: readonly string[];
  primary: string;
  /** What one row costs, in segments (message send): summed before the run, for its estimate. */
  segmentsOf?(fields: Record<string, unknown>): number;
}

export interface Checked {
  input?: Record<string, unknown>;
  problems: RowProblem[];
}

export function check(rules: CheckContext, spec: BulkSpec, fields: Record<string, unknown>, readError?: string): Checked {
  if (readError) return { problems: [{ column: '(row)', rule: readError }] };
  const { input, problems } = spec.toInput(fields);
  if (problems.length) return { problems };
  const { values, issues } = validateInput(spec.op, input, rules);
  if (issues.length) return { problems: issues.map((i: Issue) => ({ column: spec.columnOf(i.key), rule: ruleAsTyped(paramByKey(spec.op, i.key), i.rule, i.value) })) };
  return { input: values, problems: [] };
}

export const describeProblems = (problems: RowProblem[]) => problems.map((p) => `column ${p.column}: ${p.rule}`).join('; ');
