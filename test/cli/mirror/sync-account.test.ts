// The mirror notices a changed world: after the account is reset (the
// sandbox's reset, the emulator's reset back to its seed) or its ids are used
// again, `sync` says so, empties the mirror and fills it again, and `report`
// and `search` show nothing the account no longer has. Against the emulator
// over a real socket, and the sandbox in the process.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir, type RunOptions } from '../../helpers/run-cli.js';
import type { SeedData } from '../../../src/emulator/index.js';
import { openConnection } from '../../../src/emulator/store/connection.js';
import { mirrorPath } from '../../../src/mirror/index.js';

const KEY = 'WorldTestKey0123456789abcdefABCDEF0123456';
const SEED: SeedData = {
  links: [
    { fullLink: 'https://example.com/spring', comment: 'spring campaign', clicks: 4 },
    { fullLink: 'https://example.com/autumn', comment: 'autumn campaign', clicks: 1 },
  ],
  messages: Array.from({ length: 150 }, (_, i) => ({ to: `7701${String(1_000_000 + i)}`, text: `Seeded reminder ${i}`, ago: 3600 + i * 60 })),
};
const ALL_TIME = ['--since', '2020-01-01', '--until', '2030-01-01'];

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function account(e: TestEmulator) {
  const data = tempDir();
  const cli = (args: string[], opts: RunOptions = {}) =>
    runCli(['--base-url', e.url, ...args], { now: () => new Date(e.clock.now()), ...opts, env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC', ...opts.env } });
  return Object.assign(cli, { path: mirrorPath({ SMSLINK_DATA_DIR: data }, { baseUrl: e.url, profile: 'default' }) });
}

const post = (e: TestEmulator, path: string, body: unknown = {}) =>
  request(`${e.url}/_emulator/${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }).then((r) => r.body.json());
const send = async (e: TestEmulator, to: string, text: string) => expect((await e.call('Message/SendSmsMessage', { recipient: to, text }, KEY)).code).toBe(0);
const json = (out: string) => JSON.parse(out) as Record<string, unknown> & Array<Record<string, unknown>>;

describe('sync after the account was reset', () => {
  it('notices the emulator went back to its seed, says so, and reports and finds only what the account has now', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY], seed: SEED });
    const cli = account(emu);
    expect(json((await cli(['sync', '--json'])).stdout)).toMatchObject({ first: true, messagesFetched: 150, links: 2 });
    await send(emu, '77051234567', 'Parcel 4711 is on its way');
    await send(emu, '77051234568', 'Parcel 4712 is on its way');
    expect(json((await cli(['sync', '--json'])).stdout)).toMatchObject({ first: false, messagesFetched: 2 });
    expect(json((await cli(['search', 'parcel', '--json'])).stdout)).toHaveLength(2);

    // Back to the seed: ids start again from 1; the two parcels are gone, one new message takes id 151.
    await post(emu, 'reset');
    await send(emu, '77071234567', 'Welcome back 9000');
    const sync = await cli(['sync', '--json']);
    expect(sync.code).toBe(0);
    expect(sync.stderr).toMatch(/warning: sync: this mirror is not of the account as it is now \(.+\): emptied, and filled again/);
    expect(json(sync.stdout)).toMatchObject({ first: true, messagesFetched: 151, links: 2 });

    expect(json((await cli(['search', 'parcel', '--json'])).stdout)).toEqual([]);
    expect(json((await cli(['search', 'welcome', '--json'])).stdout)).toEqual([expect.objectContaining({ kind: 'message', text: 'Welcome back 9000' })]);
    const report = json((await cli(['report', 'delivery', '--by', 'sender', ...ALL_TIME, '--json'])).stdout);
    // The new message is not sent yet (the clock stands still): reports count sent ones.
    expect(report).toEqual([expect.objectContaining({ sender: 'SMSLINK', messages: 150 })]);
    expect(json((await cli(['sync', '--status', '--json'])).stdout)).toMatchObject({ messages: 151, links: 2, firstSyncDone: true });
    // Nothing changes after that: the next sync is a quiet one.
    const next = await cli(['sync', '--json']);
    expect(next.stderr).toBe('');
    expect(json(next.stdout)).toMatchObject({ first: false, messagesFetched: 0 });
  });

  it('notices a reset to the very same seed: each message is another one (its uuid), though its id, number and text are the same', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY], seed: SEED });
    const cli = account(emu);
    await cli(['sync', '--json']);
    await post(emu, 'reset');
    const sync = await cli(['sync', '--json']);
    expect(sync.stderr).toContain('message 150 is another message now');
    expect(json(sync.stdout)).toMatchObject({ first: true, messagesFetched: 150 });
  });

  it('notices an account emptied, and one whose ids were used again for fewer messages', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY] });
    const cli = account(emu);
    for (let i = 0; i < 5; i++) await send(emu, `7701555000${i}`, `Before the reset ${i}`);
    await cli(['sync', '--json']);
    await post(emu, 'reset');
    const empty = await cli(['sync', '--json']);
    expect(empty.stderr).toContain('the account has 0 messages, the mirror 5');
    expect(json(empty.stdout)).toMatchObject({ first: true, messagesFetched: 0 });
    expect(json((await cli(['search', 'reset', '--json'])).stdout)).toEqual([]);

    for (let i = 0; i < 5; i++) await send(emu, `7701555000${i}`, `Before the reset ${i}`);
    await cli(['sync', '--json']);
    await post(emu, 'reset');
    await send(emu, '77015550000', 'After the reset');
    const fewer = await cli(['sync', '--json']);
    expect(fewer.stderr).toMatch(/the account has 1 message, the mirror 5|newest message is 1, the mirror's 5/);
    expect(json((await cli(['search', 'reset', '--json'])).stdout)).toEqual([expect.objectContaining({ text: 'After the reset' })]);
  });

  it('notices links whose ids now name other links, and keeps no clicks of the old ones', async () => {
    // Links only: nothing of the messages can tell.
    emu = await startTestEmulator({ apiKeys: [KEY], seed: { links: SEED.links } });
    const cli = account(emu);
    await cli(['sync', '--json']);
    expect(json((await cli(['report', 'links', '--json'])).stdout).map((r) => r.clicks)).toEqual([4, 1]);
    // The account is reset: the same links, under new codes (the clock goes back too, so they are not due to be all listed again).
    await post(emu, 'reset');
    const sync = await cli(['sync', '--json']);
    expect(sync.stderr).toMatch(/link \d+ is another link now/);
    expect(json(sync.stdout)).toMatchObject({ first: true, links: 2 });
    const report = json((await cli(['report', 'links', '--json'])).stdout);
    const listed = (await emu.call('Link/List', { pagination: { pageSize: 25 } }, KEY)).data as { items: Array<{ shortLink: string }> };
    expect(report.map((r) => [r.fullLink, r.clicks])).toEqual([
      ['https://example.com/spring', 4],
      ['https://example.com/autumn', 1],
    ]);
    expect(report.map((r) => r.shortLink).sort()).toEqual(listed.items.map((l) => l.shortLink).sort());
  });
});

describe('a mirror of the previous release', () => {
  it('goes on with later syncs as before (no uuid held, pages instead of windows), and still notices a reset', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY], seed: SEED });
    const cli = account(emu);
    await cli(['sync', '--json']);
    // Made as the previous release made it: no uuid, a table of first-sync pages, no windows, no marks, schema version 0.
    const db = openConnection(cli.path);
    db.exec(`ALTER TABLE messages DROP COLUMN uuid; DROP TABLE sync_windows; DROP TABLE sync_window_pages;
      CREATE TABLE first_pages (page INTEGER PRIMARY KEY); DROP TRIGGER links_other; DROP TRIGGER links_au;
      CREATE TRIGGER links_au AFTER UPDATE OF full_link, comment ON links BEGIN
        INSERT INTO links_fts (links_fts, rowid, full_link, comment) VALUES ('delete', old.id, old.full_link, old.comment);
        INSERT INTO links_fts (rowid, full_link, comment) VALUES (new.id, new.full_link, new.comment);
      END;
      DELETE FROM meta WHERE key IN ('sent_mark', 'links_listed'); PRAGMA user_version = 0;`);
    db.close();
    await send(emu, '77051234567', 'Parcel 4711 is on its way');
    const next = await cli(['sync', '--json']);
    expect(next.stderr).toBe('');
    expect(json(next.stdout)).toMatchObject({ first: false, messagesFetched: 1, links: 2 });
    expect(json((await cli(['search', 'parcel', '--json'])).stdout)).toHaveLength(1);
    await post(emu, 'reset');
    const after = await cli(['sync', '--json']);
    expect(after.stderr).toContain('the account has 150 messages, the mirror 151');
    expect(json((await cli(['search', 'parcel', '--json'])).stdout)).toEqual([]);
  });
});

describe('sandbox reset', () => {
  it('empties the sandbox\'s mirror too: after a new message and sync, search finds it and none of the deleted ones', async () => {
    const env = { SMSLINK_DATA_DIR: tempDir(), TZ: 'UTC' };
    const box = (args: string[]) => runCli(['--sandbox', ...args], { env });
    for (const text of ['Old news one', 'Old news two', 'Old news three']) expect((await box(['message', 'send', '--to', '77011234567', '--text', text])).code).toBe(0);
    expect(json((await box(['sync', '--json'])).stdout)).toMatchObject({ messagesFetched: 3 });
    expect(json((await box(['search', 'news', '--json'])).stdout)).toHaveLength(3);

    expect((await runCli(['sandbox', 'reset'], { env })).code).toBe(0);
    const before = await box(['search', 'news']);
    expect(before.code).toBe(2);
    expect(before.stderr).toContain('there is no mirror of this account yet');

    expect((await box(['message', 'send', '--to', '77011234567', '--text', 'Fresh news'])).code).toBe(0);
    const sync = await box(['sync', '--json']);
    expect(json(sync.stdout)).toMatchObject({ first: true, messagesFetched: 1 });
    expect(json((await box(['search', 'news', '--json'])).stdout)).toEqual([expect.objectContaining({ text: 'Fresh news' })]);
  });
});
