// A command that reads stdin (`-` for ids, `--text -`, `--from-file -`, a piped key) stops when it is
// told to, even when the writer never closes the pipe: `timeout 60 smslink message status -` in a CI
// step fed by a long-lived process ends with exit 130 on its one SIGTERM, and nothing was sent or saved.
// In-process runs have a stdin that never ends; one spawned bin gets a real SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { binEnv, tempDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
const KEY = 'StdinKey0123456789abcdefABCDEF0123456789';
let emu: RunningEmulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
});
afterAll(() => emu?.close());

/** Runs a command whose stdin is a pipe nobody closes; aborts its signal (Ctrl-C, SIGTERM) once it reads. */
async function interruptedWhileReading(args: string[], env: Record<string, string> = {}) {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.write('1'); // some input came, the rest never does
  const ac = new AbortController();
  let stdout = '';
  let stderr = '';
  const configDir = tempDir();
  const done = run(args, {
    stdout: { isTTY: false, write: (s: string) => ((stdout += s), true) },
    stderr: { isTTY: false, write: (s: string) => ((stderr += s), true) },
    stdin,
    env: { SMSLINK_CONFIG_DIR: configDir, SMSLINK_DATA_DIR: tempDir(), SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY, ...env },
    signal: ac.signal,
  });
  let settled = false;
  void done.finally(() => (settled = true));
  // Interrupt once the command is reading: what was written has been taken.
  while (!settled && stdin.readableLength > 0) await new Promise((r) => setImmediate(r));
  ac.abort();
  return { code: await done, stdout, stderr, configDir };
}

describe('a command reading a stdin that never ends stops on Ctrl-C or SIGTERM', () => {
  it.each([
    ['message status -', ['message', 'status', '-']],
    ['message get -', ['message', 'get', '-']],
    ['link delete -', ['link', 'delete', '-']],
    ['message send --text -', ['message', 'send', '--to', '+77011234567', '--text', '-']],
    ['api --input -', ['api', 'Link/List', '--input', '-']],
    ['link create --from-file -', ['link', 'create', '--from-file', '-', '--format', 'csv']],
    ['message send --from-file -', ['message', 'send', '--from-file', '-', '--format', 'csv', '--text', 'hi']],
  ])('%s: exit 130, nothing sent', async (_name, args) => {
    const r = await interruptedWhileReading(args);
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('error: interrupted while reading stdin; nothing was done\n');
    expect(r.stdout).toBe('');
    expect(await emu.messages()).toEqual([]);
  });

  it.each([
    ['config set api-key', ['config', 'set', 'api-key']],
    ['login --with-key', ['login', '--base-url', 'http://127.0.0.1:9', '--with-key']],
  ])('%s: exit 130, nothing saved', async (_name, args) => {
    const r = await interruptedWhileReading(args, { SMSLINK_API_KEY: '' });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('error: interrupted while reading stdin; nothing was done\n');
    expect(existsSync(join(r.configDir, 'config.json'))).toBe(false);
  });

  it('the bin exits 130 on one SIGTERM (as `timeout` sends) while stdin stays open', async () => {
    const child = spawn(process.execPath, [BIN, 'message', 'status', '-'], { env: binEnv({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY }) });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // More than a pipe holds, and never closed: 'drain' says the command is reading, so its signal handlers are set.
    if (!child.stdin.write('1\n'.repeat(200_000))) await new Promise((r) => child.stdin.once('drain', r));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000))]);
    if (code === 'still running') child.kill('SIGKILL');
    expect(code).toBe(130);
    expect(stderr).toContain('interrupted while reading stdin');
  }, 30_000);
});
