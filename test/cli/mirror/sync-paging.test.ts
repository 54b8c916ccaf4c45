// How `sync` pages, seen from the wire: a tap between the CLI and the
// emulator records every request. The first sync walks messages in windows
// of send time (of campaign creation for those not yet sent) and asks for no
// page past MAX_PAGES; an interrupted one goes on by window, asking for no
// page it stored; later syncs list links only when something can have
// changed. Against the emulator over a real socket.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir, type RunOptions } from '../../helpers/run-cli.js';
import { startTap, type Tap, type Tapped } from '../../helpers/tap.js';
import type { SeedMessageData } from '../../../src/emulator/index.js';
import { Mirror, mirrorPath } from '../../../src/mirror/index.js';
import { MAX_PAGES, cut } from '../../../src/mirror/sync.js';

const KEY = 'PagingTestKey0123456789abcdefABCDEF012345';
const DAY = 86_400;
const CROWDED_AGO = 5 * DAY + 1234;

/** 1,200 messages over ten days, 1,400 within an hour fifteen days ago, and 1,050 sent in one second five days ago. */
const SEED: SeedMessageData[] = [
  ...Array.from({ length: 1200 }, (_, i) => ({ to: `7701${String(1_000_000 + i)}`, text: `Spread ${i}`, ago: i * 720 + 7 })),
  ...Array.from({ length: 1400 }, (_, i) => ({ to: `7705${String(1_000_000 + i)}`, text: `Burst ${i}`, ago: 15 * DAY + i * 2 })),
  ...Array.from({ length: 1050 }, (_, i) => ({ to: `7707${String(1_000_000 + i)}`, text: `Crowded ${i}`, ago: CROWDED_AGO })),
];

let emu: TestEmulator;
let tap: Tap;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY], seed: { messages: SEED } });
  tap = await startTap(emu.url);
  // Not yet sent when the first sync runs: 30 waiting for the clock, 5 deferred by two hours.
  for (let i = 0; i < 30; i++) expect((await emu.call('Message/SendSmsMessage', { recipient: `7700${String(2_000_000 + i)}`, text: `Waiting ${i}` }, KEY)).code).toBe(0);
  const later = new Date(emu.clock.now() + 2 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
  for (let i = 0; i < 5; i++) {
    expect((await emu.call('Message/SendSmsMessage', { recipient: `7700${String(3_000_000 + i)}`, text: `Deferred ${i}`, params: { deferredToTs: later } }, KEY)).code).toBe(0);
  }
}, 120_000);
afterAll(async () => {
  await tap?.close();
  await emu?.close();
});

const TOTAL = SEED.length + 35;

