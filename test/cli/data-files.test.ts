// The sandbox database, `serve --db` and the mirrors hold every number and
// text of an account: each is 0600 in a 0700 directory, and one that is a
// link, another user's, or writable by others (or SQLite's -wal, -shm and
// -journal files beside it) is refused (exit 4, the path and the fix named)
// before SQLite opens anything. The suite runs as root: chown hands a file
// to another uid (65534, nobody).
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { mirrorPath } from '../../src/mirror/index.js';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

const OTHER = 65534;

/** A data directory whose sandbox holds one link: what the checks below must keep from being read. */
async function sandboxWithLink(): Promise<{ data: string; db: string; cli: (args: string[]) => ReturnType<typeof runCli> }> {
  const data = join(tempDir(), 'data');
  const cli = (args: string[]) => runCli(['--sandbox', ...args], { env: { SMSLINK_DATA_DIR: data } });
  expect((await cli(['link', 'create', 'https://example.com/private-page'])).code).toBe(0);
  return { data, db: join(data, 'sandbox.db'), cli };
}

const modeOf = (path: string) => statSync(path).mode & 0o7777;

/** Bytes and times of each file: what a refused run must leave as it was. */
const snapshot = (...paths: string[]) => paths.map((p) => (existsSync(p) ? { p, bytes: readFileSync(p).toString('base64'), mtime: statSync(p).mtimeMs } : { p }));

