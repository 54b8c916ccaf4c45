// How the built bin writes its output where no terminal reads it: with
// fs.writeSync into a file or /dev/null (bin/smslink.js), as Node's own stdout
// writes there, without setting up a stream; into a pipe, through
// process.stdout, so that a reader that stops reading holds no more than the
// output: the run still hears Ctrl-C and SIGTERM, and `serve` still answers.
// (A pipe whose reader falls behind and then reads: slow-reader.test.ts.)
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

  it('into a pipe nobody reads: SIGTERM still stops the run at once, and it ends 130 once the reader reads', async () => {
    const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key };
    const { child, done } = runInto(LIST, 'pipe', env);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.pause();
    await sleep(800); // more than the pipe holds is written by now
    child.kill('SIGTERM');
    const said = Date.now();
    while (!/interrupted/.test(stderr) && Date.now() - said < 5_000) await sleep(20);
    expect(stderr).toMatch(/error: link list: interrupted/);
    child.stdout!.resume();
    expect((await done).code).toBe(130);
  });

  it('serve answers every request while nobody reads its request log from a pipe', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:', '--api-key', 'OutputKey0123456789'], { env: binEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const [first] = (await once(child.stdout!, 'data')) as [Buffer];
      const url = /listening on (\S+)/.exec(first.toString())![1];
      // Never read again: the log (70 bytes a request) fills the socket Node pipes it through and what this stream reads ahead.
      child.stdout!.pause();
      for (let i = 0; i < 6000; i += 50) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () => fetch(`${url}/service/link/list?output=json&api=v1&apiKey=OutputKey0123456789`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.json() as Promise<{ code: number }>)),
        );
        expect(answers.every((a) => a.code === 0), `requests ${i}-${i + 49}`).toBe(true);
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});