function account() {
  const data = tempDir();
  const cli = (args: string[], opts: RunOptions = {}) =>
    runCli(['--base-url', tap.url, ...args], { now: () => new Date(emu.clock.now()), ...opts, env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC', ...opts.env } });
  return Object.assign(cli, { path: mirrorPath({ SMSLINK_DATA_DIR: data }, { baseUrl: tap.url, profile: 'default' }) });
}

/** The requests `run` makes, from the tap. */
async function tapped<T>(run: () => Promise<T>): Promise<{ result: T; requests: Tapped[] }> {
  const from = tap.requests.length;
  const result = await run();
  return { result, requests: tap.requests.slice(from) };
}

const page = (r: Tapped) => Number(r.form['pagination[currentPage]'] ?? 0);
const lists = (rs: Tapped[], op = 'Message/List') => rs.filter((r) => r.op === op);
const dayOf = (ago: number) => new Date(emu.clock.now() - ago * 1000).toISOString().slice(0, 10);

describe('the first sync', () => {
  it('walks windows of time and asks for no page past the tenth, but in a second that holds more than ten pages', async () => {
    const cli = account();
    const { result: sync, requests } = await tapped(() => cli(['sync', '--json', '--concurrency', '3']));
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ first: true, messagesFetched: TOTAL });
    const deep = lists(requests).filter((r) => page(r) >= MAX_PAGES);
    // Only the second of the 1,050 has no finer time to be cut by: its window is that one second, five days ago.
    expect(deep.length).toBeGreaterThan(0);
    const seconds = new Set(deep.flatMap((r) => [r.form['criteria[startSendTsFrom]'], r.form['criteria[startSendTsTo]']]));
    expect(seconds.size).toBe(1);
    expect([...seconds][0].slice(0, 10)).toBe(dayOf(CROWDED_AGO));
    // Those not yet sent were asked for by their own criterion, and are mirrored.
    expect(lists(requests).some((r) => r.form['criteria[campaignStatus]'] === 'NOT_YET_SENT')).toBe(true);
    expect(JSON.parse((await cli(['search', 'deferred', '--json', '--limit', '100'])).stdout)).toHaveLength(5);
    expect(JSON.parse((await cli(['sync', '--status', '--json'])).stdout)).toMatchObject({ messages: TOTAL, firstSyncDone: true });
    // 37 pages hold them all; cutting costs a request a window cut (the crowded second, one halving of the
    // days around it at a time, most of them), and a window's last page is seldom full.
    expect(lists(requests).length).toBeLessThan(100);
  });

  it('goes on by window after Ctrl-C: a window done or a page stored is not asked for again', async () => {
    const cli = account();
    await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['latency:40-40ms'] }), headers: { 'content-type': 'application/json' } });
    const stop = new AbortController();
    let stopped;
    try {
      const run = cli(['sync', '--json', '--concurrency', '2'], { signal: stop.signal });
      // Stop once some windows are done and some pages of others stored, however slow the machine.
      for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() > deadline) throw new Error('the sync did not get far enough in 60 s');
        const mirror = Mirror.openExisting(cli.path);
        if (!mirror) continue;
        try {
          const done = mirror.one<{ n: number }>("SELECT count(*) AS n FROM sync_windows WHERE done = 1 AND part = 'sent'").n;
          if (done >= 2) break;
        } catch {
          // the sync is still making its tables
        } finally {
          mirror.close();
        }
      }
      stop.abort();
      stopped = await run;
    } finally {
      await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 0 }), headers: { 'content-type': 'application/json' } });
    }
    expect(stopped.code).toBe(130);
    const mirror = Mirror.openExisting(cli.path)!;
    const windows = mirror.all<{ id: number; part: string; from_ts: string | null; to_ts: string | null; done: number }>('SELECT id, part, from_ts, to_ts, done FROM sync_windows');
    const pages = mirror.all<{ window: number; page: number }>('SELECT window, page FROM sync_window_pages');
    mirror.close();
    const key = (from: unknown, to: unknown) => `${from ?? ''}|${to ?? ''}`;
    const sent = windows.filter((w) => w.part === 'sent');
    const doneWindows = new Set(sent.filter((w) => w.done).map((w) => key(w.from_ts, w.to_ts)));
    const storedPages = new Set(pages.filter((p) => p.page > 0).map((p) => { const w = sent.find((x) => x.id === p.window)!; return `${key(w?.from_ts, w?.to_ts)}#${p.page}`; }));
    expect(doneWindows.size).toBeGreaterThanOrEqual(2);

    const { result: again, requests } = await tapped(() => cli(['sync', '--json']));
    expect(again.code, again.stderr).toBe(0);
    const asked = lists(requests).filter((r) => r.form['criteria[startSendTsFrom]'] !== undefined && r.form['sort[id]'] === 'ASC');
    for (const r of asked) {
      const w = key(r.form['criteria[startSendTsFrom]'], r.form['criteria[startSendTsTo]']);
      expect(doneWindows.has(w), `window ${w} was done`).toBe(false);
      expect(storedPages.has(`${w}#${page(r)}`), `page ${page(r)} of ${w} was stored`).toBe(false);
    }
    expect(JSON.parse((await cli(['sync', '--status', '--json'])).stdout)).toMatchObject({ messages: TOTAL, firstSyncDone: true });
  });
});

