// run(argv, io) -> exit code. The CLI never touches `process`: streams, env,
// the clock and the interrupt signal come in through io (design rule 2), so
// tests run it in-process. One path to an exit code for every ending.

import { CommanderError, type Command } from 'commander';
import { painter } from '../output/color.js';
import { escapeControls, fitLines } from '../output/text.js';
import { EXIT } from '../exit-codes.js';
import { redact } from '../secrets.js';
import type { CliValues } from './core/command.js';
import { RunContext } from './core/context.js';
import { describeFailure } from './core/exit.js';
import type { CliIO, GlobalOptions } from './core/io.js';
import { buildProgram, type Runner } from './program.js';

export { redact };
export type { CliIO };

/** Options of the command merged with the program-level ones. */
function globalsOf(cmd: Command): GlobalOptions & CliValues {
  return cmd.optsWithGlobals() as GlobalOptions & CliValues;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  let ctx: RunContext | undefined;
  let code: number = EXIT.OK;
  const runner: Runner = async (cmd, action) => {
    const { apiKey, ...globals } = globalsOf(cmd);
    // A command with a --timeout of its own (how long `serve wait` and `inbox wait` wait) gets the value:
    // the program's flag of that name (the time limit per request) takes it wherever it is typed.
    if (cmd.parent && cmd.options.some((o) => o.long === '--timeout') && globals.timeout !== undefined) {
      cmd.setOptionValue('timeout', globals.timeout);
      globals.timeout = undefined;
    }
    // --api-key is collected so that `serve` can take several; everywhere else the one given is used.
    const keys = (apiKey as unknown as string[] | undefined) ?? [];
    ctx = new RunContext(io, { ...globals, apiKey: keys.at(-1), apiKeys: keys });
    ctx.command = cmd.parent?.parent ? `${cmd.parent.name()} ${cmd.name()}` : cmd.name();
    ctx.refuseQuietConflicts();
    if (globals.jq !== undefined) await ctx.useJq(globals.jq);
    const result = await action(ctx);
    code = typeof result === 'number' ? result : EXIT.OK;
  };
  const program = buildProgram(io, runner, argv);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT.OK;
    }
    await program.parseAsync(argv, { from: 'user' });
    await ctx?.flushOutput();
  } catch (err) {
    // What was written before the failure is shown first, then the error.
    await ctx?.flushOutput().catch(() => {});
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.OK;
      // Unknown commands and options, missing arguments, and a group without its subcommand
      // (`smslink link`, which shows its help): commander has already said what is wrong.
      return EXIT.USAGE;
    }
    const failure = describeFailure(err, ctx?.command, ctx?.outcomeCheck);
    // The reader of our output went away (a closed pipe): nothing to tell anyone. What the closure
    // stopped (a list's next page, a wait) ends 0, as `yes | head -1` does under pipefail.
    if (io.signal?.aborted && io.signal.reason === 'stdout-closed') return failure.code === EXIT.INTERRUPTED ? EXIT.OK : failure.code;
    const target = ctx?.stderr ?? io.stderr;
    const paint = await painter(ctx?.colorFor(io.stderr) ?? false);
    // The service's words are escaped where its errors are made (client/errors.ts); this also covers what a
    // message quotes from the user's input or files (a CSV row, a flag's value): escaped (\x1b, \u202e), never run.
    const message = escapeControls(failure.message);
    // At a terminal, long lines break at spaces rather than mid-word where the terminal would: scrubbed
    // first (a break could split a secret), fitted with the plain prefix, whose width counts, coloured after.
    const width = io.stderr.isTTY ? io.stderr.columns : undefined;
    const text = `error: ${redact(message)}`
      .split('\n')
      .map((line) => fitLines(line, width).replace(/^error: /, `${paint.red('error:')} `))
      .join('\n');
    target.write(`${text}\n`);
    code = failure.code;
  } finally {
    await ctx?.close();
  }
  return code;
}
