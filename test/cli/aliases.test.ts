// `ls` and `rm` are `list` and `delete` by their short names, as in gh: they
// run the same command, help shows them beside the full name, and shell
// completion completes their flags.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useRecordingServer } from '../helpers/recording-server.js';
import { commandTree } from '../../src/cli/completion/completion.js';
import { buildProgram } from '../../src/cli/program.js';

const rec = useRecordingServer('AliasTestKey0123456789abcdefABCDEF0123456');

describe('ls and rm', () => {
  it('link ls and message ls list, sending what list sends', async () => {
    const ls = await rec.cli(['link', 'ls', '--query', 'promo', '-q']);
    const list = await rec.cli(['link', 'list', '--query', 'promo', '-q']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toBe(list.stdout);
    expect(rec.server.requests.map((r) => [r.path, r.body])).toEqual([
      [rec.server.requests[1].path, rec.server.requests[1].body],
      [rec.server.requests[1].path, rec.server.requests[1].body],
    ]);
    expect(rec.server.requests[0].path).toMatch(/Link\/List/i);
    expect((await rec.cli(['message', 'ls', '--to', '7701'])).code).toBe(0);
    expect(rec.server.requests[2].path).toMatch(/Message\/List/i);
  });

  it('link rm deletes', async () => {
    const r = await rec.cli(['link', 'rm', '417863', '--yes', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(rec.server.requests[0].path).toMatch(/Link\/Delete/i);
  });

  it('help shows each alias beside its command; help of the alias is the command\'s', async () => {
    const help = await runCli(['link', '--help']);
    expect(help.stdout).toMatch(/^ {2}list\|ls /m);
    expect(help.stdout).toMatch(/^ {2}delete\|rm <link\.\.\.>/m);
    const ls = await runCli(['link', 'ls', '--help']);
    expect(ls.stdout).toContain('--page-size');
    expect((await runCli(['help', 'message', 'ls'])).stdout).toContain('--sent-from');
  });

  it('completion offers the full names and completes the flags of an alias', () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {} };
    const tree = commandTree(buildProgram(io, async () => {}, ['completion']));
    expect(tree.nodes.find((n) => n.path === 'link')!.subcommands).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(tree.nodes.find((n) => n.path === 'link')!.subcommands).not.toContain('ls');
    expect(tree.nodes.find((n) => n.path === 'link ls')!.flags).toContain('--page-size');
    expect(tree.nodes.find((n) => n.path === 'link rm')!.flags).toContain('--yes');
  });
});
