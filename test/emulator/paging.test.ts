// Link/List and Message/List page by page, over a real socket: every item
// exactly once however the pages are asked for (in order, backwards, by
// jumps), in the order the sort names with ties and missing values, and
// totals that follow every write, also one made by another process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmulatorInProcess, type SeedData } from '../../src/emulator/index.js';
import { SmsLinkClient } from '../../src/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

type Item = Record<string, string | null>;
interface Page {
  items: Item[];
  totalItemCount: string;
}

const KEY = 'paging-key-0000';
const OTHER = 'paging-other-0000';
const STATUSES = ['DELIVRD', 'UNDELIV', 'NEW', 'EXPIRED', 'DELIVRD', 'REJECTD'];

/**
 * 140 links made at one instant (the default order is all ties on createTs),
 * clicks from 0 to 6, one in three without an expiration date; 230
 * messages, two a second, some still NEW (no status time); and a few of
 * another account's, which no page of this one may show.
 */
const SEED: SeedData = {
  keys: [KEY, OTHER],
  links: [
    ...Array.from({ length: 140 }, (_, i) => ({
      fullLink: `https://example.com/offer/${i}`,
      comment: `offer ${i % 9}`,
      clicks: (i * 5) % 7,
      status: i % 4 === 0 ? (0 as const) : (1 as const),
      ...(i % 3 === 0 ? {} : { expirationDate: `2031-0${1 + (i % 5)}-1${i % 3}` }),
    })),
    ...Array.from({ length: 12 }, (_, i) => ({ fullLink: `https://example.com/other/${i}`, key: OTHER })),
  ],
  messages: [
    ...Array.from({ length: 230 }, (_, i) => ({ to: `7701${String(1_000_000 + ((i * 7919) % 9_000_000))}`, text: `code ${i % 11}`, status: STATUSES[i % STATUSES.length], ago: 86_400 - Math.floor(i / 2) * 60 })),
    ...Array.from({ length: 9 }, (_, i) => ({ to: '77019990000', text: `other ${i}`, key: OTHER })),
  ],
};

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: SEED });
});
afterAll(() => emu.close());

async function list(op: 'Link/List' | 'Message/List', params: Record<string, unknown>, page: number, pageSize = 25, key = KEY): Promise<Page> {
  const env = await emu.call(op, { ...params, pagination: { pageSize, currentPage: page } }, key);
  expect(env.code, env.message).toBe(0);
  return env.data as Page;
}

/** Every page from the first until one comes back short; the total each page told. */
async function walk(op: 'Link/List' | 'Message/List', params: Record<string, unknown>, pageSize = 25): Promise<{ ids: string[]; totals: Set<string>; items: Item[] }> {
  const items: Item[] = [];
  const totals = new Set<string>();
  for (let page = 0; ; page++) {
    const got = await list(op, params, page, pageSize);
    totals.add(got.totalItemCount);
    items.push(...got.items);
    if (got.items.length < pageSize) break;
  }
  return { ids: items.map((i) => i.id!), totals, items };
}

/** The order SQL gives: NULL before any value, numbers as numbers; ties by id in the direction of the last field. */
function inOrder(items: Item[], sort: Array<[string, 'ASC' | 'DESC']>, numeric: string[] = []): boolean {
  const keys: Array<[string, number]> = [...sort.map(([f, d]): [string, number] => [f, d === 'DESC' ? -1 : 1]), ['id', sort.length ? (sort.at(-1)![1] === 'DESC' ? -1 : 1) : -1]];
  const value = (item: Item, field: string) => (item[field] === null ? null : numeric.includes(field) || field === 'id' ? Number(item[field]) : item[field]);
  const compare = (a: Item, b: Item) => {
    for (const [field, sign] of keys) {
      const x = value(a, field);
      const y = value(b, field);
      if (x === y) continue;
      if (x === null) return -sign;
      if (y === null) return sign;
      return x < y ? -sign : sign;
    }
    return 0;
  };
  return items.every((item, i) => i === 0 || compare(items[i - 1], item) < 0);
}

