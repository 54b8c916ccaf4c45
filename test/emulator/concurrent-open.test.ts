// Many processes opening one database file at once, as `serve` and any number
// of `--sandbox` commands do: none may fail, nothing written may be lost.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/emulator/store/database.js';
import { binEnv, runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const Libsql = createRequire(import.meta.url)('libsql');

const dir = mkdtempSync(join(tmpdir(), 'smslink-open-'));
// test/helpers/open-child.ts bundled from the sources, under node_modules so that libsql resolves from it.
const CHILD = join(ROOT, `node_modules/.cache/smslink-test/open-child-${process.pid}.mjs`);
await build({ entryPoints: [join(ROOT, 'test/helpers/open-child.ts')], outfile: CHILD, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => rmSync(CHILD, { force: true }));

/** A test/helpers/open-child.ts process: `open(path)` resolves to its answer line. */
interface Opener {
  open(path: string): Promise<string>;
  close(): Promise<void>;
}

function startOpener(): Promise<Opener> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CHILD]);
  const waiting: Array<(line: string) => void> = [];
  let ready: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => (line === 'ready' ? ready() : waiting.shift()?.(line)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('exit', (code) => waiting.splice(0).forEach((answer) => answer(`exited ${code}: ${stderr}`)));
  return started.then(() => ({
    open(path) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${path}\n`);
      });
    },
    close() {
      child.stdin.end();
      return exited;
    },
  }));
}

/** Reads a database the way a third party would: its journal mode and the codes of its links. */
function inspect(path: string): { mode: string; codes: string[] } {
  const db = new Libsql(path);
  try {
    return {
      mode: db.prepare('PRAGMA journal_mode').raw(true).get()[0],
      codes: (db.prepare('SELECT code FROM links ORDER BY code').raw(true).all() as string[][]).flat(),
    };
  } finally {
    db.close();
  }
}

describe('opening one database file from many processes', () => {
  const openers: Opener[] = [];
  beforeAll(async () => {
    openers.push(...(await Promise.all(Array.from({ length: 30 }, startOpener))));
  }, 60_000);
  afterAll(() => Promise.all(openers.map((o) => o.close())));

  // SQLite refuses the switch to WAL at once, busy timeout or not, while
  // another process holds the write lock of a database not yet in WAL: the
  // open must wait for the lock to go, not fail.
  it('waits for another process that holds the write lock of a new database', async () => {
    const path = join(dir, 'held.db');
    const holder = new Libsql(path);
    holder.exec('CREATE TABLE other (x)');
    holder.exec('BEGIN IMMEDIATE');
    let released = false;
    // Whether the lock was still held when the open answered.
    const answer = openers[0].open(path).then((a) => ({ a, released }));
    await sleep(300);
    released = true;
    holder.exec('ROLLBACK');
    holder.close();
    // It answered once the lock was gone, and answered ok: it waited rather than failed.
    expect(await answer).toEqual({ a: 'ok', released: true });
    expect(inspect(path)).toMatchObject({ mode: 'wal', codes: [expect.stringMatching(/^p\d+r1$/)] });
  });

  it('lets 30 processes open a new file at the same instant and write, 10 times in a row', async () => {
    for (let round = 1; round <= 10; round++) {
      const path = join(dir, `round-${round}.db`);
      // Every path is written before any answer is awaited: the 30 opens start together.
      const answers = await Promise.all(openers.map((o) => o.open(path)));
      expect(answers.filter((a) => a !== 'ok'), `round ${round}`).toEqual([]);
      const { mode, codes } = inspect(path);
      expect(mode).toBe('wal');
      expect(new Set(codes).size, `round ${round}`).toBe(30);
    }
  }, 60_000);
});

describe('the sandbox from many processes', () => {
  it('keeps every link of 30 `--sandbox link create` run at the same time, each exiting 0', async () => {
    const env = { SMSLINK_DATA_DIR: join(dir, 'sandbox') };
    const runs = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, [BIN, '--sandbox', 'link', 'create', `https://example.com/parallel/${i}`, '-q'], { env: binEnv(env) });
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', (d) => (stdout += d));
            child.stderr.on('data', (d) => (stderr += d));
            child.on('close', (code) => resolve({ code, stdout, stderr }));
          }),
      ),
    );
    expect(runs.filter((r) => r.code !== 0 || r.stderr !== '')).toEqual([]);
    const listed = await runCli(['--sandbox', 'link', 'list', '--all', '-o', 'json'], { env });
    expect(listed.code).toBe(0);
    const links = JSON.parse(listed.stdout) as Array<{ fullLink: string; shortLink: string }>;
    expect(links.map((l) => l.fullLink).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `https://example.com/parallel/${i}`).sort());
    expect(links.map((l) => `${l.shortLink}\n`).sort()).toEqual(runs.map((r) => r.stdout).sort());
  }, 60_000);
});

// While a database is open, SQLite holds a read lock on byte 128 of its -shm
// file: it tells a process that opens the file next that the wal-index is in
// use and must not be rebuilt. POSIX drops a process's locks on a file when
// the process closes any descriptor of it; /proc/locks shows who holds which.
// (libsql ends a closed connection for good only once its statements are
// garbage-collected, so the lock may outlive close(): that is libsql's
// business, and harmless, so it is not asserted here.)
describe.runIf(process.platform === 'linux')('two databases of one file in one process', () => {
  const shmLocks = (path: string): string[] => {
    const inode = `:${statSync(`${path}-shm`).ino} `;
    return readFileSync('/proc/locks', 'utf8')
      .split('\n')
      .filter((line) => line.includes(` ${process.pid} `) && line.includes(inode))
      .map((line) => line.trim().split(/\s+/).slice(1, 4).concat(line.trim().split(/\s+/).slice(-2)).join(' '));
  };

  it('closing one keeps the lock that tells other processes the file is in use', () => {
    const path = join(dir, 'two-stores.db');
    const first = Database.open(path);
    const second = Database.open(path);
    try {
      expect(shmLocks(path)).toEqual(['POSIX ADVISORY READ 128 128']);
      second.close();
      expect(shmLocks(path)).toEqual(['POSIX ADVISORY READ 128 128']);
      first.account('still-open', Date.now());
      expect(shmLocks(path)).toEqual(['POSIX ADVISORY READ 128 128']);
    } finally {
      second.close();
      first.close();
    }
  });
});
