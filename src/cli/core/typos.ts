// Commander's Command, with a mistyped command or flag said where it is, in
// the vocabulary's words (src/output/words.ts unknownName): `message sned
// --to 1` is an unknown command "sned", not an unknown option "--to", at
// every level of the tree. program.ts builds the tree from this class.

import { Command } from 'commander';
import { unknownName } from '../../output/words.js';

/** `link list` for a subcommand, nothing for the program: the words a person typed to reach a command. */
function pathOf(cmd: Command): string {
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  return path.join(' ');
}

export class SmslinkCommand extends Command {
  /**
   * The names and aliases of every command under this one in the list
   * (src/cli/commands.ts), built for this run or not: what a mistyped
   * command is compared with. Set by program.ts, which builds only the
   * commands a run names, for every command whose children it adds.
   */
  commandNames: readonly string[] = [];

  /** Subcommands (`program.command(name)`) are of this class too. */
  override createCommand(name?: string): SmslinkCommand {
    return new SmslinkCommand(name);
  }

  /**
   * Commander calls this for the first flag a command does not know. In a
   * group (`message`), a word before that flag is a subcommand that does not
   * exist: that is the mistake to name, not the flag meant for it.
   */
  unknownOption(flag: string): never {
    const first = this.args[0];
    if (this.commands.length && first !== undefined && !first.startsWith('-')) return this.unknownCommand();
    const name = flag.split('=')[0];
    // Its own flags and those of the commands above it (the global ones), as commander offers them.
    const flags: string[] = [];
    const add = (c: Command | null): void => {
      if (!c) return;
      flags.push(...c.options.filter((o) => !o.hidden && o.long).map((o) => o.long!));
      add(c.parent);
    };
    add(this);
    const path = pathOf(this);
    this.error(`error: ${path ? `${path}: ` : ''}${unknownName('option', name, name.startsWith('--') ? flags : [])}`, { code: 'commander.unknownOption', exitCode: 2 });
  }

  /** Commander calls this for an argument not given: said as the catalog says a parameter it needs (`<link...> is required`). */
  missingArgument(name: string): never {
    const arg = this.registeredArguments.find((a) => a.name() === name);
    this.error(`error: ${pathOf(this)}: <${name}${arg?.variadic ? '...' : ''}> is required`, { code: 'commander.missingArgument', exitCode: 2 });
  }

  /**
   * Commander calls this for words a command takes no argument for. A
   * command with subcommands of its own (`serve`: init, wait) takes the
   * first for a subcommand that does not exist.
   */
  _excessArguments(received: unknown[]): void {
    if (this.commands.length) this.unknownCommand();
    // As commander's own: a command that takes any words (allowExcessArguments) reads them itself.
    if ((this as unknown as { _allowExcessArguments: boolean })._allowExcessArguments) return;
    const wanted = this.registeredArguments.length;
    const extra = received.slice(wanted).map((a) => JSON.stringify(String(a))).join(', ');
    const takes = wanted === 0 ? 'takes no arguments' : `takes ${wanted === 1 ? 'one argument' : `${wanted} arguments`}, not ${received.length}`;
    const are = received.length - wanted === 1 ? 'is' : 'are';
    this.error(`error: ${pathOf(this)} ${takes}: ${extra} ${are} extra (quote a value that holds spaces)`, { code: 'commander.excessArguments', exitCode: 2 });
  }

  /** Commander calls this when the first word after a group is none of its commands. */
  unknownCommand(): never {
    this.error(`error: ${unknownName('command', this.args[0], this.commandNames, pathOf(this))}`, { code: 'commander.unknownCommand', exitCode: 2 });
  }
}