const LINK_SORTS: Array<Array<[string, 'ASC' | 'DESC']>> = [
  [],
  [['clickCnt', 'DESC']],
  [['clickCnt', 'ASC']],
  [['expirationDate', 'ASC']],
  [['expirationDate', 'DESC']],
  [['code', 'ASC']],
  [
    ['clickCnt', 'DESC'],
    ['expirationDate', 'ASC'],
  ],
  [
    ['expirationDate', 'DESC'],
    ['clickCnt', 'ASC'],
  ],
];

describe('Link/List, page by page', () => {
  it.each(LINK_SORTS.map((s) => [s.map(([f, d]) => `${f} ${d}`).join(', ') || 'newest first', s] as const))('sorted %s: every link of the account once, in order', async (_, sort) => {
    const { ids, totals, items } = await walk('Link/List', { sort: Object.fromEntries(sort) });
    expect(totals).toEqual(new Set(['140']));
    expect(ids).toHaveLength(140);
    expect(new Set(ids).size).toBe(140);
    expect(inOrder(items, sort, ['clickCnt'])).toBe(true);
  });

  it('gives the same pages asked backwards, by jumps and again', async () => {
    const params = { sort: { clickCnt: 'DESC', expirationDate: 'ASC' } };
    const forward = (await walk('Link/List', params, 25)).ids;
    const pageIds = async (page: number) => (await list('Link/List', params, page)).items.map((i) => i.id);
    const chunk = (page: number) => forward.slice(page * 25, page * 25 + 25);
    for (const page of [5, 3, 4, 0, 2, 1, 5, 5, 2]) expect(await pageIds(page), `page ${page}`).toEqual(chunk(page));
    // Page size 50 and 100 over the same order.
    for (const size of [50, 100]) {
      for (const page of [2, 0, 1]) expect((await list('Link/List', params, page, size)).items.map((i) => i.id)).toEqual(forward.slice(page * size, page * size + size));
    }
    expect((await list('Link/List', params, 6)).items).toEqual([]);
    expect((await list('Link/List', params, 1_000_000)).items).toEqual([]);
  });

  it('filters by status and by a comment: each page holds only matches, each once', async () => {
    const active = await walk('Link/List', { criteria: { status: 1 }, sort: { clickCnt: 'ASC' } });
    expect(active.totals).toEqual(new Set(['105']));
    expect(new Set(active.ids).size).toBe(105);
    expect(active.items.every((l) => l.status === '1')).toBe(true);
    const offers = await walk('Link/List', { criteria: { query: 'offer 4' } }, 50);
    // i % 9 === 4 for i below 140.
    expect(offers.totals).toEqual(new Set(['16']));
    expect(new Set(offers.ids).size).toBe(16);
    expect(offers.items.every((l) => l.comment === 'offer 4')).toBe(true);
  });

  it('counts again and pages right after links are made, changed, visited and deleted', async () => {
    const params = { sort: { clickCnt: 'DESC' } };
    await walk('Link/List', params);
    const made = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/new-one' } }, KEY);
    const id = (made.data as { id: string }).id;
    const code = (made.data as { code: string }).code;
    // Five visits: the new link moves up the clickCnt order, the pages after it shift.
    for (let i = 0; i < 6; i++) await emu.raw('GET', `/${code}`);
    let after = await walk('Link/List', params);
    expect(after.totals).toEqual(new Set(['141']));
    expect(new Set(after.ids).size).toBe(141);
    expect(inOrder(after.items, [['clickCnt', 'DESC']], ['clickCnt'])).toBe(true);
    expect(after.items.find((l) => l.id === id)?.clickCnt).toBe('6');
    expect((await list('Link/List', {}, 0)).items[0].id).toBe(id);

    const gone = after.ids.slice(30, 33);
    const deleted = await emu.call('Link/Delete', { ids: gone.map(Number) }, KEY);
    expect(deleted.code).toBe(0);
    after = await walk('Link/List', params);
    expect(after.totals).toEqual(new Set(['138']));
    expect(after.ids.filter((i) => gone.includes(i))).toEqual([]);
    expect(new Set(after.ids).size).toBe(138);

    const inactive = after.items.filter((l) => l.status === '0').length;
    expect((await list('Link/List', { criteria: { status: 0 } }, 0, 100)).totalItemCount).toBe(String(inactive));
    const updated = await emu.call('Link/Update', { id: Number(after.items.find((l) => l.status === '1')!.id), data: { status: 0 } }, KEY);
    expect(updated.code).toBe(0);
    expect((await list('Link/List', { criteria: { status: 0 } }, 0, 100)).totalItemCount).toBe(String(inactive + 1));
  });

  it('shows no other account’s links', async () => {
    const other = await list('Link/List', {}, 0, 25, OTHER);
    expect(other.totalItemCount).toBe('12');
    expect(other.items.every((l) => l.fullLink!.startsWith('https://example.com/other/'))).toBe(true);
  });
});

