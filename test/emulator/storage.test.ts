import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmulatorInProcess, startEmulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { SmsLinkClient } from '../../src/index.js';
import { resetSandbox, sandboxDbPath, sandboxOptions } from '../../src/emulator/sandbox.js';
import { MIGRATIONS } from '../../src/emulator/store/schema.js';
import { encodeParams, serviceQuery, startTestEmulator, type Envelope } from '../helpers/emulator.js';

const dir = mkdtempSync(join(tmpdir(), 'smslink-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = fileURLToPath(new URL('../helpers/emulator-child.js', import.meta.url));

function startChild(options: object): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve({ url: out.trim(), child });
    });
    child.on('exit', (code) => reject(new Error(`emulator child exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.stdin!.end();
  });
}

async function call(url: string, path: string, params: Record<string, unknown>, key: string): Promise<Envelope> {
  const res = await fetch(`${url}/service/${path}?${serviceQuery(key)}`, {
    method: 'POST',
    body: encodeParams(params),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return (await res.json()) as Envelope;
}

/** Runs `count` tasks, `width` at a time. */
async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

describe('one database file, several processes', () => {
  it('loses nothing when two emulator processes write at the same time', async () => {
    const db = join(dir, 'shared.db');
    const key = 'shared';
    const [a, b] = await Promise.all([startChild({ port: 0, db, apiKeys: [key] }), startChild({ port: 0, db, apiKeys: [key] })]);
    try {
      const writes = (url: string, tag: string) =>
        pool(250, 8, async (i) => {
          if (i % 5 === 4) return call(url, 'Message/SendSmsMessage', { recipient: '77011234567', text: `${tag} ${i} https://example.com/${tag}/${i}`, params: { shortenLinks: 1 } }, key);
          return call(url, 'Link/Create', { data: { fullLink: `https://example.com/${tag}/${i}`, comment: `${tag}-${i}` } }, key);
        });
      const [ra, rb] = await Promise.all([writes(a.url, 'a'), writes(b.url, 'b')]);
      const answers = [...ra, ...rb];
      expect(answers.filter((r) => r.code !== 0)).toEqual([]);

      // Read everything back through one of them: 400 plain links + 100 shortened ones, 100 messages.
      const ids = new Set<string>();
      const codes = new Set<string>();
      const comments = new Set<string>();
      for (let page = 0; ; page++) {
        const env = await call(a.url, 'Link/List', { pagination: { pageSize: 100, currentPage: page } }, key);
        const items = (env.data as { items: Array<{ id: string; code: string; comment: string | null }> }).items;
        if (items.length === 0) break;
        for (const l of items) {
          ids.add(l.id);
          codes.add(l.code);
          if (l.comment) comments.add(l.comment);
        }
      }
      expect([ids.size, codes.size, comments.size]).toEqual([500, 500, 400]);
      const messages = await call(b.url, 'Message/List', {}, key);
      expect((messages.data as { totalItemCount: string }).totalItemCount).toBe('100');
    } finally {
      await Promise.all([stopChild(a.child), stopChild(b.child)]);
    }
  });
});

describe('reads across processes', () => {
  it('sees at once what another process changed, however often it read before', async () => {
    const db = join(dir, 'coherent.db');
    const key = 'k';
    const other = await startChild({ port: 0, db, apiKeys: [key] });
    const here = await startEmulator({ port: 0, db, apiKeys: [key] });
    try {
      const made = (await call(here.url, 'Link/Create', { data: { fullLink: 'https://example.com/c', comment: 'v0' } }, key)).data as { id: string; code: string };
      for (let round = 1; round <= 20; round++) {
        for (let i = 0; i < 3; i++) expect((await call(here.url, 'Link/Get', { id: made.id }, key)).data).toMatchObject({ comment: `v${round - 1}` });
        expect((await call(other.url, 'Link/Update', { id: made.id, data: { comment: `v${round}` } }, key)).code).toBe(0);
        expect((await call(here.url, 'Link/Get', { id: made.id }, key)).data).toMatchObject({ comment: `v${round}` });
      }
      await fetch(`${other.url}/${made.code}`, { redirect: 'manual' });
      expect((await call(here.url, 'Link/Get', { id: made.id }, key)).data).toMatchObject({ clickCnt: '1' });
      expect((await call(other.url, 'Link/Delete', { ids: [made.id] }, key)).code).toBe(0);
      expect((await call(here.url, 'Link/Get', { id: made.id }, key)).code).toBe(2);
    } finally {
      await here.close();
      await stopChild(other.child);
    }
  });
});

