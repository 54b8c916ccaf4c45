// Help for people: commands before flags, text wrapped to the terminal,
// every subcommand's help ends with the global flags a person reaches for,
// `smslink help [command...]`, and a noun alone (`smslink link`) shows its
// help and exits 0, as `smslink` alone does.

import type { Command, Help, Option } from 'commander';
import { UsageError } from '../../exit-codes.js';
import { reflow } from '../../output/text.js';
import type { CommandDef } from './command.js';
import { TIME_HELP } from './time.js';
import { unknownName } from '../../output/words.js';

/** A command's examples, as its help ends. */
export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/** The help after a command's flags: paragraphs, then examples. */
export function helpAfter(about: string | undefined, lines: readonly string[]): string {
  return about === undefined ? examples(lines) : `\n${about}\n${examples(lines)}`;
}

/** The global flags each subcommand's help repeats; `smslink --help` lists them all. */
const SHORT_GLOBALS = ['--output', '--json', '--fields', '--jq', '--quiet', '--dry-run', '--verbose', '--profile', '--sandbox'];

/** Descriptions narrower than this go on the line under their flag. */
const MIN_DESCRIPTION = 24;

function section(title: string, items: string[]): string[] {
  return items.length ? [title, ...items, ''] : [];
}

function shortGlobals(cmd: Command, helper: Help): Option[] {
  if (!cmd.parent) return [];
  return helper.visibleGlobalOptions(cmd).filter((o) => SHORT_GLOBALS.includes(o.long ?? ''));
}

/** Lays out a command's help: usage, description, arguments, commands, flags (by group), global flags. */
function formatHelp(cmd: Command, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const globals = shortGlobals(cmd, helper);
  const termWidth = Math.max(helper.padWidth(cmd, helper), ...globals.map((o) => helper.optionTerm(o).length));
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  const out = [`Usage: ${helper.commandUsage(cmd)}`, ''];
  const description = helper.commandDescription(cmd);
  if (description) out.push(helper.boxWrap(description, width), '');
  out.push(...section('Arguments:', helper.visibleArguments(cmd).map((a) => item(helper.argumentTerm(a), helper.argumentDescription(a)))));
  const commands = new Map<string, string[]>();
  for (const c of helper.visibleCommands(cmd)) {
    const heading = c.helpGroup() || 'Commands:';
    commands.set(heading, [...(commands.get(heading) ?? []), item(helper.subcommandTerm(c), helper.subcommandDescription(c))]);
  }
  // Headings in the order their first commands were added (src/cli/commands.ts lists them so).
  for (const [heading, items] of commands) out.push(...section(heading, items));
  const groups = new Map<string, string[]>();
  for (const option of helper.visibleOptions(cmd)) {
    const heading = option.helpGroupHeading ?? 'Flags:';
    groups.set(heading, [...(groups.get(heading) ?? []), item(helper.optionTerm(option), helper.optionDescription(option))]);
  }
  for (const [heading, items] of groups) out.push(...section(heading, items));
  if (globals.length) {
    out.push(...section('Global flags (`smslink --help` lists them all):', globals.map((o) => item(helper.optionTerm(o), helper.optionDescription(o)))));
  }
  return out.join('\n');
}

/**
 * A flag and its description; where the terminal leaves too little room
 * beside the flag, the description goes on the lines under it.
 */
function formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  if (!description) return `  ${term}`;
  const room = width - termWidth - 4;
  if (room >= MIN_DESCRIPTION) {
    const wrapped = helper.boxWrap(description, room).replace(/\n/g, `\n${' '.repeat(termWidth + 4)}`);
    return `  ${term.padEnd(termWidth)}  ${wrapped}`;
  }
  return `  ${term}\n${helper.boxWrap(description, width - 6).replace(/^/gm, '      ')}`;
}

/**
 * commander's wrap of a description, done as help paragraphs are
 * (reflow): at spaces, never inside a command in backticks (`smslink help
 * time` stays on one line, to paste whole); the line breaks it was written
 * with are kept.
 */
function boxWrap(this: Help, text: string, width: number): string {
  if (width < MIN_DESCRIPTION) return text;
  return text
    .split('\n')
    .map((line) => reflow(line, width).join('\n'))
    .join('\n');
}

/** A command in a list of commands: its name (and aliases: `list|ls`), and its arguments when it has no subcommands of its own. */
function subcommandTerm(cmd: Command): string {
  const name = [cmd.name(), ...cmd.aliases()].join('|');
  if (cmd.commands.length) return name;
  const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
  return [name, ...args].join(' ');
}

/** Help settings for the program; subcommands inherit them. */
export function configureHelp(program: Command, width: () => number | undefined): void {
  program.configureHelp({ formatHelp, formatItem, boxWrap, subcommandTerm, minWidthToWrap: MIN_DESCRIPTION, sortSubcommands: false, showGlobalOptions: true });
  const helpWidth = () => width() ?? 80;
  program.configureOutput({ getOutHelpWidth: helpWidth, getErrHelpWidth: helpWidth });
}

