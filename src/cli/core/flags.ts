// Flags with rules commander lacks: a one-value flag refuses a second value
// (onlyOnce, refuseRepeatedFlags), a flag may be another name for one
// (otherName), and the values shell completion offers for an option or an
// argument (COMPLETIONS, completing).

import type { Argument, Command, Option } from 'commander';
import { UsageError } from '../../exit-codes.js';

/** Values shell completion offers for an option (flag values from the catalog). */
export const COMPLETIONS = new WeakMap<Option, readonly string[]>();

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

/** Candidates read when Tab is pressed rather than written into the script: the profiles of the config store. */
export const PROFILES = '__profiles__';

/** Values shell completion offers for positional arguments (setting names, profiles), set by completing(). */
export const ARG_COMPLETIONS = new WeakMap<Argument, readonly string[]>();

/** Makes shell completion offer `values` for `arg`; `'profiles'` reads the profile names when Tab is pressed. */
export function completing(arg: Argument, values: readonly string[] | 'profiles'): Argument {
  ARG_COMPLETIONS.set(arg, values === 'profiles' ? [PROFILES] : values);
  return arg;
}
