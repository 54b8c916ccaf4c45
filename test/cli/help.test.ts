// Help and suggestions read the command tree, which run.ts builds only as far
// as a run can reach (a noun's subcommands only when argv names the noun).
// What a user sees must not depend on that.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/catalog/index.js';
import { runCli } from '../helpers/run-cli.js';

/** The names in the Commands: section of a help text. */
const commandsOf = (help: string) =>
  help
    .slice(help.indexOf('Commands:'))
    .split('\n\n')[0]
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim().split(/\s+/)[0]);

describe('help', () => {
  it('lists every noun with its description', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(commandsOf(r.stdout)).toEqual(['link', 'message', 'config', 'login', 'status', 'api', 'serve', 'sandbox', 'completion']);
    expect(r.stdout).toMatch(/^ {2}message +Send single SMS messages and follow their delivery$/m);
  });

  it("lists each noun's subcommands, every operation of the catalog included", async () => {
    const expected: Record<string, string[]> = {
      link: OPERATIONS.filter((op) => op.command[0] === 'link').map((op) => op.command[1]),
      message: OPERATIONS.filter((op) => op.command[0] === 'message').map((op) => op.command[1]),
      config: ['set', 'get', 'unset', 'list', 'use'],
      sandbox: ['path', 'reset'],
    };
    for (const [noun, subcommands] of Object.entries(expected)) {
      const r = await runCli([noun, '--help']);
      expect(r.code, noun).toBe(0);
      expect(commandsOf(r.stdout), noun).toEqual(expect.arrayContaining(subcommands));
    }
  });

  it('suggests the noun or subcommand meant by a typo', async () => {
    const noun = await runCli(['mesage', 'send', '--to', '77011234567', '--text', 'hi']);
    expect(noun.code).toBe(2);
    expect(noun.stderr).toContain('(Did you mean message?)');
    const sub = await runCli(['link', 'crate', 'https://example.com']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('(Did you mean create?)');
  });

  // A run that names a command builds its siblings by name and description only (Reach in run.ts).
  it('suggests a sibling of a command the run names', async () => {
    const sub = await runCli(['link', 'crate', 'list']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('(Did you mean create?)');
    const top = await runCli(['serv', 'link']);
    expect(top.code).toBe(2);
    expect(top.stderr).toContain('(Did you mean serve?)');
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
