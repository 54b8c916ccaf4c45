// Every operation of the catalog becomes a command: `command: ['link',
// 'get']` names it, and its summary, arguments and flags come from the same
// entry. What a command adds (flags and help of its own, examples, what it
// does) is its OperationCommand, by catalog id, in the noun's module.

import type { Command } from 'commander';
import { OPERATIONS } from '../catalog/index.js';
import type { OperationSpec } from '../catalog/types.js';
import { helpWhenAlone } from './help.js';
import { LINK } from './link.js';
import { MESSAGE } from './message.js';
import { addParams, helpAfter, type CliValues, type NounCommands, type OperationCommand, type Positional } from './operation.js';
import type { Reach, Runner } from './run.js';

/** The modules of the catalog's nouns. */
const NOUNS: Readonly<Record<string, NounCommands>> = { link: LINK, message: MESSAGE };

type CommandSpec = OperationSpec & Required<Pick<OperationSpec, 'command'>>;
/** An operation without a command (User/GetOwnBalance) is left to `smslink api` and the client. */
const hasCommand = (op: OperationSpec): op is CommandSpec => op.command !== undefined;

/** The catalog's operations by noun, in catalog order. */
const BY_NOUN = new Map<string, CommandSpec[]>();
for (const op of OPERATIONS.filter(hasCommand)) BY_NOUN.set(op.command[0], [...(BY_NOUN.get(op.command[0]) ?? []), op]);

/** The nouns of the catalog (`link`, `message`), as commands of the program. */
export const OPERATION_NOUNS: readonly string[] = [...BY_NOUN.keys()];

/** Builds one command in full: the catalog's arguments and flags (of `op`, if any), the command's own, help, and its action. */
function build(cmd: Command, op: OperationSpec | undefined, own: OperationCommand, runner: Runner): void {
  if (op) addParams(cmd, op, own.skip);
  own.flags?.(cmd);
  cmd.addHelpText('after', helpAfter(own.about, own.examples));
  // commander passes the positional arguments, then the options, then the command.
  cmd.action((...params: unknown[]) => {
    const command = params.pop() as Command;
    const opts = params.pop() as CliValues;
    return runner(command, (ctx) => own.run(ctx, opts, params as Positional[]));
  });
}

/**
 * Adds every noun of the catalog, and its operations' commands as far as the
 * run can reach them (see buildProgram in run.ts): a noun's commands only
 * when argv names the noun, and of those only the one argv names, the
 * others by name and summary.
 */
export function registerOperations(program: Command, runner: Runner, reach: Reach): void {
  for (const [noun, ops] of BY_NOUN) {
    const own = NOUNS[noun];
    if (!own) throw new Error(`the catalog's noun "${noun}" has no commands in src/cli`);
    const nounCommand = helpWhenAlone(program.command(noun).description(own.description)).addHelpText('after', helpAfter(own.about, own.examples));
    if (!reach.noun(noun)) continue;
    const more = own.more ?? [];
    const verb = reach.among(nounCommand, [...ops.map((op) => op.command[1]), ...more.map((m) => m.verb)]);
    for (const op of ops) {
      const cmd = verb(op.command[1], op.summary);
      if (!cmd) continue;
      const command = own.commands[op.id];
      if (!command) throw new Error(`the catalog's operation ${op.id} has no command in src/cli`);
      build(cmd, op, command, runner);
    }
    for (const command of more) {
      const cmd = verb(command.verb, command.summary);
      if (cmd) build(cmd, undefined, command, runner);
    }
  }
}
