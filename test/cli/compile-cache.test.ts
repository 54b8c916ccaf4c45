// The bin keeps V8's compiled code of the bundle between runs
// (bin/compile-cache.js). What a user would notice if it went wrong: a run
// that fails or prints something else because of the cache, a rebuilt
// bundle run from the code of the old one, a cache written where it was
// turned off.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binEnv, tempDir } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function smslink(bin: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    env: binEnv(env),
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under dir, recursively. */
const filesIn = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)) : [];

describe('compile cache', () => {
  it('is written on the first run, used on the next, and changes no output', () => {
    const cache = tempDir();
    const first = smslink(join(ROOT, 'bin/smslink.js'), ['link', '--help'], { SMSLINK_CACHE_DIR: cache });
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('Usage: smslink link');
    const entries = filesIn(cache);
    expect(entries.length).toBeGreaterThan(0);
    if (Number(process.versions.node.split('.')[0]) < 22) {
      // Our own cache (Node 20): private to the user.
      for (const file of entries) expect(statSync(file).mode & 0o077).toBe(0);
    }
    const second = smslink(join(ROOT, 'bin/smslink.js'), ['link', '--help'], { SMSLINK_CACHE_DIR: cache });
    expect(second).toEqual(first);
  });

  it('a damaged cache is compiled over, not run', () => {
    const cache = tempDir();
    const clean = smslink(join(ROOT, 'bin/smslink.js'), ['--help'], { SMSLINK_CACHE_DIR: cache });
    const entries = filesIn(cache);
    expect(entries.length).toBeGreaterThan(0);
    for (const file of entries) writeFileSync(file, Buffer.alloc(statSync(file).size, 0x5a));
    expect(smslink(join(ROOT, 'bin/smslink.js'), ['--help'], { SMSLINK_CACHE_DIR: cache })).toEqual(clean);
    expect(smslink(join(ROOT, 'bin/smslink.js'), ['--help'], { SMSLINK_CACHE_DIR: cache })).toEqual(clean);
  });

  it('a rebuilt bundle never runs the code cached for the old one, even at the same size', () => {
    // A copy of the bin and bundle whose help text then changes without changing the file's length.
    const copy = tempDir();
    cpSync(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist/bundle'), join(copy, 'dist/bundle'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const bin = join(copy, 'bin/smslink.js');
    const cache = tempDir();
    const before = smslink(bin, ['--help'], { SMSLINK_CACHE_DIR: cache });
    expect(before.stdout).toContain('Short links and single SMS from the command line.');
    const runCjs = join(copy, 'dist/bundle/run.cjs');
    const source = readFileSync(runCjs, 'utf8');
    writeFileSync(runCjs, source.replace('Short links and single SMS from the command line.', 'SHORT LINKS AND SINGLE SMS FROM THE COMMAND LINE.'));
    expect(statSync(runCjs).size).toBe(Buffer.byteLength(source));
    const after = smslink(bin, ['--help'], { SMSLINK_CACHE_DIR: cache });
    expect(after.status).toBe(0);
    expect(after.stdout).toContain('SHORT LINKS AND SINGLE SMS FROM THE COMMAND LINE.');
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', () => {
    const cache = join(tempDir(), 'cache');
    expect(smslink(join(ROOT, 'bin/smslink.js'), ['--help'], { SMSLINK_CACHE_DIR: cache, NODE_DISABLE_COMPILE_CACHE: '1' }).status).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });
});
