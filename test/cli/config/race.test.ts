// Saves racing each other: smslink processes (the built bin) saving to one
// config file at the same moment each keep their value, as the lock around
// the file's read-modify-write promises (src/config/file.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binEnv, tempDir } from '../../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../../bin/smslink.js', import.meta.url));
const WRITERS = 20;
const ROUNDS = 10;

function bin(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: binEnv(env) });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(input);
  });
}

describe('config saves from parallel processes', () => {
  it(`${WRITERS} profile writes and ${WRITERS} key writes at once, ${ROUNDS} rounds: every value kept, every time`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const env = { SMSLINK_CONFIG_DIR: join(tempDir(), 'cfg') };
      const key = (n: number) => `RaceKey${round}x${n}`.padEnd(40, 'k');
      const runs = await Promise.all([
        ...Array.from({ length: WRITERS }, (_, n) => bin(['--profile', `p${n}`, 'config', 'set', 'base-url', `https://p${n}.example.com`], env)),
        ...Array.from({ length: WRITERS }, (_, n) => bin(['--profile', `k${n}`, 'config', 'set', 'api-key', '-'], env, `${key(n)}\n`)),
      ]);
      for (const r of runs) {
        expect(r.stderr).toContain('Saved');
        expect(r.code).toBe(0);
      }
      const profiles = JSON.parse(readFileSync(join(env.SMSLINK_CONFIG_DIR, 'config.json'), 'utf8')).profiles;
      for (let n = 0; n < WRITERS; n++) {
        expect(profiles[`p${n}`], `round ${round}`).toEqual({ baseUrl: `https://p${n}.example.com` });
        expect(profiles[`k${n}`], `round ${round}`).toEqual({ apiKey: key(n) });
      }
    }
  }, 240_000);
});
