// Builds a commander command from a catalog operation: positional arguments,
// flags and help come from the catalog's parameters, and the command line is
// turned back into the operation's input object (aliases, times,
// sort, id lists) for the client to validate. What each command adds to its
// catalog entry is an OperationCommand (src/cli/registrar.ts builds them).

import { Option, type Command } from 'commander';
import { fieldNamed } from '../catalog/columns.js';
import type { OperationSpec, ParamSpec } from '../catalog/types.js';
import type { RunContext } from './context.js';
import type { GlobalOptions } from './run.js';
import { UsageError } from '../exit-codes.js';
import { dayOf, parseTime, timeFlag, type TimeRules } from './time.js';
import { checkParam } from '../catalog/rules.js';

export type CliValues = Record<string, unknown>;

/** A positional argument as commander gives it: a word, the words of a variadic one, or nothing. */
export type Positional = string | string[] | undefined;

/**
 * What a command adds to its operation's catalog entry, which gives its
 * name, summary, arguments and flags: flags and help of its own, examples,
 * and what it does.
 */
export interface OperationCommand {
  /** Parameters the command reads its own way: the catalog's argument or flag for them is left out. */
  skip?: readonly string[];
  /** Arguments and flags of its own, after the catalog's. */
  flags?: (cmd: Command) => Command;
  /** Paragraphs of help, before the examples. */
  about?: string;
  examples: readonly string[];
  /** Runs the command: its flags, and its arguments in order. */
  run(ctx: RunContext, opts: CliValues, args: readonly Positional[]): Promise<number | void>;
}

/** A command of a noun that is no one operation of the catalog (`message get`): its verb and summary, and all its arguments. */
export interface OwnCommand extends OperationCommand {
  verb: string;
  summary: string;
}

/** A noun of the catalog (link, message): its help, and a command for each of its operations, by catalog id. */
export interface NounCommands {
  description: string;
  about?: string;
  examples: readonly string[];
  commands: Readonly<Record<string, OperationCommand>>;
  /** Commands of the noun beyond its operations', after them. */
  more?: readonly OwnCommand[];
}

/** Values shell completion offers for an option (flag values from the catalog). */
export const COMPLETIONS = new WeakMap<Option, readonly string[]>();

function valuesOf(param: ParamSpec): string[] {
  if (param.type === 'sort') return (param.sortFields ?? []).flatMap((f) => [f, `${f}:asc`, `${f}:desc`]);
  return [...Object.keys(param.cli?.aliases ?? {}), ...(param.oneOf ?? []).map(String)];
}

/** A value given for a setting, and the flag it was given with. */
interface Given {
  option: Option;
  flag: string;
  value: string;
}

/** A setting that takes one value: its own flag, what to do instead of repeating it, and the value given so far. */
interface Slot {
  flag: string;
  hint?: string;
  given?: Given;
}

/** The setting each one-value flag fills; a flag and its other names (otherName) share one. */
const SLOTS = new WeakMap<Option, Slot>();

/** Flags that are another name for a flag of the same command: its long flag, and the value they stand for (`--json` is `--output json`). */
const OTHER_NAMES = new WeakMap<Option, { of: string; value?: string }>();

/**
 * Marks `option` as another name for the flag `of` of the same command
 * (link stats' hidden --from for --since), or, with `value`, for that flag
 * with that value (--json for --output json). Giving both is then refused
 * as one flag given twice (refuseRepeatedFlags).
 */
export function otherName(option: Option, of: string, value?: string): Option {
  OTHER_NAMES.set(option, { of, value });
  // A flag without a value of its own hands its parser the value it stands for.
  if (value !== undefined) option.preset(value);
  return option;
}

/** Why a second value is refused, naming both flags as typed (and the values, unless secret). */
function twiceMessage(slot: Slot, first: Given, second: Given): string {
  // A secret's values are not repeated back (errors are printed before any key is known to scrub).
  const values = /key|token/i.test(slot.flag) ? '' : ` ("${first.value}" and "${second.value}")`;
  const hint = slot.hint ?? 'it takes one value: give it once';
  if (first.flag === second.flag) return `${first.flag} was given twice${values}; ${hint}`;
  const alias = [first.option, second.option].find((o) => OTHER_NAMES.has(o));
  const name = alias && OTHER_NAMES.get(alias);
  const meaning = name ? `; ${alias.long} is another name for ${name.of}${name.value === undefined ? '' : ` ${name.value}`}` : '';
  return `${first.flag} and ${second.flag} were both given${values}${meaning}; ${hint}`;
}

