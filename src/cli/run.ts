// run(argv, io) -> exit code. The CLI never touches `process`: streams, env,
// the clock and the interrupt signal come in through io (design rule 2), so
// tests run it in-process.

import { Command, CommanderError, Option } from 'commander';
import { OUTPUT_FORMATS, PROFILE, SETTINGS } from '../config/resolve.js';
import type { SettingKey } from '../config/file.js';
import { painter } from '../output/color.js';
import { version } from '../version.js';
import { RunContext } from './context.js';
import type { OutStream } from '../output/format.js';
import { describeFailure, EXIT_CODES_HELP } from './exit.js';
import { escapeControls, fitLines } from '../output/text.js';
import { EXIT } from '../exit-codes.js';
import { OPERATION_NOUNS, registerOperations } from './registrar.js';
import { registerConfig } from './config.js';
import { registerApi } from './api.js';
import { registerCompletion } from './completion.js';
import { registerServe } from './serve.js';
import { registerAuth } from './auth.js';
import { registerSync } from './sync.js';
import { registerReport } from './report.js';
import { registerSearch } from './search.js';
import { COMPLETIONS, examples, globalsOf, otherName, refuseRepeatedFlags } from './operation.js';
import { configureHelp, fitHelpText, groupCommands, registerHelp } from './help.js';

import { redact } from '../secrets.js';

export { redact };

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Aborted when the user presses Ctrl-C (or stdout is closed: reason 'stdout-closed'). */
  signal?: AbortSignal;
  /** Aborted on a second Ctrl-C: whatever is still in flight is given up at once (bulk runs). */
  stopNow?: AbortSignal;
  /** stdout is a pipe or a socket, whose reader may go away (`| head -1`). */
  readonly stdoutIsPipe?: boolean;
  now?: () => Date;
  /** Told while a pager runs: the bin then leaves Ctrl-C to the pager. */
  onPager?: (running: boolean) => void;
}

/** Options every command accepts (program-level flags). */
export interface GlobalOptions {
  apiKey?: string;
  /** Every --api-key given (serve accepts several). */
  apiKeys?: string[];
  baseUrl?: string;
  profile?: string;
  output?: string;
  json?: boolean;
  fields?: string;
  jq?: string;
  quiet?: boolean;
  verbose?: boolean;
  dryRun?: boolean;
  color?: boolean;
  timeout?: string;
  retries?: string;
  proxy?: string;
  caFile?: string;
  allowInsecureHttp?: boolean;
  showPii?: boolean;
  sandbox?: boolean;
  csvSafe?: boolean;
  pager?: boolean;
}

/** Runs one command action with a fresh context; the action returns its exit code. */
export type Runner = (cmd: Command, action: (ctx: RunContext) => Promise<number | void>) => Promise<void>;

/** How far a run can reach in the command tree (see buildProgram). */
export interface Reach {
  /** Whether the subcommands of `noun` are added at all. */
  noun(noun: string): boolean;
  /**
   * For the sibling commands `names` under `parent`: adds one (by name and
   * description) and returns it when the run can reach it, to be built in full.
   */
  among(parent: Command, names: readonly string[]): AddCommand;
}

/** Adds a command by name and description; returns it when it is to be built in full (see Reach). */
export type AddCommand = (name: string, description: string) => Command | undefined;

/** Short names of verbs, as gh has them: `link ls`, `link rm`, `message ls`. */
export const VERB_ALIASES: Readonly<Record<string, string>> = { list: 'ls', delete: 'rm' };

function reachOf(argv: readonly string[]): Reach {
  const completion = argv.includes('completion');
  // Help lists siblings with their arguments and options: build them all (-h may be combined, as in -qh).
  const help = argv.some((a) => a === '--help' || /^-[^-]*h/.test(a));
  return {
    noun: (noun) => completion || argv.includes(noun),
    among: (parent, names) => {
      const named = completion || help ? [] : names.filter((name) => argv.includes(name) || (VERB_ALIASES[name] !== undefined && argv.includes(VERB_ALIASES[name])));
      return (name, description) => {
        const cmd = parent.command(name).description(description);
        if (VERB_ALIASES[name]) cmd.alias(VERB_ALIASES[name]);
        return named.length === 0 || named.includes(name) ? cmd : undefined;
      };
    },
  };
}

/**
 * The command tree, built only as far as the run can reach. Every noun is
 * listed, but its subcommands (with their options and help texts, most of
 * the tree) are added only when argv names the noun, or for `completion`,
 * which walks the whole tree. Of sibling commands (a noun's verbs, or api,
 * serve and completion), those argv does not name are added by name and
 * description alone when it names one of them, which is all commander's
 * suggestions read; help builds them all. `smslink link get 1` builds no
 * message or config commands and of the link commands only `get`, and
 * `--help` no subcommands at all. Measured against the whole tree (reachOf
 * reaching everything), this saved 2.3 ms of `--help` and 2.4 ms of
 * `link get` (7% and 5% of those rows); remeasure with `npm run bench --
 * --only help,get` with and without it.
 */
