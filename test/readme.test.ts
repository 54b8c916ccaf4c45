// The README is the front door: its commands must work as written. The
// quick start's sandbox lines run for real through the built bin, as a
// newcomer would type them; every other example is parsed and checked by the
// CLI itself with --dry-run against an emulator seeded with what the
// examples name, so a renamed flag, a refused value or a dropped command
// fails here.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { binEnv, runCli, tempDir } from './helpers/run-cli.js';

const exec = promisify(execFile);
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const BIN = new URL('../bin/smslink.js', import.meta.url).pathname;

/** The `smslink …` lines of the README's sh blocks, comments removed, under the heading they follow. */
function examples(): Array<{ section: string; line: string[] }> {
  const out: Array<{ section: string; line: string[] }> = [];
  let section = '';
  let fence = false;
  for (const raw of README.split('\n')) {
    if (raw.startsWith('## ')) section = raw.slice(3);
    if (raw.startsWith('```')) fence = !fence;
    const line = raw.replace(/\s+#\s[^'"]*$/, '').trim();
    // A pipeline's smslink commands are each an example; a redirection is not part of one.
    if (fence && line.startsWith('smslink ')) for (const part of pipeline(line)) out.push({ section, line: part });
  }
  return out;
}

/**
 * A command line's words as a shell splits this README's: single and double
 * quotes, no expansions. A `|` outside quotes ends a command; `>` and what
 * follows is a redirection, not part of it.
 */
function shellCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\|)|(>)|(\S+)/g)) {
    if (m[3]) commands.push([]);
    else if (m[4]) break;
    else commands[commands.length - 1].push(m[1] ?? m[2] ?? m[5]);
  }
  return commands;
}

/** Each smslink command of a pipeline, as its words. */
function pipeline(line: string): string[][] {
  return shellCommands(line).filter((words) => words[0] === 'smslink');
}

/** Lines a test cannot run as typed: they wait on a person or run until stopped. */
const INTERACTIVE = [/^smslink (--profile \S+ )?login$/, /^smslink config set api-key$/, /^smslink serve\b/];

describe('the README quick start', () => {
  it('runs each --sandbox line as written, through the installed bin, in a fresh data directory', async () => {
    const lines = examples().filter((e) => e.section === 'Quick start' && e.line.includes('--sandbox'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const env = binEnv({ SMSLINK_DATA_DIR: tempDir(), NO_COLOR: '1' });
    for (const { line } of lines) {
      const result = await exec(process.execPath, [BIN, ...line.slice(1)], { env, timeout: 60_000 }).catch((e: { code: number; stderr: string }) => e);
      expect({ line: line.join(' '), code: 'code' in result ? result.code : 0 }).toEqual({ line: line.join(' '), code: 0 });
    }
  }, 120_000);
});

describe('every other example of the README', () => {
  let emu: RunningEmulator;
  const KEY = 'ReadmeKey0123456789abcdefABCDEF0123456789';
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY], seed: { keys: [KEY], links: [{ fullLink: 'https://example.com/a', code: 'ddoj' }], messages: [{ to: '77011234567', text: 'Your code is 4711' }] } });
  });
  afterAll(() => emu.close());

  it('is a command smslink has, with flags and values it accepts (--dry-run)', async () => {
    const config = tempDir();
    const failures: string[] = [];
    const checked = examples().filter((e) => !(e.section === 'Quick start' && e.line.includes('--sandbox')));
    expect(checked.length).toBeGreaterThanOrEqual(20);
    for (const { line } of checked) {
      const args = line.slice(1);
      const text = line.join(' ');
      const interactive = INTERACTIVE.some((re) => re.test(text));
      // Configuration lines change only the private config dir, so they run for real.
      // So do reads filtered with --jq: the expression must meet the command's real output, not a dry run's.
      // And the mirror's commands, which only read (sync first, as the README has it).
      const real = args.includes('config') || ['status', 'completion', 'sync', 'report', 'search'].includes(args[0]) || args.includes('--jq');
      const command = args.slice(args.findIndex((a) => !a.startsWith('-') && a !== 'staging'));
      const firstFlag = command.findIndex((a) => a.startsWith('-'));
      // What a person would be asked or left running is checked as far as its help.
      const argv = interactive ? ['help', ...command.slice(0, firstFlag === -1 ? 2 : Math.min(firstFlag, 2))] : real ? args : [...args, '--dry-run'];
      const file = argv.indexOf('--from-file');
      if (file !== -1) {
        argv[file + 1] = join(config, argv[file + 1]);
        writeFileSync(argv[file + 1], 'recipient,name,code\n77011234567,Ann,4711\n');
      }
      const env = { SMSLINK_CONFIG_DIR: config, SMSLINK_DATA_DIR: config, SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
      const result = await runCli(argv, { env, stdin: args.at(-1) === '-' ? '417863\n' : '' });
      if (result.code !== 0) failures.push(`${text}\n  -> exit ${result.code}: ${result.stderr.trim().split('\n')[0]}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('the README lines for a CI job', () => {
  it('run as written, one after another, under bash -eo pipefail (an app stands in for npm test)', async () => {
    const section = README.split('\n## The emulator\n')[1]?.split('\n## ')[0] ?? '';
    const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('serve wait'));
    if (!block) throw new Error('README "The emulator" has no sh block with `serve wait`');
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const { port } = free.address() as AddressInfo;
    await new Promise((resolve) => free.close(resolve));
    const dir = tempDir();
    // smslink as an install puts it on the PATH.
    writeFileSync(join(dir, 'smslink'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const app = 'smslink message send --api-key ci-key --to +77011234567 --text "Your code is 482913" -q';
    // serve, left in the background by the block, is stopped when the script ends, however it ends.
    const script = `trap 'kill $(jobs -p) 2>/dev/null' EXIT\n${block.replaceAll('8080', String(port)).replace(/^npm test\b.*$/m, app)}`;
    const env = binEnv({ PATH: `${dir}:${process.env.PATH}`, CI: 'true' });
    const result = await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: dir, env, timeout: 60_000 }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect({ code: 'code' in result ? result.code : 0, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) as string });
    expect(result.stdout).toContain('\n482913\n');
    expect(result.stdout).toMatch(/^1\s+\S+ \S+\s+77011234567\s+SMSLINK\s+new\s+Your code is 482913$/m);
  }, 90_000);
});