/** Takes a flag's value into its setting, refusing a second one. */
function takeOnce(option: Option, value: string): string | boolean {
  const slot = SLOTS.get(option)!;
  const flag = option.long ?? option.flags;
  const boolean = !(option.required || option.optional);
  // A flag without a value (--json) may be repeated, as every such flag may; not with another name of its setting.
  if (slot.given && !(boolean && slot.given.flag === flag)) throw new UsageError(twiceMessage(slot, slot.given, { option, flag, value }));
  slot.given = { option, flag, value };
  return boolean ? true : value;
}

/**
 * A flag that takes one value refuses a second one, naming both: commander
 * would keep the last silently (`--to A --to B` sent one message, to B).
 * Flags that collect their values (--sort, --sender, --api-key) have a
 * parser of their own and stay repeatable. `hint` says what to do instead.
 */
export function onlyOnce(option: Option, hint?: string): Option {
  if (!(option.required || option.optional) || option.variadic || option.parseArg) return option;
  SLOTS.set(option, { flag: option.long ?? option.flags, hint });
  return option.argParser((value: string) => takeOnce(option, value));
}

/**
 * Makes every one-value flag of `cmd` and its subcommands refuse a second
 * value (see onlyOnce), given with the same flag or with another name of it
 * (see otherName).
 */
export function refuseRepeatedFlags(cmd: Command): void {
  for (const option of cmd.options) if (!OTHER_NAMES.has(option)) onlyOnce(option);
  for (const option of cmd.options) {
    const name = OTHER_NAMES.get(option);
    if (!name) continue;
    const target = cmd.options.find((o) => o.long === name.of);
    const slot = target && SLOTS.get(target);
    // A programming error, which every test of the command would show: the alias would go unchecked.
    if (!slot) throw new Error(`${option.long} is declared another name for ${name.of}, which \`${cmd.name()}\` has no one-value flag of`);
    SLOTS.set(option, slot);
    option.argParser((value: string) => takeOnce(option, value));
  }
  for (const sub of cmd.commands) refuseRepeatedFlags(sub);
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
  return { fill: param.cli?.fillTime, relative: param.cli?.relative };
}

/**
 * `field[:asc|desc]` values into the sort object the catalog checks. A
 * field may be named by its table header (`clicks:desc`, see fieldNamed).
 */
export function parseSort(values: readonly string[], fields: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const parts = v.split(':');
    if (parts.length > 2) throw new UsageError(`--sort: invalid value "${v}": use FIELD or FIELD:asc or FIELD:desc`);
    const [field, dir = 'asc'] = parts;
    out[fieldNamed(field.trim(), fields) ?? field.trim()] = dir.trim().toUpperCase();
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
  if (cli.several && raw.includes(',')) {
    // `undelivered,rejected`: each value read alone, once each; a list left with one value is that value.
    const values = [...new Set(splitIds([raw]).map((v) => oneValue(param, v, now)))];
    return values.length === 0 ? raw : values.length === 1 ? values[0] : values;
  }
  return oneValue(param, raw, now);
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
 * A time or date flag's value as the service takes it. A value the flag
 * cannot read is the command's error, naming every form it accepts; one it
 * reads (+30m) but the catalog refuses (too soon) is named as typed, with
 * the time it stood for.
 */
function timeInput(param: ParamSpec, raw: string, now: Date): string {
  const flag = param.cli!.flag!.split(' ')[0];
  if (param.type === 'date') return param.cli?.relative ? dayOf(raw, now) : raw;
  const value = timeFlag(flag, raw, now, timeRulesOf(param));
  const check = checkParam(param, value, { now });
  if (!check.ok) throw new UsageError(`${flag}: invalid value "${raw}"${value === raw.trim() ? '' : ` (${value})`}: ${check.rule}`);
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
  return input;
}

/** Options of the command merged with the program-level ones. */
export function globalsOf(cmd: Command): GlobalOptions & CliValues {
  return cmd.optsWithGlobals() as GlobalOptions & CliValues;
}

export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/** The help after a command's flags: paragraphs, then examples. */
export function helpAfter(about: string | undefined, lines: readonly string[]): string {
  return about === undefined ? examples(lines) : `\n${about}\n${examples(lines)}`;
}