describe('later syncs', () => {
  it('fetch many new messages by windows of send time too, and then only those sent since', async () => {
    const own = await startTestEmulator({ apiKeys: [KEY], seed: { messages: SEED.slice(0, 200) } });
    const ownTap = await startTap(own.url);
    try {
      const data = tempDir();
      const cli = (args: string[]) => runCli(['--base-url', ownTap.url, ...args], { now: () => new Date(own.clock.now()), env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC' } });
      expect(JSON.parse((await cli(['sync', '--json'])).stdout)).toMatchObject({ messagesFetched: 200 });
      // 1,100 messages over 22 seconds, all sent by the next sync.
      for (let i = 0; i < 1100; i++) {
        if (i % 50 === 0) await own.emulator.advance(1);
        expect((await own.call('Message/SendSmsMessage', { recipient: `7701${String(4_000_000 + i)}`, text: `Later ${i}` }, KEY)).code).toBe(0);
      }
      await request(`${own.url}/_emulator/clock`, { method: 'POST', body: JSON.stringify({ advance: 'pending' }), headers: { 'content-type': 'application/json' } });
      const from = ownTap.requests.length;
      const sync = await cli(['sync', '--json']);
      expect(sync.code, sync.stderr).toBe(0);
      expect(JSON.parse(sync.stdout)).toMatchObject({ first: false, messagesFetched: 1100 });
      const asked = lists(ownTap.requests.slice(from));
      expect(Math.max(...asked.map(page))).toBeLessThan(MAX_PAGES);
      // Nothing new: the newest page, those not yet sent, and those sent since the last sync (a page).
      const quiet = ownTap.requests.length;
      expect(JSON.parse((await cli(['sync', '--json'])).stdout)).toMatchObject({ messagesFetched: 0 });
      expect(lists(ownTap.requests.slice(quiet)).length).toBeLessThanOrEqual(3);
      expect(JSON.parse((await cli(['sync', '--status', '--json'])).stdout)).toMatchObject({ messages: 1300 });
    } finally {
      await ownTap.close();
      await own.close();
    }
  }, 120_000);

  it('list links only when something can have changed: a new link, a deleted one, a click, or a day gone by', async () => {
    const own = await startTestEmulator({
      apiKeys: [KEY],
      seed: { links: Array.from({ length: 250 }, (_, i) => ({ fullLink: `https://example.com/offer/${i}`, comment: `offer ${i}`, clicks: i % 25 === 0 ? 3 : 0 })) },
    });
    const ownTap = await startTap(own.url);
    try {
      const data = tempDir();
      const cli = (args: string[]) => runCli(['--base-url', ownTap.url, ...args], { now: () => new Date(own.clock.now()), env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC' } });
      const linkLists = async (args: string[]) => {
        const from = ownTap.requests.length;
        const r = await cli(args);
        expect(r.code, r.stderr).toBe(0);
        return { out: JSON.parse(r.stdout) as Record<string, unknown>, lists: lists(ownTap.requests.slice(from), 'Link/List') };
      };
      const everything = (rs: Tapped[]) => rs.some((r) => r.form['sort[createTs]'] === 'ASC');
      const first = await linkLists(['sync', '--json']);
      expect(first.out).toMatchObject({ links: 250, linkStatsFetched: 10 });
      expect(everything(first.lists)).toBe(true);

      // Nothing new: the newest links, and the clicked ones (ten, on one page).
      const quiet = await linkLists(['sync', '--json']);
      expect(quiet.out).toMatchObject({ links: 250, linkStatsFetched: 0 });
      expect(quiet.lists.map((r) => Object.keys(r.form).filter((k) => k.startsWith('sort[')).join())).toEqual(['sort[createTs]', 'sort[clickCnt]']);

      // A new link, and a first click on a link never clicked: seen without listing them all.
      const made = await own.call('Link/Create', { data: { fullLink: 'https://example.com/brand-new', comment: 'brand new' } }, KEY);
      const listed = (await own.call('Link/List', { criteria: { query: 'offer 7' }, pagination: { pageSize: 25 } }, KEY)).data as { items: Array<{ id: string; shortLink: string; comment: string }> };
      const seven = listed.items.find((l) => l.comment === 'offer 7')!;
      const visit = await request(seven.shortLink);
      await visit.body.dump();
      expect(visit.statusCode).toBe(302);
      const changed = await linkLists(['sync', '--json']);
      expect(changed.out).toMatchObject({ links: 251, linkStatsFetched: 1 });
      expect(everything(changed.lists)).toBe(false);
      expect(JSON.parse((await cli(['search', 'brand', '--json'])).stdout)).toEqual([expect.objectContaining({ kind: 'link', id: Number((made.data as { id: string }).id) })]);
      const report = JSON.parse((await cli(['report', 'links', '--top', '100', '--json'])).stdout) as Array<{ id: number; clicks: number }>;
      expect(report.find((r) => r.id === Number(seven.id))).toMatchObject({ clicks: 1 });

      // A deleted link: the counts disagree, so every link is listed again, and it leaves the mirror.
      expect((await own.call('Link/Delete', { ids: [(made.data as { id: string }).id] }, KEY)).code).toBe(0);
      const deleted = await linkLists(['sync', '--json']);
      expect(deleted.out).toMatchObject({ links: 250 });
      expect(everything(deleted.lists)).toBe(true);
      expect(JSON.parse((await cli(['search', 'brand', '--json'])).stdout)).toEqual([]);

      // A comment edited on a link never clicked shows after the daily listing.
      expect((await own.call('Link/Update', { id: listed.items.find((l) => l.comment === 'offer 77')!.id, data: { comment: 'renamed offer' } }, KEY)).code).toBe(0);
      own.clock.advance(25 * 3600_000);
      const daily = await linkLists(['sync', '--json']);
      expect(everything(daily.lists)).toBe(true);
      expect(JSON.parse((await cli(['search', 'renamed', '--json'])).stdout)).toEqual([expect.objectContaining({ kind: 'link' })]);
    } finally {
      await ownTap.close();
      await own.close();
    }
  }, 60_000);
});

describe('cutting a window', () => {
  const span = { lo: Date.parse('2025-01-01T00:00:00Z') / 1000, hi: Date.parse('2025-01-10T23:59:59Z') / 1000 };

  it('cuts it into pieces that meet without a gap or an overlap, keeping its open ends', () => {
    const pieces = cut({ from: '1970-01-01 00:00:00', to: null }, 5000, span)!;
    expect(pieces.length).toBe(Math.ceil(5000 / 700));
    expect(pieces[0].from).toBe('1970-01-01 00:00:00');
    expect(pieces.at(-1)!.to).toBeNull();
    const seconds = (w: string) => Date.parse(`${w.replace(' ', 'T')}Z`) / 1000;
    for (let i = 1; i < pieces.length; i++) expect(seconds(pieces[i].from!)).toBe(seconds(pieces[i - 1].to!) + 1);
  });

  it('cannot cut one second, nor a window wholly outside the times found', () => {
    expect(cut({ from: '2025-01-05 10:00:00', to: '2025-01-05 10:00:00' }, 5000, span)).toBeNull();
    expect(cut({ from: null, to: '2024-12-01 00:00:00' }, 5000, span)).toBeNull();
    expect(cut({ from: '2025-01-05 10:00:00', to: '2025-01-05 10:00:01' }, 5000, span)).toHaveLength(2);
  });
});
