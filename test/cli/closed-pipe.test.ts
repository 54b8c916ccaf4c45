// A reader that goes away (`smslink ... | head -1`) under `bash -o pipefail`,
// as GitHub Actions runs a step: a command that prints what it read has done
// its job and exits 0, silently; 130 stays for Ctrl-C. (A bulk run stopped
// this way exits 141: test/bulk/interrupt.test.ts.) The built bin runs
// against the emulator over a real socket.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { seedLinks } from '../helpers/emulator.js';
import { binEnv } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
const KEY = 'PipeKey0123456789abcdefABCDEF0123456789ab';
let emu: RunningEmulator;

beforeAll(async () => {
  // Enough for twenty pages of 25: the reader is gone long before the last one.
  emu = await startEmulator({
    port: 0,
    db: ':memory:',
    apiKeys: [KEY],
    seed: {
      links: seedLinks(500, 'pipe'),
      messages: Array.from({ length: 500 }, (_, i) => ({ to: `7701${String(i).padStart(7, '0')}`, text: `message ${i} ${'y'.repeat(200)}` })),
    },
  });
});
afterAll(() => emu?.close());

/** Runs `smslink <args> | <reader>` in bash with pipefail: both exit codes, and what reached stderr. */
function piped(args: string, reader = 'head -1'): Promise<{ codes: number[]; stderr: string; stdout: string }> {
  const script = `set -o pipefail; "${process.execPath}" "${BIN}" ${args} | ${reader}; echo "PIPESTATUS=\${PIPESTATUS[*]}" >&2`;
  const child = spawn('bash', ['--norc', '--noprofile', '-c', script], { env: binEnv({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY }) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on('close', () => {
      const status = /PIPESTATUS=(.*)\n/.exec(stderr)?.[1] ?? '';
      resolve({ codes: status.split(' ').map(Number), stderr: stderr.replace(/PIPESTATUS=.*\n/, ''), stdout });
    }),
  );
}

describe('a closed pipe ends a command that prints what it read with exit 0, silently', () => {
  it('--version into a pipe whose reader is already gone: exit 0, nothing on stderr', () => {
    // The reading end closed before the bin starts (python: a shell's `| true` would race with it).
    const script = 'import os, subprocess, sys\nr, w = os.pipe()\nos.close(r)\np = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\nprint(p.returncode)\nsys.stdout.write(p.stderr.decode())';
    const r = spawnSync('python3', ['-c', script, process.execPath, BIN, '--version'], { env: binEnv(), encoding: 'utf8' });
    expect(r.stdout).toBe('0\n');
  });

  it.each([
    'link list --all -q --page-size 25',
    'link list --all -o ndjson --page-size 25',
    'link list --all -o csv --page-size 25',
    'message list --all --page-size 25',
    'message list --all -q --page-size 25',
    'link list --limit 400 -q --page-size 25',
  ])('%s | head -1', async (args) => {
    const r = await piped(args);
    expect(r.codes).toEqual([0, 0]);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  }, 60_000);

  it.each([
    ['link get pipe0', 'head -1'],
    ['status', 'head -1'],
    ['config list', 'head -1'],
    ['link list -q', 'true'],
    ['--help', 'true'],
  ])('%s | %s', async (args, reader) => {
    const r = await piped(args, reader);
    expect(r.codes[0]).toBe(0);
    expect(r.stderr).not.toMatch(/error|crash|EPIPE/i);
  }, 60_000);
});


describe('a closed pipe that stderr goes to as well ends the run with its own exit code, not as a crash', () => {
  it.each([
    ['link get 99999', 6],
    ['link list --no-such-flag', 2],
    ['link stats pipe0 99999 -o csv', 5],
  ])('%s 2>&1 | true exits %i', async (args, code) => {
    const r = await piped(`${args} 2>&1`, 'true');
    expect(r.codes).toEqual([code, 0]);
    expect(r.stderr).toBe('');
  }, 60_000);
});
