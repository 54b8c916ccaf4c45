// From the catalog to the command line and back: an operation's parameters
// as commander's arguments and flags (addParams), and the command line as
// the operation's input (inputFrom: aliases, times, sort, id lists) for the
// client to check.

import { Option, type Command } from 'commander';
import { fieldNamed, fieldNames } from '../../catalog/columns.js';
import { didYouMean, invalidValue } from '../../output/words.js';
import type { OperationSpec, ParamSpec } from '../../catalog/types.js';
import type { CliValues } from '../core/command.js';
import { COMPLETIONS, onlyOnce } from '../core/flags.js';
import { UsageError } from '../../exit-codes.js';
import { aheadHint, dayOf, parseTime, quoteTime, reversedRange, timeFlag, type TimeRules } from '../core/time.js';
import { checkParam, formatDateTime, parseDate, parseDateTime } from '../../catalog/rules.js';
import { wordsOf } from '../../catalog/validate.js';

function valuesOf(param: ParamSpec): string[] {
  if (param.type === 'sort') return (param.sortFields ?? []).flatMap((f) => [f, `${f}:asc`, `${f}:desc`]);
  return [...wordsOf(param), ...(param.oneOf ?? []).map(String)];
}

function optionFor(param: ParamSpec): Option | undefined {
  const cli = param.cli;
  if (!cli?.flag) return undefined;
  const option = new Option(cli.flag, cli.help);
  if (param.type === 'sort') option.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
  else onlyOnce(option, cli.once);
  const values = valuesOf(param);
  if (values.length && cli.boolean === undefined) COMPLETIONS.set(option, values);
  return option;
}

/** Attribute name commander gives a parameter's flag (`--page-size` -> pageSize). */
export function attributeOf(param: ParamSpec): string | undefined {
  return param.cli?.flag ? new Option(param.cli.flag).attributeName() : undefined;
}

/** Adds the catalog's arguments and flags of `op` to `cmd`, except the keys in `skip`. */
export function addParams(cmd: Command, op: OperationSpec, skip: readonly string[] = []): Command {
  for (const param of op.params) {
    if (skip.includes(param.key) || !param.cli) continue;
    if (param.cli.arg) cmd.argument(param.cli.arg, param.cli.help);
    const option = optionFor(param);
    if (option) cmd.addOption(option);
  }
  return cmd;
}

