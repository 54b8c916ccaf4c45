// How the built bin writes its output where no terminal reads it: with
// fs.writeSync into a file, /dev/null or a pipe (bin/smslink.js), as Node's own
// stdout would write there on Linux, without setting up a stream; into a pipe
// another process made non-blocking, through process.stdout once a write
// would block (EAGAIN). Whatever the path, every byte arrives, in order.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLinks, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
/** Far more than a pipe holds (64 KB): a reader that waits makes the writer wait, or get EAGAIN. */
const LINKS = 2_000;
let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: { links: seedLinks(LINKS, 'out', 100) } });
});
afterAll(() => emu?.close());

/** Runs the bin with `stdout` as its standard output (a descriptor), and resolves with its exit code and stderr. */
function runInto(args: string[], stdout: number | 'pipe', env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(env), stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return { child, done };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LIST = ['link', 'list', '--all', '-o', 'ndjson', '--page-size', '100', '--sort', 'createTs:asc'];

describe('output where no terminal reads it', () => {
  it('into a file: the same bytes the CLI writes in-process', async () => {
    const file = join(tempDir(), 'help.txt');
    const fd = openSync(file, 'w');
    const { done } = runInto(['--help'], fd);
    closeSync(fd);
    expect((await done).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe((await runCli(['--help'])).stdout);
  });

  it('into a pipe whose reader waits: every row, in order, once the reader reads', async () => {
    const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key };
    const { child, done } = runInto(LIST, 'pipe', env);
    child.stdout!.pause();
    await sleep(300);
    let text = '';
    child.stdout!.on('data', (d) => (text += d));
    child.stdout!.resume();
    expect((await done).code).toBe(0);
    const codes = text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { code: string }).code);
    expect(codes).toEqual(seedLinks(LINKS, 'out').map((l) => l.code));
  });

  it('into a non-blocking pipe whose reader is behind (EAGAIN): the rest goes through a stream, nothing lost or reordered', async () => {
    // A parent that is not Node (python here) may leave the pipe non-blocking; Node's spawn makes a child's stdio blocking.
    const helper = fileURLToPath(new URL('../helpers/nonblocking-stdout.py', import.meta.url));
    const child = spawn('python3', [helper, '0.5', process.execPath, BIN, ...LIST], { env: binEnv({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let stderr = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (stderr += d));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const codes = text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { code: string }).code);
    expect(codes).toEqual(seedLinks(LINKS, 'out').map((l) => l.code));
  });
});
