// Help and suggestions read the command tree, which run.ts builds only as far
// as a run can reach (a noun's subcommands only when argv names the noun).
// What a user sees must not depend on that.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/catalog/index.js';
import { runCli } from '../../helpers/run-cli.js';

/** The catalog's operations that are commands (User/GetOwnBalance is reached with `smslink api`). */
const COMMANDS = OPERATIONS.flatMap((op) => (op.command ? [{ ...op, command: op.command }] : []));

/** The names in the command sections of a help text (Commands:, Setup commands: ...). */
const commandsOf = (help: string) =>
  help
    .split('\n\n')
    .filter((block) => /^\w[\w ]*ommands:\n/.test(block))
    .flatMap((block) => block.split('\n').filter((line) => /^ {2}\S/.test(line)))
    // `list|ls`: the command, then its alias.
    .map((line) => line.trim().split(/\s+/)[0].split('|')[0]);

describe('help', () => {
  it('lists every noun with its description', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(commandsOf(r.stdout)).toEqual(['link', 'message', 'balance', 'sync', 'report', 'search', 'config', 'login', 'status', 'completion', 'serve', 'inbox', 'sandbox', 'api', 'help']);
    expect(r.stdout).toMatch(/^ {2}message +Send single SMS messages and follow their\s+delivery$/m);
  });

  it("lists each noun's subcommands, every operation of the catalog included", async () => {
    const expected: Record<string, string[]> = {
      link: COMMANDS.filter((op) => op.command[0] === 'link').map((op) => op.command[1]),
      message: COMMANDS.filter((op) => op.command[0] === 'message').map((op) => op.command[1]),
      config: ['set', 'get', 'unset', 'list', 'use'],
      sandbox: ['path', 'reset'],
    };
    for (const [noun, subcommands] of Object.entries(expected)) {
      const r = await runCli([noun, '--help']);
      expect(r.code, noun).toBe(0);
      expect(commandsOf(r.stdout), noun).toEqual(expect.arrayContaining(subcommands));
    }
  });

  it("shows each operation as the command its catalog entry names, with the entry's summary, arguments and flags", async () => {
    for (const op of COMMANDS) {
      const help = (await runCli([...op.command, '--help'])).stdout;
      const name = op.command.join(' ');
      expect(help, name).toMatch(new RegExp(`Usage: smslink ${name}[ |]`));
      expect(help.replace(/\s+/g, ' '), name).toContain(op.summary);
      for (const param of op.params) {
        if (param.cli?.flag) expect(help, `${name} ${param.key}`).toContain(`${param.cli.flag.split(' ')[0]} `);
        if (param.cli?.arg) expect(help, `${name} ${param.key}`).toContain(param.cli.arg.replace(/[<>[\].]/g, ''));
      }
    }
  });

  it('suggests the noun or subcommand meant by a typo', async () => {
    const noun = await runCli(['mesage', 'send', '--to', '77011234567', '--text', 'hi']);
    expect(noun.code).toBe(2);
    expect(noun.stderr).toContain('unknown command "mesage" (did you mean message?)');
    const sub = await runCli(['link', 'crate', 'https://example.com']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown command "link crate" (did you mean link create?)');
  });

  // A run that names a command builds its siblings by name and description only (Reach in run.ts).
  it('suggests a sibling of a command the run names', async () => {
    const sub = await runCli(['link', 'crate', 'list']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('unknown command "link crate" (did you mean link create?)');
    const top = await runCli(['serv', 'link']);
    expect(top.code).toBe(2);
    expect(top.stderr).toContain('unknown command "serv" (did you mean serve?)');
  });

  it('shows the same help for a command whatever else argv names', async () => {
    for (const [args, alone] of [
      [['-qh', 'link'], ['--help']],
      [['link', '--help', 'get'], ['link', '--help']],
      [['link', 'get', '-h'], ['link', 'get', '--help']],
    ]) {
      expect((await runCli(args)).stdout, args.join(' ')).toBe((await runCli(alone)).stdout);
    }
  });
});

describe('help for people', () => {
  /** Every command path, found by reading the help texts as a person would. */
  async function allCommands(): Promise<string[][]> {
    const out: string[][] = [];
    for (const noun of commandsOf((await runCli(['--help'])).stdout)) {
      out.push([noun]);
      for (const verb of commandsOf((await runCli([noun, '--help'])).stdout)) out.push([noun, verb]);
    }
    return out;
  }

  it('every command has examples, and every subcommand lists the global flags a person reaches for', async () => {
    const commands = await allCommands();
    expect(commands.length).toBeGreaterThan(20);
    for (const path of commands) {
      const help = (await runCli([...path, '--help'])).stdout;
      expect(help, path.join(' ')).toMatch(/^Examples:\n {2}\S/m);
      expect(help, path.join(' ')).toContain('Global flags');
      expect(help, path.join(' ')).toMatch(/^ {2}-o, --output <format> /m);
    }
  });

  it('the prose of every help is written within 80 columns, as a pipe or a pager shows it (a terminal reflows it to its width)', async () => {
    for (const path of [[], ...(await allCommands())]) {
      const help = (await runCli([...path, '--help'])).stdout;
      // Paragraphs: lines that start at the margin (flags, lists and examples are indented).
      for (const line of help.split('\n').filter((l) => /^\S/.test(l))) expect(line.length, `${path.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
    }
  });

  // `smslink message send --help | less` at 80 columns: less wraps a line at 80, cutting an example mid-word ("2026-12-01 09:00\n" --validity).
  it('piped, no line of any help is wider than 80 columns: a long example is broken as in a shell', async () => {
    for (const path of [[], ...(await allCommands())]) {
      const piped = (await runCli([...path, '--help'])).stdout;
      for (const line of piped.split('\n')) expect([...line].length, `${path.join(' ')}: ${line}`).toBeLessThanOrEqual(80);
    }
    const send = (await runCli(['message', 'send', '--help'])).stdout;
    // A flag stays with its value.
    expect(send).toContain('  smslink message send --to 77011234567 --text "Reminder" \\\n      --at "2026-12-01 09:00" --validity 120\n');
  });

  it.each([['a pipe', undefined], ['a terminal of 50', 50], ['of 60', 60], ['of 80', 80], ['of 100', 100]] as const)('never breaks a command in backticks over two lines: %s', async (_where, columns) => {
    const opts = columns === undefined ? {} : { tty: true, columns };
    for (const path of [[], ...(await allCommands())]) {
      const help = (await runCli([...path, '--help'], opts)).stdout;
      // A line with an odd number of backticks opens a span that another line closes: `smslink help\ntime`.
      const split = help.split('\n').filter((line) => (line.match(/`/g) ?? []).length % 2 === 1);
      expect(split, `smslink ${path.join(' ')} --help`).toEqual([]);
    }
    const sync = (await runCli(['sync', '--help'], opts)).stdout;
    expect(sync).toContain('`smslink help time`');
  });

  it('`smslink help [command...]` prints the same help as --help; an unknown one is an error naming the commands', async () => {
    expect((await runCli(['help'])).stdout).toBe((await runCli(['--help'])).stdout);
    expect((await runCli(['help', 'link', 'list'])).stdout).toBe((await runCli(['link', 'list', '--help'])).stdout);
    const bad = await runCli(['help', 'link', 'lst']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('help: unknown command "link lst" (did you mean link list?); commands: create, get, list');
  });

  it.each([60, 80])('`smslink help time` says the forms and the one rule of a sign, within %i columns', async (columns) => {
    const r = await runCli(['help', 'time'], { tty: true, columns });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const form of ['2026-12-01', '"2026-12-01 09:00"', '09:00', 'now', '7d', '+2h']) expect(text).toContain(form);
    expect(text).toContain('A time without a sign counts back');
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(columns);
    // The root help points there.
    expect((await runCli(['--help'])).stdout).toContain('`smslink help time` has every form');
  });

  it('a noun alone prints its help and exits 0, as smslink alone does; an unknown verb still exits 2', async () => {
    const alone = await runCli(['link']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe((await runCli(['link', '--help'])).stdout);
    expect((await runCli([])).code).toBe(0);
    const unknown = await runCli(['link', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "link frobnicate"');
  });

  it.each([60, 80, 120])('root help at %i columns: commands before flags, no line wider than the terminal', async (columns) => {
    const r = await runCli(['--help'], { tty: true, columns });
    expect(r.stdout.indexOf('Commands:')).toBeLessThan(r.stdout.indexOf('flags:'));
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
    const sub = await runCli(['message', 'send', '--help'], { tty: true, columns });
    for (const line of sub.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns);
  });
});