/** Splits id arguments given with spaces and/or commas. */
export function splitIds(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** How a datetime parameter reads times typed on the command line (src/cli/time.ts). */
export function timeRulesOf(param: ParamSpec): TimeRules {
  return { fill: param.cli?.fillTime };
}

/** Directions said in other words, to suggest the one --sort takes. */
const DIRECTION_WORDS: Record<string, string> = { up: 'asc', ascending: 'asc', down: 'desc', descending: 'desc' };

/**
 * `field[:asc|desc]` values into the sort object the catalog checks. A
 * field may be named by its table header (`clicks:desc`, see fieldNamed).
 * A field or a direction it does not know is quoted as typed.
 */
export function parseSort(values: readonly string[], fields: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const choices = fieldNames(fields);
  const rule = `must be FIELD, FIELD:asc or FIELD:desc; fields: ${fields.join(', ')} (or their table headers)`;
  for (const v of values) {
    const parts = v.split(':');
    const [typed, dir = 'asc'] = parts.map((p) => p.trim());
    const field = fields.length ? fieldNamed(typed, fields) : typed;
    // The field and the direction are each matched alone: `clcks:desc` is near clicks:desc, `clicks:dsc` near clicks:desc.
    if (parts.length > 2 || field === undefined) {
      const near = parts.length > 2 ? undefined : didYouMean(typed, choices);
      throw new UsageError(invalidValue('--sort', v, rule, near ? [parts.length === 2 ? `${near}:${dir}` : near] : []));
    }
    if (!/^(asc|desc)$/i.test(dir)) {
      const near = DIRECTION_WORDS[dir.toLowerCase()] ?? didYouMean(dir, ['asc', 'desc']);
      throw new UsageError(invalidValue('--sort', v, 'the direction after : must be asc or desc', near ? [`${typed}:${near}`] : []));
    }
    out[field] = dir.toUpperCase();
  }
  return out;
}

/**
 * Turns one parameter's command-line value into the value the client checks.
 * A time it cannot read is passed on as typed, for the catalog's check to name.
 */
export function fromCli(param: ParamSpec, raw: unknown, now: Date = new Date()): unknown {
  const cli = param.cli;
  if (raw === undefined || raw === null || !cli) return raw;
  if (cli.boolean !== undefined) return raw === true ? cli.boolean : undefined;
  if (param.type === 'sort') return parseSort(raw as string[], param.sortFields);
  if (typeof raw !== 'string') return raw;
  if (cli.several && (raw.includes(',') || groupOf(param, raw))) {
    // `undelivered,rejected`, or a word for several (`failed`): each value read alone, once each; a list left with one value is that value.
    const values = [...new Set(splitIds([raw]).flatMap((v): readonly unknown[] => groupOf(param, v) ?? [oneValue(param, v, now)]))];
    return values.length === 0 ? raw : values.length === 1 ? values[0] : values;
  }
  return oneValue(param, raw, now);
}

/** The values a word for several stands for (`failed`: UNDELIV, REJECTD ...), if `raw` is one. */
function groupOf(param: ParamSpec, raw: string): readonly string[] | undefined {
  return Object.entries(param.cli?.groups ?? {}).find(([word]) => word === raw.trim().toLowerCase())?.[1];
}

/** One value as typed into the one the client checks: a word for its code (aliases), a time read. */
function oneValue(param: ParamSpec, raw: string, now: Date): unknown {
  const hit = Object.entries(param.cli?.aliases ?? {}).find(([word]) => word === raw.trim().toLowerCase());
  if (hit) return hit[1];
  if (param.type === 'datetime') return parseTime(raw, now, timeRulesOf(param)) ?? raw;
  return raw;
}

/**
 * The parameter of `input` given several values (a `several` flag:
 * `--status undelivered,rejected`), and the input of each, one value each.
 */
export function severalInputs(op: OperationSpec, input: Record<string, unknown>): { param: ParamSpec; inputs: Record<string, unknown>[] } | undefined {
  const param = op.params.find((p) => p.cli?.several && Array.isArray(input[p.key]));
  if (!param) return undefined;
  return { param, inputs: (input[param.key] as unknown[]).map((value) => ({ ...input, [param.key]: value })) };
}

/**
 * A time or date flag's value as the service takes it (every form of
 * `smslink help time`; a date flag takes the day the time falls on). A
 * value the flag cannot read is the command's error, naming every form it
 * accepts; one it reads (+30m) but the catalog refuses (too soon) is quoted
 * as typed, with the time it stood for, and `+2h` offered for a `2h` that
 * counted back where only the future will do.
 */
function timeInput(param: ParamSpec, raw: string, now: Date): string {
  const flag = param.cli!.flag!.split(' ')[0];
  if (param.type === 'date') return dayOf(raw, now);
  const value = timeFlag(flag, raw, now, timeRulesOf(param));
  const check = checkParam(param, value, { now });
  if (!check.ok) {
    const hint = value < formatDateTime(now) ? aheadHint(raw) : '';
    throw new UsageError(`${flag}: invalid value ${quoteTime(raw, value, now)}: ${check.rule}${hint}`);
  }
  return value;
}

/**
 * Builds the operation input from commander's positional args and options.
 * Positional arguments are matched to parameters in catalog order.
 */
export function inputFrom(
  op: OperationSpec,
  args: unknown[],
  options: CliValues,
  skip: readonly string[] = [],
  now: Date = new Date(),
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  let position = 0;
  for (const param of op.params) {
    if (skip.includes(param.key) || !param.cli) continue;
    if (param.cli.arg) {
      let value = args[position++];
      if (Array.isArray(value)) value = splitIds(value as string[]);
      input[param.key] = value;
      continue;
    }
    const attr = attributeOf(param);
    if (!attr) continue;
    const raw = options[attr];
    const value = typeof raw === 'string' && (param.type === 'datetime' || param.type === 'date') ? timeInput(param, raw, now) : fromCli(param, raw, now);
    if (value !== undefined) input[param.key] = value;
  }
  checkRanges(op, options, input, now);
  return input;
}

/** A date, or a date and time, as the wire writes them: each such pair compares as text. */
const isWireTime = (value: unknown): value is string => typeof value === 'string' && (parseDate(value) !== null || parseDateTime(value) !== null);

/** A criteria range (`--created-from 7d --created-to 8d`) that ends before it starts is refused: the service would find nothing, silently. */
function checkRanges(op: OperationSpec, options: CliValues, input: Record<string, unknown>, now: Date): void {
  for (const param of op.params) {
    if (!param.key.endsWith('From')) continue;
    const end = op.params.find((p) => p.key === `${param.key.slice(0, -4)}To`);
    const [from, to] = [input[param.key], end && input[end.key]];
    if (!end?.cli?.flag || !param.cli?.flag || !isWireTime(from) || !isWireTime(to) || to >= from) continue;
    // A day alone starts at 00:00:00, as the service reads it.
    const typed = (p: ParamSpec, wire: string) => ({ flag: new Option(p.cli!.flag!).long!, typed: String(options[attributeOf(p)!]), wire: wire.length === 10 ? `${wire} 00:00:00` : wire });
    throw reversedRange(typed(param, from), typed(end, to), now);
  }
}
