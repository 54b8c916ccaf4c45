// Commander's tree from the list of commands (src/cli/commands.ts), built
// only as far as a run can reach, with the program's own flags (global flags
// from SETTINGS, src/config/resolve.ts) and help.

import { Option, type Command } from 'commander';
import { OUTPUT_FORMATS, PROFILE, SETTINGS } from '../config/resolve.js';
import type { SettingKey } from '../config/file.js';
import { summaryOf, type CliValues, type CommandDef, type Definition, type Positional } from './core/command.js';
import type { RunContext } from './core/context.js';
import { EXIT_CODES_HELP } from './core/exit.js';
import { COMPLETIONS, otherName, refuseRepeatedFlags } from './core/flags.js';
import { configureHelp, examples, fitHelpText, helpAfter, helpWhenAlone } from './core/help.js';
import type { CliIO } from './core/io.js';
import { SmslinkCommand } from './core/typos.js';
import { addParams } from './shared/operation.js';
import { COMMANDS } from './commands.js';
import { version } from '../version.js';
import { fitLines } from '../output/text.js';

/** Runs one command's action with a fresh context; the action returns its exit code. */
export type Runner = (cmd: Command, action: (ctx: RunContext) => Promise<number | void>) => Promise<void>;

/** A command of the tree: its definition (none for the root) and its children, in the list's order. */
interface Node {
  def?: Definition;
  heading?: string;
  children: Map<string, Node>;
}

function tree(): Node {
  const root: Node = { children: new Map() };
  for (const { heading, definitions } of COMMANDS) {
    for (const def of definitions) {
      let node = root;
      for (const name of def.path) {
        let next = node.children.get(name);
        if (!next) node.children.set(name, (next = { children: new Map() }));
        node = next;
      }
      node.def = def;
      if (def.path.length === 1) node.heading = heading;
    }
  }
  return root;
}

/** What a command is typed as: its name, and its alias if it has one. */
function namesOf(def: Definition): string[] {
  const name = def.path.at(-1)!;
  return 'alias' in def && def.alias ? [name, def.alias] : [name];
}

/** Whether argv names a command: by its name or its alias. */
function named(argv: readonly string[], def: Definition): boolean {
  return namesOf(def).some((name) => argv.includes(name));
}

/** Arguments, flags, help and action of a command. */
function fill(cmd: Command, def: CommandDef, runner: Runner): void {
  // A noun takes any words (to name a mistyped verb); its commands inherit that from commander unless told.
  cmd.allowExcessArguments(false);
  if (def.operation) addParams(cmd, def.operation, def.skip);
  def.flags?.(cmd);
  cmd.addHelpText('after', helpAfter(def.about, def.examples));
  // commander passes the positional arguments, then the options, then the command.
  cmd.action((...params: unknown[]) => {
    const command = params.pop() as Command;
    const opts = params.pop() as CliValues;
    return runner(command, (ctx) => def.run(ctx, opts, params as Positional[], command));
  });
}

/**
 * Adds the children of `node` to `parent`, as far as the run reaches: the
 * ones argv names, or all of them when it names none. A command's own
 * children are added only when argv names it (or completion walks the
 * whole tree). `smslink link get 1` builds no message or config commands
 * and of the link commands only `get`; `--help` builds no subcommands.
 * `parent` knows the names of all its children, built or not, to compare
 * a mistyped one with (typos.ts). Remeasure what this is worth with
 * `npm run bench -- --timer instructions --only help,get` against a
 * version that builds everything.
 */
function addChildren(parent: SmslinkCommand, node: Node, runner: Runner, reach: { argv: readonly string[]; all: boolean; help: boolean }): void {
  const children = [...node.children.values()].filter((c): c is Node & { def: Definition } => c.def !== undefined);
  parent.commandNames = children.flatMap(({ def }) => namesOf(def));
  const chosen = reach.all || reach.help ? [] : children.filter((c) => named(reach.argv, c.def));
  for (const child of chosen.length ? chosen : children) {
    const { def } = child;
    const cmd = parent.command(def.path.at(-1)!).description(summaryOf(def));
    if ('alias' in def && def.alias) cmd.alias(def.alias);
    if (child.heading) cmd.helpGroup(child.heading);
    if ('group' in def) helpWhenAlone(cmd).addHelpText('after', helpAfter(def.about, def.examples));
    else fill(cmd, def, runner);
    if (child.children.size && (reach.all || named(reach.argv, def))) addChildren(cmd, child, runner, reach);
  }
}

export function buildProgram(io: CliIO, runner: Runner, argv: readonly string[]): Command {
  const program = new SmslinkCommand('smslink')
    .description('Short links and single SMS from the command line.')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage and examples)')
    .exitOverride()
    .configureOutput({
      // Piped (into less, a file), help keeps to the 80 columns its flags and paragraphs are written in: a long example breaks as in a shell.
      writeOut: (s) => io.stdout.write(io.stdout.isTTY && io.stdout.columns ? fitHelpText(s, io.stdout.columns) : fitHelpText(s, 80, false)),
      // commander's own errors (an unknown option, extra words) break at spaces at a terminal, as every other error does (run.ts).
      writeErr: (s) => io.stderr.write(io.stderr.isTTY ? fitLines(s, io.stderr.columns) : s),
      // What commander writes has no colour of its own to keep or strip: asked, it would read process.stdout (design rule 2).
      getOutHasColors: () => false,
      getErrHasColors: () => false,
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
      `\nSettings: flag > environment (SMSLINK_API_KEY, SMSLINK_BASE_URL,\nSMSLINK_PROFILE) > config profile > default.\n\nTimes (--since, --at ...): 7d is 7 days ago, +2h is 2 hours from now;\n\`smslink help time\` has every form.\n\n${EXIT_CODES_HELP}\n`,
  );

  // Completion walks the whole tree; help lists siblings with their arguments and flags (-h may be combined, as in -qh).
  const help = argv[0] === 'help' || argv.some((a) => a === '--help' || /^-[^-]*h/.test(a));
  const reach = { argv, all: argv.includes('completion'), help };
  addChildren(program, tree(), runner, reach);
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