export function buildProgram(io: CliIO, runner: Runner, argv: readonly string[]): Command {
  const reach = reachOf(argv);
  const program = new Command('smslink')
    .description('Short links and single SMS from the command line.')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage and examples)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(io.stdout.isTTY && io.stdout.columns ? fitHelpText(s, io.stdout.columns) : s),
      writeErr: (s) => io.stderr.write(s),
    });

  configureHelp(program, () => (io.stdout.isTTY ? io.stdout.columns : undefined));
  program
    .optionsGroup('Output flags:')
    .addOption(settingFlag('output'))
    // --json is -o json: giving both is one setting given twice.
    .addOption(otherName(new Option('--json', 'same as -o json'), '--output', 'json'))
    .option('--fields <list>', 'comma-separated fields or column headers to show, in order (clicks or clickCnt)')
    .option('--jq <expr>', 'filter JSON output with a jq expression (implies -o json; strings print without quotes)')
    .option('-q, --quiet', 'print only the main value of each result, one per line')
    .option('--no-color', 'never colour the output')
    .option('--no-pager', 'never page output (also SMSLINK_PAGER=cat)')
    .option('--csv-safe', 'in csv and tsv output, defuse cells a spreadsheet would run as a formula')
    .optionsGroup('Connection flags:')
    .addOption(settingFlag('profile'))
    .option('--sandbox', 'use the local emulator instead of the service (also SMSLINK_SANDBOX=1)')
    .addOption(settingFlag('baseUrl'))
    .addOption(settingFlag('apiKey'))
    .addOption(settingFlag('timeout'))
    .addOption(settingFlag('retries'))
    .option('--proxy <url>', 'HTTP(S) proxy (default: HTTPS_PROXY, HTTP_PROXY, NO_PROXY)')
    .option('--ca-file <path>', 'extra trusted CA certificates (PEM)')
    .option('--allow-insecure-http', 'allow sending the key over plain http:// to a non-loopback host')
    .optionsGroup('Checking flags:')
    .option('--dry-run', 'print the request that would be sent and send nothing')
    .option('--verbose', 'print each request and answer on stderr (key masked)')
    .option('--show-pii', 'show full numbers and texts in --verbose output')
    .optionsGroup('')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help');

  program.addHelpText(
    'after',
    examples([
      'smslink --sandbox link create https://example.com/some/long/path',
      'smslink link list --query promo --sort createTs:desc',
      'smslink message send --to +77011234567 --text "Your code is 4711"',
      'smslink message status 123456 -q',
      "smslink link list --all --jq '.[] | select(.clickCnt > 0) | .shortLink'",
    ]) +
      `\nSettings: flag > environment (SMSLINK_API_KEY, SMSLINK_BASE_URL, SMSLINK_PROFILE)\n> config profile > default.\n\n${EXIT_CODES_HELP}\n`,
  );

  // The nouns are always added in full; login, status, api, serve and completion are built only when reached.
  const command = reach.among(program, [...OPERATION_NOUNS, 'config', 'login', 'status', 'sync', 'report', 'search', 'api', 'serve', 'sandbox', 'completion']);
  registerOperations(program, runner, reach);
  registerConfig(program, runner, reach);
  registerAuth(command, runner);
  registerSync(command, runner);
  registerReport(program, runner, reach);
  registerSearch(command, runner);
  registerApi(command, runner);
  registerServe(program, command, runner, reach);
  registerCompletion(program, command, runner);
  registerHelp(program);
  groupCommands(program);
  refuseRepeatedFlags(program);
  return program;
}

/**
 * The flag of a setting (or of the profile), as SETTINGS declares it. No
 * default goes to commander: a flag not given leaves the setting to the
 * environment and the profile (design rule 4); help names the built-in one.
 */
function settingFlag(key: SettingKey | 'profile'): Option {
  const spec = key === 'profile' ? PROFILE : SETTINGS[key];
  const { short, value, help, group } = spec.global!;
  const fallback = spec.default === undefined ? '' : ` (default ${spec.default})`;
  const option = new Option(`${short ? `${short}, ` : ''}${spec.flag} ${value}`, `${help}${fallback}`).helpGroup(group);
  // -o: its values are checked with the other settings (an `output` setting may name it too); completion offers them.
  if (key === 'output') COMPLETIONS.set(option, OUTPUT_FORMATS);
  // --api-key is collected so that `serve` can take several; everywhere else the one given is used (see run()).
  if (key === 'apiKey') option.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
  return option;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  let ctx: RunContext | undefined;
  let code: number = EXIT.OK;
  const runner: Runner = async (cmd, action) => {
    const { apiKey, ...globals } = globalsOf(cmd);
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
    const failure = describeFailure(err, ctx?.command);
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