const MESSAGE_SORTS: Array<Array<[string, 'ASC' | 'DESC']>> = [
  [],
  [['id', 'ASC']],
  [['statusUpdateTs', 'ASC']],
  [['statusUpdateTs', 'DESC']],
  [['status', 'ASC']],
  [
    ['text', 'DESC'],
    ['startSendTs', 'ASC'],
  ],
];

describe('Message/List, page by page', () => {
  it.each(MESSAGE_SORTS.map((s) => [s.map(([f, d]) => `${f} ${d}`).join(', ') || 'newest first', s] as const))('sorted %s: every message of the account once, in order', async (_, sort) => {
    const { ids, totals, items } = await walk('Message/List', { sort: Object.fromEntries(sort) }, 50);
    expect(totals).toEqual(new Set(['230']));
    expect(new Set(ids).size).toBe(230);
    expect(inOrder(items, sort)).toBe(true);
  });

  it('puts the messages without a status time first going up and last going down', async () => {
    const up = (await walk('Message/List', { sort: { statusUpdateTs: 'ASC' } })).items;
    const down = (await walk('Message/List', { sort: { statusUpdateTs: 'DESC' } })).items;
    const none = up.filter((m) => m.statusUpdateTs === null).length;
    expect(none).toBeGreaterThan(25);
    expect(up.slice(0, none).every((m) => m.status === 'NEW')).toBe(true);
    expect(down.slice(-none).every((m) => m.statusUpdateTs === null)).toBe(true);
  });

  it('counts a new message at once, and a status that moved', async () => {
    const before = await walk('Message/List', { criteria: { status: 'DELIVRD' } });
    const sent = await emu.call('Message/SendSmsMessage', { recipient: '77015550001', text: 'fresh' }, KEY);
    expect(sent.code).toBe(0);
    const all = await list('Message/List', {}, 0);
    expect(all.totalItemCount).toBe('231');
    expect(all.items[0].text).toBe('fresh');
    expect((await list('Message/List', { criteria: { status: 'DELIVRD' } }, 0)).totalItemCount).toBe(before.totals.values().next().value);
    await emu.emulator.deliver();
    const delivered = await walk('Message/List', { criteria: { status: 'DELIVRD' } });
    expect(delivered.totals).toEqual(new Set([String(before.ids.length + 1)]));
    expect(new Set(delivered.ids).size).toBe(before.ids.length + 1);
  });
});

describe('a database file written by another process', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'smslink-paging-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is counted and paged again after the other writes', async () => {
    const db = join(dir, 'shared.db');
    const served = await startTestEmulator({ db, apiKeys: [KEY] });
    const local = openEmulatorInProcess({ db, apiKeys: [KEY] });
    try {
      const other = new SmsLinkClient({ apiKey: KEY, baseUrl: local.url, send: local.send });
      for (let i = 0; i < 30; i++) await other.createLink({ fullLink: `https://example.com/a/${i}` });
      const page = async (n: number) => (await served.call('Link/List', { pagination: { pageSize: 25, currentPage: n } })).data as Page;
      expect((await page(0)).totalItemCount).toBe('30');
      expect((await page(1)).items).toHaveLength(5);
      const made = await other.createLink({ fullLink: 'https://example.com/b' });
      const first = await page(0);
      expect(first.totalItemCount).toBe('31');
      expect(first.items[0].id).toBe(String(made.id));
      expect((await page(1)).items).toHaveLength(6);
    } finally {
      await local.close();
      await served.close();
    }
  });
});