/**
 * An example command broken at spaces (not inside quotes) with a trailing
 * backslash, so it still pastes as one command; a flag stays on the line of
 * its value (`--at "2026-12-01 09:00"`).
 */
function fitExample(line: string, width: number): string {
  if (line.length <= width) return line;
  const words = line
    .trim()
    .split(/ (?=(?:[^"']*["'][^"']*["'])*[^"']*$)/)
    .reduce<string[]>((out, word) => {
      const last = out.at(-1);
      if (last !== undefined && /^--?[a-z]/i.test(last) && !last.includes(' ') && word !== '' && !/^(-.|[#|&;])/.test(word)) out[out.length - 1] = `${last} ${word}`;
      else out.push(word);
      return out;
    }, []);
  const lines: string[] = [];
  let current = '  ';
  for (const word of words) {
    if (current.trim() && current.length + word.length + 3 > width) {
      lines.push(`${current} \\`);
      current = '      ';
    }
    current += current.trim() ? ` ${word}` : word;
  }
  return [...lines, current].join('\n');
}

/**
 * The text around a command's help (paragraphs, examples), fitted to the
 * terminal: paragraphs are reflowed, long examples broken as in a shell.
 * Indented blocks (lists, tables) are left as written. Piped (`reflow`
 * false), paragraphs keep the lines they were written on, within 80
 * columns, and only what is wider is broken.
 */
export function fitHelpText(text: string, width: number, reflowParagraphs = true): string {
  return text
    .split(/\n\n/)
    .map((block) => {
      const lines = block.split('\n');
      const first = lines.findIndex((l) => l !== '');
      if (first < 0) return block;
      if (lines[first] === 'Examples:') return lines.map((l) => (l.startsWith('  ') ? fitExample(l, width) : l)).join('\n');
      if (lines.every((l) => !l.startsWith(' '))) {
        if (!reflowParagraphs) return block;
        const heading = lines.length > first + 1 && lines[first].endsWith(':') && !lines[first].includes(' ');
        return heading ? block : '\n'.repeat(first) + reflow(lines.join(' '), width).join('\n') + (block.endsWith('\n') ? '\n' : '');
      }
      return lines.map((l) => fitItem(l, width)).join('\n');
    })
    .join('\n\n');
}

/** A `  term  description` line longer than the terminal: the description wraps under itself. */
function fitItem(line: string, width: number): string {
  const match = /^( +\S+(?: \S+)*? {2,})(.*)$/.exec(line);
  if (line.length <= width || !match || match[1].length > width / 2) return line;
  return match[1] + reflow(match[2], width - match[1].length).join(`\n${' '.repeat(match[1].length)}`);
}

/** A noun (link, message...) given alone prints its help to stdout and succeeds; an unknown verb is still an error. */
export function helpWhenAlone(noun: Command): Command {
  return noun.allowExcessArguments(true).action((_opts: unknown, cmd: Command) => {
    if (cmd.args.length) (cmd as unknown as { unknownCommand(): never }).unknownCommand();
    cmd.outputHelp();
  });
}

/** Help on a subject rather than a command: `smslink help time`. */
const TOPICS: Readonly<Record<string, string>> = { time: TIME_HELP };

/** `smslink help [command...]`: the help of that command, as `--help` gives it, or of a topic. */
export const HELP: CommandDef = {
  path: ['help'],
  summary: 'Show help for a command, or on times (`smslink help time`)',
  flags: (cmd) => cmd.argument('[command...]', 'a command, e.g. link list, or a topic: time'),
  examples: ['smslink help', 'smslink help link', 'smslink help message send', 'smslink help time'],
  async run(ctx, _opts, [words], cmd) {
    let at = cmd.parent!;
    const typed = (words as string[] | undefined) ?? [];
    const topic = typed.length === 1 ? TOPICS[typed[0].toLowerCase()] : undefined;
    if (topic !== undefined) return void ctx.stdout.write(ctx.io.stdout.isTTY && ctx.io.stdout.columns ? fitHelpText(topic, ctx.io.stdout.columns) : topic);
    for (const [i, word] of typed.entries()) {
      const next = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
      if (!next) {
        const known = at.commands.map((c) => c.name()).filter((n) => n !== 'help');
        const choices = i === 0 ? [...known, ...Object.keys(TOPICS)] : known;
        const kind = i === 0 ? 'command or topic' : 'command';
        throw new UsageError(`help: ${unknownName(kind, word, choices, typed.slice(0, i).join(' '))}; ${i === 0 ? 'commands and topics' : 'commands'}: ${choices.join(', ')}`);
      }
      at = next;
    }
    at.outputHelp();
  },
};