describe('database file', () => {
  it('keeps state across restarts, in WAL mode, with the schema version recorded', async () => {
    const db = join(dir, 'restart.db');
    const first = await startEmulator({ port: 0, db, apiKeys: ['k'] });
    const made = (await call(first.url, 'Link/Create', { data: { fullLink: 'https://example.com/persist' } }, 'k')).data as { id: string; code: string };
    await first.close();
    const second = await startEmulator({ port: 0, db, apiKeys: ['k', 'new-key'] });
    try {
      expect(await call(second.url, 'Link/Get', { id: made.id }, 'k')).toMatchObject({ code: 0, data: { code: made.code } });
      expect((await call(second.url, 'Link/Get', { id: made.id }, 'new-key')).code).toBe(2);
    } finally {
      await second.close();
    }
    const Database = createRequire(import.meta.url)('libsql');
    const raw = new Database(db);
    try {
      expect(raw.prepare('PRAGMA journal_mode').raw(true).get()).toEqual(['wal']);
      expect(raw.prepare('SELECT version FROM schema_version').raw(true).get()).toEqual([MIGRATIONS.at(-1)!.version]);
      // The key is not stored, only its digest.
      const hashes = raw.prepare('SELECT key_hash FROM accounts').raw(true).all() as string[][];
      expect(hashes.flat().some((h) => h.includes('new-key'))).toBe(false);
    } finally {
      raw.close();
    }
  });

  it('refuses a database written by a newer version', async () => {
    const db = join(dir, 'future.db');
    const Database = createRequire(import.meta.url)('libsql');
    const raw = new Database(db);
    raw.exec('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (999);');
    raw.close();
    await expect(startEmulator({ port: 0, db })).rejects.toThrow(/newer smslink/);
  });

  it('takes any spelling of UTC as UTC', async () => {
    for (const tz of ['utc', 'Etc/UCT', 'etc/zulu', 'Etc/GMT+0']) {
      const emu = await startTestEmulator({ tz });
      try {
        const made = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/utc', expirationDate: '2025-01-15' } })).data as { id: string };
        expect((await emu.call('Link/Get', { id: made.id })).data, tz).toMatchObject({ createTs: '2025-01-15 10:00:00' });
      } finally {
        await emu.close();
      }
    }
  });

  it('opens an up-to-date database without writing: reads go on while another process holds the write lock', async () => {
    const db = join(dir, 'locked.db');
    const first = openEmulatorInProcess({ db, apiKeys: ['k'] });
    const made = await new SmsLinkClient({ baseUrl: first.url, apiKey: 'k', send: first.send }).createLink({ fullLink: 'https://example.com/locked' });
    await first.close();
    const Database = createRequire(import.meta.url)('libsql');
    const writer = new Database(db);
    writer.exec('BEGIN IMMEDIATE');
    const again = openEmulatorInProcess({ db, apiKeys: ['k'] });
    try {
      // The lock is held until after the read: an open that wrote would wait the 10 s busy timeout, then fail with SQLITE_BUSY.
      expect(await new SmsLinkClient({ baseUrl: again.url, apiKey: 'k', send: again.send }).getLink({ id: made.id })).toMatchObject({ id: made.id });
    } finally {
      await again.close();
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('refuses bad options with a clear error', async () => {
    // Each names the option and what it is given, quoted when it is a string.
    await expect(startEmulator({ port: 0, tz: 'Mars/Olympus' })).rejects.toThrow('tz must be an IANA time zone name, e.g. Asia/Almaty or UTC (got "Mars/Olympus")');
    await expect(startEmulator({ port: '0' as unknown as number })).rejects.toThrow('port must be a number from 0 to 65535 (got "0")');
    // A fault list is checked with no rate too, not when a later setFaults turns it on.
    await expect(startEmulator({ port: 0, faults: 'boom' })).rejects.toThrow(/unknown fault "boom"/);
    await expect(startEmulator({ port: 0, blockPattern: '(' })).rejects.toThrow(/block pattern/);
    await expect(startEmulator({ port: 0, timeScale: 0 })).rejects.toThrow('timeScale must be a positive number (got 0)');
    await expect(startEmulator({ port: 0, faultRate: '0.5' as unknown as number })).rejects.toThrow('faultRate must be between 0 and 1 (got "0.5")');
    await expect(startEmulator({ port: 0, faultRate: 2 })).rejects.toThrow('faultRate must be between 0 and 1 (got 2)');
    await expect(startEmulator({ port: 0, apiKeys: [] })).rejects.toThrow(/apiKeys/);
    // A slip from JavaScript (or an options object typed by hand) was dropped: the emulator started with the key "sandbox" only, and the app got code 8.
    const slip = { port: 0, apiKey: 'app-key-0000' } as unknown as EmulatorOptions;
    await expect(startEmulator(slip)).rejects.toThrow(/^unknown option "apiKey" \(did you mean apiKeys\?\); the emulator takes host, port, db, apiKeys, /);
    expect(() => openEmulatorInProcess({ tiemScale: 2 } as unknown as EmulatorOptions)).toThrow(/^unknown option "tiemScale" \(did you mean timeScale\?\)/);
    const busy = await startTestEmulator();
    try {
      await expect(startEmulator({ port: busy.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await busy.close();
    }
  });
});

describe('sandbox', () => {
  it('lives in SMSLINK_DATA_DIR, else in the user data directory', () => {
    expect(sandboxDbPath({ SMSLINK_DATA_DIR: join(dir, 'data') })).toBe(join(dir, 'data', 'sandbox.db'));
    expect(sandboxDbPath({})).toMatch(/smslink[/\\]sandbox\.db$/);
    const opts = sandboxOptions({ SMSLINK_DATA_DIR: dir });
    expect(opts).toMatchObject({ host: '127.0.0.1', port: 0, apiKeys: ['sandbox'], db: join(dir, 'sandbox.db'), shortBase: 'http://127.0.0.1:8080' });
    expect(opts.tz).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('uses the zone of the process, as Intl names it, whether TZ is set or not', () => {
    const saved = process.env.TZ;
    try {
      for (const tz of [undefined, 'UTC', ':Etc/UTC', 'etc/zulu', 'Asia/Almaty', ':Europe/Berlin']) {
        if (tz === undefined) delete process.env.TZ;
        else process.env.TZ = tz;
        // A TZ that ICU cannot read (etc/zulu) names no zone: the process runs in UTC.
        expect(sandboxOptions({}).tz, tz).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC');
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('keeps state between runs and is emptied by reset, even while an emulator has it open', async () => {
    const env = { SMSLINK_DATA_DIR: join(dir, 'sandbox') };
    expect(await resetSandbox(env)).toEqual({ path: sandboxDbPath(env), existed: false });
    const run = await startEmulator(sandboxOptions(env));
    const made = (await call(run.url, 'Link/Create', { data: { fullLink: 'https://example.com/sandbox' } }, 'sandbox')).data as { id: string; shortLink: string };
    expect(made.shortLink).toMatch(/^http:\/\/127\.0\.0\.1:8080\//);
    await run.close();
    const again = await startEmulator(sandboxOptions(env));
    try {
      expect((await call(again.url, 'Link/Get', { id: made.id }, 'sandbox')).code).toBe(0);
      expect(await resetSandbox(env)).toEqual({ path: sandboxDbPath(env), existed: true });
      expect((await call(again.url, 'Link/Get', { id: made.id }, 'sandbox')).code).toBe(2);
      expect((await call(again.url, 'Link/Create', { data: { fullLink: 'https://example.com/after' } }, 'sandbox')).code).toBe(0);
    } finally {
      await again.close();
    }
  });
});
