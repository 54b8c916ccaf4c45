// Errors and warnings at a terminal break at spaces, never inside a word as
// the terminal's own wrap would, and a command they quote (`smslink login`)
// stays on one line, to paste whole. Without a terminal they are left on the
// lines they were written on, for scripts that grep them. Run in a real
// terminal (test/helpers/pty.ts) at 60 and 80 columns, against the same run
// with stderr a pipe.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runInPty, screenText } from '../helpers/pty.js';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

const BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin/smslink.js');

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

/** The same command with stderr a pipe: its exit code and what it wrote there (not spawnSync: the emulator answers on this process's event loop). */
async function piped(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr };
}

const words = (text: string) => text.trim().split(/\s+/);

const WARNING = 'warning: --api-key is visible to other users in the process list; prefer SMSLINK_API_KEY or `smslink config set api-key -`.';

describe.each([60, 80])('at %i columns', (columns) => {
  /** What each writes on stderr: the same command with stderr a pipe, or (a warning said at a terminal only) its text. */
  const cases: Array<{ what: string; args: () => string[]; env: () => Record<string, string>; stderr: (args: string[], env: Record<string, string>) => Promise<string>; quoted: string }> = [
    {
      what: 'an error of one long line',
      args: () => ['--profile', 'nope', 'link', 'get', '999999'],
      env: () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }),
      stderr: async (args, env) => (await piped(args, env)).stderr,
      quoted: '`smslink --profile nope login`',
    },
    {
      what: 'an error of several lines',
      args: () => ['link', 'get', '1'],
      env: () => ({}),
      stderr: async (args, env) => (await piped(args, env)).stderr,
      quoted: '`smslink login`',
    },
    {
      what: 'a warning',
      args: () => ['--api-key', emu.key, '--base-url', emu.url, 'link', 'get', '999999'],
      env: () => ({}),
      stderr: async (args, env) => `${WARNING}\n${(await piped(args, env)).stderr}`,
      quoted: '`smslink config set api-key -`',
    },
  ];

  it.each(cases)('$what breaks at spaces and keeps its quoted command whole', async ({ args, env, stderr, quoted }) => {
    const written = await stderr(args(), env());
    expect(written).toContain(quoted);
    expect(Math.max(...written.split('\n').map((l) => l.length)), 'a line the terminal would wrap').toBeGreaterThan(columns);

    const r = await runInPty(args(), { columns, env: env() });
    expect(r.code).toBe((await piped(args(), env())).code);
    const screen = screenText(r.output);
    const lines = screen.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
    // Every word as written: the lines are broken between words, none inside one.
    expect(words(screen)).toEqual(words(written));
    expect(lines.some((line) => line.includes(quoted))).toBe(true);
  });
});

describe('what breaking the lines must not change', () => {
  it('a key with spaces in it stays masked, where a break could have split it', async () => {
    const key = 'Ab12Cd34  Ef56Gh78';
    const r = await runCli(['--sandbox', 'link', 'get', key], { env: { SMSLINK_API_KEY: key, SMSLINK_DATA_DIR: tempDir() }, tty: true, columns: 20 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('***');
    expect(r.stderr).not.toMatch(/Ab12Cd34|Ef56Gh78/);
  });

  it('only the error\'s own prefix is coloured, not a line that begins with "error:" after a break', async () => {
    const r = await runCli(['--sandbox', 'link', 'get', `${'a'.repeat(20)} error: b`], { env: { FORCE_COLOR: '1', SMSLINK_DATA_DIR: tempDir() }, tty: true, columns: 28 });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[1]).toMatch(/^error: b"/);
    expect(r.stderr.split('\u001b[31merror:')).toHaveLength(2);
  });
});

