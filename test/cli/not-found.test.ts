// One rule for every command that takes links or messages (the emulator's
// inbox too), found by walking the command tree: none of them exists -> exit
// 6, nothing printed, and the one sentence of words.ts notFound(); some of
// them -> exit 5, the others done and shown; nothing is asked about a link
// that does not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { notFound } from '../../src/output/words.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

/** The first argument of each command that names links, messages or a campaign, by the name its help gives it. */
const KINDS: Record<string, 'link' | 'message' | 'campaign'> = { link: 'link', id: 'message', campaignId: 'campaign' };

/** What a command needs after the id (and flags) to do anything at all; each list is one run. */
const VARIANTS: Record<string, string[][]> = {
  'inbox set-status': [['rejected']],
  'link update': [
    ['--comment', 'x'],
    // An expiry given: no Link/Get first, Link/Update itself says not found.
    ['--expires', '+3d'],
  ],
  'message status': [[], ['--wait', '--wait-timeout', '5s']],
};

interface Taker {
  path: string;
  kind: 'link' | 'message' | 'campaign';
  variadic: boolean;
}

/** Every command of the tree whose first argument is links, messages or a campaign. */
function takers(): Taker[] {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {} };
  const program = buildProgram(io, async () => {}, ['completion']);
  const out: Taker[] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
    const first = cmd.registeredArguments[0];
    const kind = first && KINDS[first.name()];
    if (kind) out.push({ path: path.join(' '), kind, variadic: first.variadic });
  };
  walk(program, []);
  return out;
}

const TAKERS = takers();

let emu: TestEmulator;
let message: string;
const cli = (args: string[], opts: { tty?: boolean } = {}) => runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, NO_COLOR: '1' }, ...opts });

beforeAll(async () => {
  emu = await startTestEmulator();
  message = String(JSON.parse((await cli(['message', 'send', '--to', '77011234567', '--text', 'hi'])).stdout).messageId);
});
afterAll(() => emu.close());

describe('not found, on every command that takes links or messages', () => {
  it('the walk finds them all', () => {
    expect(TAKERS.map((t) => t.path).sort()).toEqual(
      expect.arrayContaining(['link campaign', 'link delete', 'link get', 'link stats', 'link update', 'message get', 'message status', 'inbox set-status']),
    );
  });

  const runs = TAKERS.flatMap((t) => (VARIANTS[t.path] ?? [[]]).map((flags) => ({ ...t, flags })));

  it.each(runs.map((r) => [`${r.path} 99999 ${r.flags.join(' ')}`, r] as const))('%s: exit 6, nothing printed, the one sentence', async (_name, r) => {
    const res = await cli([...r.path.split(' '), '99999', ...r.flags]);
    expect(res.code, res.stderr).toBe(6);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`error: ${notFound(r.kind, ['99999'])}\n`);
  });

  const several = TAKERS.filter((t) => t.variadic);
  it.each(several.map((t) => [t.path, t] as const))('%s with one that exists and one that does not: exit 5, the one that exists done', async (_name, t) => {
    // A link of its own: link delete deletes the one it finds.
    const known = t.kind === 'message' ? message : String(JSON.parse((await cli(['link', 'create', `https://example.com/${t.path.replace(' ', '-')}`])).stdout).id);
    // A code, as a person copies it, for links: named as typed.
    const unknown = t.kind === 'link' ? 'zzzzzz' : '99999';
    const res = await cli([...t.path.split(' '), known, unknown]);
    expect(res.code, res.stderr).toBe(5);
    expect(res.stdout).toContain(known);
    expect(res.stderr.trimEnd().split('\n').at(-1)).toBe(`error: ${notFound(t.kind, [unknown])}`);
  });

  it('link delete at a terminal asks nothing about links that do not exist', async () => {
    const res = await cli(['link', 'delete', '99999', '99998'], { tty: true });
    expect(res.code).toBe(6);
    expect(res.stderr).toBe(`error: ${notFound('link', ['99999', '99998'])}\n`);
  });

  it('link stats of an id that is no link is not "no clicks"', async () => {
    const res = await cli(['link', 'stats', '99999', '-o', 'table'], { tty: true });
    expect(res.code).toBe(6);
    expect(res.stdout).not.toContain('no clicks');
  });
});
