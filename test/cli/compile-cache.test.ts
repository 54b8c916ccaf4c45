// The bin keeps V8's compiled code of the bundle between runs
// (bin/compile-cache.js, the same on every Node version).
// What a user would notice if it went wrong: a run that fails or prints
// something else because of the cache, a rebuilt bundle run from the code of
// the old one, a cache written where it was turned off, or rewritten by every run.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
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

/** The bin as a child process, without blocking the event loop the recording server answers on. */
async function smslinkAsync(args: string[], env: Record<string, string>, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/smslink.js'), ...args], { env: binEnv(env) });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout };
}

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

describe('compile cache', () => {
  it('is written on the first run, used on the next, and changes no output', () => {
    const cache = tempDir();
    const first = smslink(join(ROOT, 'bin/smslink.js'), ['link', '--help'], { SMSLINK_CACHE_DIR: cache });
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('Usage: smslink link');
    const entries = filesIn(cache);
    expect(entries.length).toBeGreaterThan(0);
    for (const file of entries) expect(statSync(file).mode & 0o077).toBe(0); // private to the user
    const second = smslink(join(ROOT, 'bin/smslink.js'), ['link', '--help'], { SMSLINK_CACHE_DIR: cache });
    expect(second).toEqual(first);
  });

  it('an entry written by a run that failed is written again by the first run that succeeds, and then kept', async () => {
    const cache = tempDir();
    const env = { SMSLINK_CACHE_DIR: cache, SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'CacheKey0123456789' };
    const failed = await smslinkAsync(['link', 'get'], env);
    expect(failed.status).toBe(2);
    const [entry] = filesIn(cache).filter((f) => f.includes('run.cjs'));
    const head = () => readFileSync(entry).toString('latin1', 0, 80).split('\n')[0];
    expect(head()).toMatch(/ partial$/);
    const partialSize = statSync(entry).size;
    const get = await smslinkAsync(['link', 'get', '417863', '-q'], env);
    expect(get).toEqual({ status: 0, stdout: 'https://sho.rt/ddoj\n' });
    expect(head()).not.toMatch(/partial/);
    expect(statSync(entry).size).toBeGreaterThan(partialSize); // link get's own code, which the usage error never ran
    const whole = statSync(entry).mtimeMs;
    expect((await smslinkAsync(['link', 'get'], env)).status).toBe(2);
    expect(await smslinkAsync(['link', 'get', '417863', '-q'], env)).toEqual(get);
    expect(statSync(entry).mtimeMs).toBe(whole);
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
    // The bundle breaks long lines inside strings too (a backslash and a line break, scripts/bundle.mjs lineLimit): found across one.
    const text = [...'Short links and single SMS from the command line.'].map((c) => c.replace(/[.]/, '\\.')).join('(?:\\\\\\n)?');
    const changed = source.replace(new RegExp(text), (found) => found.toUpperCase());
    expect(changed).not.toBe(source);
    writeFileSync(runCjs, changed);
    expect(statSync(runCjs).size).toBe(Buffer.byteLength(source));
    const after = smslink(bin, ['--help'], { SMSLINK_CACHE_DIR: cache });
    expect(after.status).toBe(0);
    expect(after.stdout).toContain('SHORT LINKS AND SINGLE SMS FROM THE COMMAND LINE.');
  });

  // V8 runs a cached entry as it is: another user's, or one in a directory others may write, is code someone else chose.
  it('a cache directory others may write, or of another user, is skipped in silence: nothing read or written, the run the same', () => {
    const bin = join(ROOT, 'bin/smslink.js');
    const clean = smslink(bin, ['link', '--help'], { SMSLINK_CACHE_DIR: join(tempDir(), 'c'), NODE_DISABLE_COMPILE_CACHE: '1' });
    const shared = join(tempDir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const others = join(tempDir(), 'others');
    mkdirSync(others, { mode: 0o700 });
    chownSync(others, 65534, 65534);
    for (const cache of [join(shared, 'v8'), others]) {
      expect(smslink(bin, ['link', '--help'], { SMSLINK_CACHE_DIR: cache })).toEqual(clean);
      expect(filesIn(cache)).toEqual([]);
    }
  });

  it("an entry of another user's in the cache is never run: it is compiled afresh and written over as the user's own", () => {
    const bin = join(ROOT, 'bin/smslink.js');
    const cache = tempDir();
    const first = smslink(bin, ['--help'], { SMSLINK_CACHE_DIR: cache });
    const entries = filesIn(cache);
    expect(entries.length).toBeGreaterThan(0);
    for (const file of entries) chownSync(file, 65534, 65534);
    expect(smslink(bin, ['--help'], { SMSLINK_CACHE_DIR: cache })).toEqual(first);
    // Used as it was, it would have been kept (see "commands run before rewrite nothing").
    for (const file of filesIn(cache)) expect(statSync(file).uid, file).toBe(process.getuid!());
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', () => {
    const cache = join(tempDir(), 'cache');
    expect(smslink(join(ROOT, 'bin/smslink.js'), ['--help'], { SMSLINK_CACHE_DIR: cache, NODE_DISABLE_COMPILE_CACHE: '1' }).status).toBe(0);
    expect(existsSync(cache)).toBe(false);
  });

  /** `link create --from-file` of one row (a new file each time, so that no journal says it is done): a run that uses undici. */
  async function bulkCreate(env: Record<string, string>) {
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, 'fullLink\nhttps://example.com/a\n');
    return smslinkAsync(['link', 'create', '--from-file', file, '-o', 'ndjson'], env);
  }

  it('commands run before rewrite nothing: a single request, --help and a bulk run (undici)', async () => {
    const cache = tempDir();
    const env = { SMSLINK_CACHE_DIR: cache, SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'CacheKey0123456789' };
    const saved = () => new Map(filesIn(cache).map((f) => [f.slice(cache.length), statSync(f).mtimeMs]));
    expect((await smslinkAsync(['--help'], env)).status).toBe(0);
    const get = await smslinkAsync(['link', 'get', '417863', '-q'], env);
    expect(get).toEqual({ status: 0, stdout: 'https://sho.rt/ddoj\n' });
    const bulk = await bulkCreate(env);
    expect(bulk.status).toBe(0);
    const afterFirst = saved();
    expect(afterFirst.size).toBeGreaterThan(0);
    expect(await smslinkAsync(['link', 'get', '417863', '-q'], env)).toEqual(get);
    expect((await smslinkAsync(['--help'], env)).status).toBe(0);
    expect(await bulkCreate(env)).toEqual(bulk);
    expect(saved()).toEqual(afterFirst);
  });

  it("a command's help keeps an entry of its own, which would lack the command's code", async () => {
    const cache = tempDir();
    const env = { SMSLINK_CACHE_DIR: cache, SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'CacheKey0123456789' };
    const runEntries = () => filesIn(cache).filter((f) => f.includes('run.cjs'));
    const help = await smslinkAsync(['link', 'get', '--help'], env);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: smslink link get');
    const afterHelp = runEntries();
    expect(await smslinkAsync(['link', 'get', '417863', '-q'], env)).toEqual({ status: 0, stdout: 'https://sho.rt/ddoj\n' });
    expect(runEntries().length).toBe(afterHelp.length + 1);
    const entries = runEntries();
    // -h, alone or among other short flags, is the same help: no entry of its own.
    expect((await smslinkAsync(['link', 'get', '-h'], env)).stdout).toBe(help.stdout);
    expect((await smslinkAsync(['link', 'get', '-qh'], env)).stdout).toBe(help.stdout);
    expect(runEntries()).toEqual(entries);
  });

  it('never writes what the user typed', async () => {
    const cache = tempDir();
    const key = 'TypedKey0123456789xyz';
    const r = await smslinkAsync(['--api-key', key, '--base-url', server.url, 'link', 'get', '55443322', '-q'], { SMSLINK_CACHE_DIR: cache });
    expect(r.status).toBe(0);
    const entries = filesIn(cache);
    expect(entries.length).toBeGreaterThan(0);
    for (const file of entries) {
      const bytes = readFileSync(file);
      expect(bytes.includes(key), file).toBe(false);
      expect(bytes.includes('55443322'), file).toBe(false);
    }
  });
});
