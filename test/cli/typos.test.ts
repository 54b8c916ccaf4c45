// One rule for typos, on every command of the tree: a mistyped subcommand
// is named, with the command meant, whatever flags follow it (people type
// whole lines: `message sned --to 1`); a flag a real command does not know is
// an unknown option, with the flag meant when it is a near miss.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/run-cli.js';

/** `sned` for send: two neighbouring letters swapped, after the first. */
function typo(name: string): string {
  const i = [...name].findIndex((c, k) => k > 0 && k < name.length - 1 && c !== name[k + 1]);
  return i < 0 ? `${name}x` : name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
}

/** A command's own flags a person types after it (not --help). */
const ownFlags = (cmd: Command) => cmd.options.filter((o) => o.long && !o.hidden && o.long !== '--help').map((o) => o.long!);

interface Node {
  path: string[];
  cmd: Command;
}

function commands(): Node[] {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {} };
  const out: Node[] = [];
  const walk = (cmd: Command, path: string[]) => {
    out.push({ path, cmd });
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(buildProgram(io, async () => {}, ['completion']), []);
  return out;
}

const ALL = commands();
const CHILDREN = ALL.filter((n) => n.path.length > 0);
const LEAVES = ALL.filter((n) => n.path.length > 0 && n.cmd.commands.length === 0);

describe('a mistyped command followed by flags', () => {
  it('the walk reaches every level', () => {
    const paths = CHILDREN.map((n) => n.path.join(' '));
    expect(paths).toEqual(expect.arrayContaining(['link', 'link create', 'message send', 'config get', 'report delivery', 'sandbox reset', 'sync', 'help']));
  });

  it.each(CHILDREN.map((n) => [n.path.join(' '), n] as const))('%s, mistyped, then its own flag: the command is named', async (_name, { path, cmd }) => {
    const mistyped = [...path.slice(0, -1), typo(path.at(-1)!)];
    const flag = ownFlags(cmd)[0] ?? '--all';
    const r = await runCli([...mistyped, flag, 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: unknown command "${mistyped.join(' ')}" (did you mean ${path.join(' ')}?)`);
    expect(r.stderr).not.toContain('unknown option');
  });
});

describe('a mistyped command beside a word that names another', () => {
  // A run builds only the commands its words name (program.ts): `status` builds `smslink status` alone, yet
  // the command meant by "lnk" is still found, among every command of the list.
  it.each([
    [['lnk', 'status'], 'error: unknown command "lnk" (did you mean link?)'],
    [['message', 'sned', '--to', 'status'], 'error: unknown command "message sned" (did you mean message send?)'],
    [['link', 'ls', 'gte'], 'error: link list takes no arguments: "gte" is extra (quote a value that holds spaces)'],
    [['link', 'lits', 'get'], 'error: unknown command "link lits" (did you mean link list?)'],
  ])('%j', async (args, said) => {
    const r = await runCli(args);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, said]);
  });
});

describe('an unknown flag on a real command', () => {
  it.each(LEAVES.map((n) => [n.path.join(' '), n] as const))('%s: an unknown option, the near miss offered', async (_name, { path, cmd }) => {
    const far = await runCli([...path, '--zzqqx']);
    expect(far.code).toBe(2);
    expect(far.stderr.split('\n')[0]).toBe(`error: ${path.join(' ')}: unknown option "--zzqqx"`);
    const flag = ownFlags(cmd)[0];
    if (!flag) return;
    const near = await runCli([...path, flag.slice(0, -1)]);
    expect(near.code).toBe(2);
    expect(near.stderr.split('\n')[0]).toBe(`error: ${path.join(' ')}: unknown option "${flag.slice(0, -1)}" (did you mean ${flag}?)`);
  });
});

describe('a word too many', () => {
  // A noun takes any word (to name a mistyped verb); its commands must not inherit that and drop a word silently.
  const fixed = LEAVES.filter((n) => !n.cmd.registeredArguments.some((a) => a.variadic) && n.path.join(' ') !== 'status');
  it.each(fixed.map((n) => [n.path.join(' '), n] as const))('%s refuses an argument more than it takes', async (_name, { path, cmd }) => {
    const args = cmd.registeredArguments.map(() => '1');
    const r = await runCli([...path, ...args, 'extra', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ takes (no arguments|one argument, not 2|\d arguments, not \d): .*"extra" (is|are) extra \(quote a value that holds spaces\)/);
  });

  it('says a word too many, and an argument not given, in the catalog\'s words', async () => {
    const extra = await runCli(['message', 'send', '--to', '77011234567', '--text', 'hello', 'world', '--dry-run']);
    expect([extra.code, extra.stderr.split('\n')[0]]).toEqual([2, 'error: message send takes no arguments: "world" is extra (quote a value that holds spaces)']);
    const two = await runCli(['link', 'create', 'https://a.example', 'b', 'c', '--dry-run']);
    expect(two.stderr).toContain('error: link create takes one argument, not 3: "b", "c" are extra');
    for (const [args, said] of [
      [['message', 'status'], 'error: message status: <id...> is required'],
      [['link', 'get'], 'error: link get: <link> is required'],
    ] as const) {
      const r = await runCli([...args]);
      expect([r.code, r.stderr.split('\n')[0]]).toEqual([2, said]);
    }
  });
});

describe('at an 80-column terminal', () => {
  // `message send --to +7 701 123 45 67` was told "... are extra (quot" / "e a value that holds spaces)": commander's errors went out unbroken.
  it.each([
    [['message', 'send', '--to', '+7', '701', '123', '45', '67', '--text', 'hi'], 'quote a value that holds spaces'],
    [['message', 'list', '--campaign-idz', '1'], 'did you mean --campaign-ids?'],
  ])('a mistake commander finds is broken at spaces, as every other error: %j', async (args, said) => {
    const r = await runCli(args, { tty: true, columns: 80 });
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.join(' ')).toContain(said);
    // Piped, it stays on the line it was written on, for a script that greps it.
    expect((await runCli(args)).stderr.split('\n')[0]).toContain(said);
  });
});
