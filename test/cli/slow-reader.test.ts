// A reader that falls behind (`smslink link list --all | slow-consumer`): the
// CLI waits for it rather than fetching every page and holding what it cannot
// write, so memory stays flat and nothing is lost. The built bin writes into a
// real pipe that the test stops reading, against the emulator over a socket.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLinks, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { binEnv } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
/** More than `--all -o json` holds before it starts writing (HELD_JSON_ITEMS), so that json streams too. */
const LINKS = 12_000;
let emu: TestEmulator;

beforeAll(async () => {
  // About 4 MB of ndjson: many times what a pipe and Node's stream buffer hold.
  emu = await startTestEmulator({ seed: { links: seedLinks(LINKS, 'slow', 250) } });
});
afterAll(() => emu?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a reader that falls behind', () => {
  // json holds its first 10,000 items (100 pages) before it writes the array: it stops on the page after.
  // --jq on ndjson: lines filtered as they come, and written as the reader takes them.
  it.each([
    ['ndjson', 100, 60],
    ['csv', 100, 60],
    ['json', 100, 110],
    ['ndjson --jq .', 100, 60],
  ])('holds `link list --all -o %s` at the page it is on, then gets every row', async (format, pageSize, bound) => {
    const [output, ...more] = String(format).split(' ');
    const child = spawn(process.execPath, [BIN, 'link', 'list', '--all', '-o', output, ...more, '--page-size', String(pageSize), '--verbose'], {
      env: binEnv({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const requests = () => stderr.match(/^> POST /gm)?.length ?? 0;
    let exited = false;
    const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.on('exit', () => (exited = true));

    // stdout is not read: once the pipe is full, the pages asked for stop growing.
    child.stdout.pause();
    let seen = -1;
    for (let still = 0, waited = 0; still < 5 && !exited && waited < 30_000; waited += 200) {
      await sleep(200);
      still = requests() === seen && seen > 0 ? still + 1 : 0;
      seen = requests();
    }
    expect(stderr).not.toMatch(/error/);
    const pages = LINKS / Number(pageSize);
    expect(seen).toBeLessThan(Number(bound));

    // Read again: the rest of the pages come, and every row arrives once.
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stdout.resume();
    expect(await ended).toBe(0);
    expect(requests()).toBeGreaterThanOrEqual(pages);
    const codes =
      format === 'json'
        ? (JSON.parse(stdout) as Array<{ code: string }>).map((l) => l.code)
        : output === 'ndjson'
          ? stdout.trim().split('\n').map((l) => (JSON.parse(l) as { code: string }).code)
          : stdout.trim().split('\n').slice(1).map((l) => /\bslow\d+\b/.exec(l)![0]);
    expect(new Set(codes).size).toBe(LINKS);
    expect(codes).toHaveLength(LINKS);
  }, 60_000);
});