describe('the sandbox database', () => {
  it('is made 0600 in a 0700 directory, and so are the files SQLite keeps beside it', async () => {
    const { data, db } = await sandboxWithLink();
    expect(modeOf(data)).toBe(0o700);
    const files = readdirSync(data).filter((f) => f.startsWith('sandbox.db'));
    expect(files).toContain('sandbox.db');
    for (const f of files) expect(modeOf(join(data, f)), f).toBe(0o600);
    expect(statSync(db).uid).toBe(process.getuid!());
  });

  it('one an older smslink left readable by everyone (0644, its -wal and -shm too) is made 0600 and keeps its data', async () => {
    const { data, db, cli } = await sandboxWithLink();
    // An older smslink made them so, in a 0755 directory (SQLite gives its -wal and -shm the database's mode).
    chmodSync(data, 0o755);
    for (const suffix of ['-wal', '-shm']) if (!existsSync(`${db}${suffix}`)) writeFileSync(`${db}${suffix}`, '');
    for (const f of readdirSync(data)) chmodSync(join(data, f), 0o644);
    const list = await cli(['link', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('https://example.com/private-page');
    for (const f of readdirSync(data).filter((f) => f.startsWith('sandbox.db'))) expect(modeOf(join(data, f)), f).toBe(0o600);
  });

  it("another user's is refused: nothing of it is shown, and it is left as it was", async () => {
    const { db, cli } = await sandboxWithLink();
    chownSync(db, OTHER, OTHER);
    const before = snapshot(db);
    const r = await cli(['link', 'list']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${db} belongs to another user (uid ${OTHER})`);
    expect(snapshot(db)).toEqual(before);
  });

  it('a link in its place is refused, and what it points to is neither read nor written', async () => {
    const { db } = await sandboxWithLink();
    const other = join(tempDir(), 'data');
    mkdirSync(other, { mode: 0o700 });
    symlinkSync(db, join(other, 'sandbox.db'));
    const before = snapshot(db);
    const r = await runCli(['--sandbox', 'link', 'create', 'https://example.com/more'], { env: { SMSLINK_DATA_DIR: other } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${join(other, 'sandbox.db')} is a symbolic link`);
    expect(snapshot(db)).toEqual(before);
  });

  it("a -wal planted as a link, or a -shm of another user's, is refused: SQLite never writes through it", async () => {
    const { data, db, cli } = await sandboxWithLink();
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    rmSync(`${db}-wal`, { force: true });
    symlinkSync(victim, `${db}-wal`);
    const wal = await cli(['link', 'create', 'https://example.com/more']);
    expect(wal.code).toBe(4);
    expect(wal.stderr).toContain(`${db}-wal is a symbolic link`);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    rmSync(`${db}-wal`);
    writeFileSync(`${db}-shm`, '');
    chownSync(`${db}-shm`, OTHER, OTHER);
    const shm = await cli(['link', 'list']);
    expect(shm.code).toBe(4);
    expect(shm.stderr).toContain(`${db}-shm belongs to another user (uid ${OTHER})`);
    expect(readdirSync(data).sort()).toEqual(['sandbox.db', 'sandbox.db-shm']);
  });

  it('is refused the same by the bin as installed, whose emulator is a bundle of its own', async () => {
    const { data, db } = await sandboxWithLink();
    rmSync(`${db}-wal`, { force: true });
    symlinkSync(join(tempDir(), 'elsewhere.db'), `${db}-wal`);
    const bin = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
    const r = spawnSync(process.execPath, [bin, '--sandbox', 'link', 'list'], { env: binEnv({ SMSLINK_DATA_DIR: data }), encoding: 'utf8' });
    expect(r.status).toBe(4);
    expect(r.stderr).toBe(`error: ${db}-wal is a symbolic link; smslink does not follow links to its own files: remove the link, or put the real file in its place\n`);
  });

  it('a data directory others may write, or one of another user\'s, is refused with the fix', async () => {
    const { data, db, cli } = await sandboxWithLink();
    chmodSync(data, 0o775);
    const before = snapshot(db);
    const writable = await cli(['link', 'list']);
    expect(writable.code).toBe(4);
    expect(writable.stderr).toContain(`${data} may be written by other users (mode 0775); make it yours alone: chmod 700 ${data}`);
    chmodSync(data, 0o700);
    chownSync(data, OTHER, OTHER);
    const owned = await cli(['link', 'list']);
    expect(owned.code).toBe(4);
    expect(owned.stderr).toContain(`${data} belongs to another user (uid ${OTHER})`);
    expect(snapshot(db)).toEqual(before);
  });

  it('a data directory under a link that leads nowhere, or where none can be made, is refused with exit 4, not a crash', async () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
    const dangling = await runCli(['--sandbox', 'link', 'list'], { env: { SMSLINK_DATA_DIR: join(dir, 'dangling', 'data') } });
    expect(dangling.code).toBe(4);
    expect(dangling.stderr).toBe(`error: ${join(dir, 'dangling')} is a symbolic link that leads nowhere; ${join(dir, 'dangling', 'data')} cannot be made in it: point smslink at a directory of your own\n`);
    expect(existsSync(join(dir, 'gone'))).toBe(false);
    // Node's recursive mkdir never returns here; one level at a time, the level is named.
    const proc = await runCli(['--sandbox', 'link', 'list'], { env: { SMSLINK_DATA_DIR: '/proc/no-such-dir/data' } });
    expect(proc.code).toBe(4);
    expect(proc.stderr).toContain('/proc/no-such-dir cannot be made (ENOENT); point smslink at a directory of your own');
  });

  it('a new data directory is made 0700 at every level it needs', async () => {
    const data = join(tempDir(), 'a', 'b', 'data');
    expect((await runCli(['--sandbox', 'link', 'list'], { env: { SMSLINK_DATA_DIR: data } })).code).toBe(0);
    for (const level of [data, join(data, '..'), join(data, '..', '..')]) expect(modeOf(level)).toBe(0o700);
  });
});

/** `serve` in-process until it prints where it listens, or ends; returns its exit code and stderr. */
async function serve(args: string[]): Promise<{ code: number; stderr: string }> {
  const ac = new AbortController();
  let stderr = '';
  const done = run(['serve', '--port', '0', ...args], {
    stdout: { write: (s: string) => (s.includes('listening on') && ac.abort(), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
    stdin: process.stdin,
    env: { SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir() },
    signal: ac.signal,
  });
  return { code: await done, stderr };
}

describe('serve --db', () => {
  it('makes a new file 0600, and refuses one in a directory others may write (they could plant its -wal)', async () => {
    const dir = tempDir();
    expect((await serve(['--db', join(dir, 'emu.db')])).code).toBe(0);
    expect(modeOf(join(dir, 'emu.db'))).toBe(0o600);
    const shared = join(tempDir(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const r = await serve(['--db', join(shared, 'emu.db')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${shared} may be written by other users (mode 0777)`);
    expect(readdirSync(shared)).toEqual([]);
  });
});

describe('mirrors', () => {
  it('are 0600 (the lock too) in 0700 directories', async () => {
    const { data, cli } = await sandboxWithLink();
    expect((await cli(['sync'])).code).toBe(0);
    const path = mirrorPath({ SMSLINK_DATA_DIR: data }, { baseUrl: 'sandbox', profile: 'sandbox' });
    expect(modeOf(join(data, 'mirror'))).toBe(0o700);
    for (const f of readdirSync(join(data, 'mirror'))) expect(modeOf(join(data, 'mirror', f)), f).toBe(0o600);
    expect(existsSync(`${path}.lock`)).toBe(true);
  });

  it("a mirror that is a link, or a mirror directory of another user's, is refused, not taken for no mirror", async () => {
    const { data, cli } = await sandboxWithLink();
    expect((await cli(['sync'])).code).toBe(0);
    const path = mirrorPath({ SMSLINK_DATA_DIR: data }, { baseUrl: 'sandbox', profile: 'sandbox' });
    const real = join(tempDir(), 'real.db');
    writeFileSync(real, readFileSync(path));
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    symlinkSync(real, path);
    const before = snapshot(real);
    const search = await cli(['search', 'private']);
    expect(search.code).toBe(4);
    expect(search.stdout).toBe('');
    expect(search.stderr).toContain(`${path} is a symbolic link`);
    expect((await cli(['sync'])).code).toBe(4);
    expect(snapshot(real)).toEqual(before);

    rmSync(path);
    chownSync(join(data, 'mirror'), OTHER, OTHER);
    const sync = await cli(['sync']);
    expect(sync.code).toBe(4);
    expect(sync.stderr).toContain(`${join(data, 'mirror')} belongs to another user (uid ${OTHER})`);
    expect(existsSync(path)).toBe(false);
    expect(lstatSync(join(data, 'mirror')).uid).toBe(OTHER);
  });
});
