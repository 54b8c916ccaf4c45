// The one way to define a command: where it sits, the catalog operation it
// runs (if any), its flags, help and examples, and what it does. Every
// command is one, listed in src/cli/commands.ts; src/cli/program.ts builds
// commander's tree from that list. docs/architecture.md has the recipe.

import type { Command } from 'commander';
import type { OperationSpec } from '../../catalog/types.js';
import type { RunContext } from './context.js';

/** A command's flags as commander parsed them (`--page-size` is pageSize). */
export type CliValues = Record<string, unknown>;

/** A positional argument as commander gives it: a word, the words of a variadic one, or nothing. */
export type Positional = string | string[] | undefined;

export interface CommandDef {
  /** Where it sits: ['link', 'get'], ['login'], ['serve', 'init']. */
  path: readonly string[];
  /** The catalog operation it runs: its summary, and the arguments and flags of its parameters, come from there. */
  operation?: OperationSpec;
  /** One line for lists of commands; the operation's summary when left out. */
  summary?: string;
  /** Parameters of the operation it reads its own way: their catalog argument or flag is left out. */
  skip?: readonly string[];
  /** Arguments and flags of its own, after the catalog's (and anything else commander offers). */
  flags?: (cmd: Command) => Command;
  /** Paragraphs of help, before the examples. */
  about?: string;
  examples: readonly string[];
  /** A short name as well (`ls` for `list`). */
  alias?: string;
  /** Does the work: its flags, its arguments in order, and commander's command (completion walks the tree from it). */
  run(ctx: RunContext, opts: CliValues, args: readonly Positional[], cmd: Command): Promise<number | void>;
}

/** A noun: a group of commands. Given alone (`smslink link`), it prints its help. */
export interface GroupDef {
  path: readonly string[];
  summary: string;
  about?: string;
  examples: readonly string[];
  /** Marks this as a group (a command has `run`). */
  group: true;
}

export type Definition = CommandDef | GroupDef;

/** The summary of a command: its own, or its operation's. */
export function summaryOf(def: Definition): string {
  const summary = 'group' in def ? def.summary : (def.summary ?? def.operation?.summary);
  if (summary === undefined) throw new Error(`the command "${def.path.join(' ')}" has no summary`);
  return summary;
}
