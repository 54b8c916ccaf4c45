import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, TEST_START, type TestEmulator } from '../helpers/emulator.js';

interface LinkJson {
  id: string;
  code: string;
  shortLink: string;
  fullLink: string;
  status: string;
  moderatorStatus: string;
  clickCnt: string;
  createTs: string;
  expirationDate: string | null;
  comment: string | null;
  moderatorComment: string | null;
}
interface Page {
  items: LinkJson[];
  totalItemCount: string;
}

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: ['links', 'list-key', 'other'], blockPattern: 'blocked\\.example' });
});
afterAll(() => emu.close());

async function create(data: Record<string, unknown>, key = 'links') {
  const env = await emu.call('Link/Create', { data }, key);
  expect(env.code, env.message).toBe(0);
  return env.data as { id: string; code: string; shortLink: string };
}
const get = async (params: Record<string, unknown>, key = 'links') => emu.call('Link/Get', params, key);
const linkOf = async (id: string) => (await get({ id })).data as LinkJson;

describe('Link/Create', () => {
  it('creates an active link with a fresh code and its short link on this emulator', async () => {
    const made = await create({ fullLink: 'https://example.com/some/long/path?x=1' });
    expect(made.code).toMatch(/^[0-9A-Za-z]{4,}$/);
    expect(made.shortLink).toBe(`${emu.url}/${made.code}`);
    const link = await linkOf(made.id);
    expect(link).toMatchObject({
      id: made.id,
      code: made.code,
      fullLink: 'https://example.com/some/long/path?x=1',
      status: '1',
      moderatorStatus: '1',
      clickCnt: '0',
      createTs: '2025-01-15 10:00:00',
      expirationDate: null,
      comment: null,
      moderatorComment: null,
    });
  });

  it('accepts status 0, an expiration date, a comment and a www. link', async () => {
    const made = await create({ fullLink: 'www.example.com/x', status: 0, expirationDate: '2025-02-01', comment: 'spring sale' });
    expect(await linkOf(made.id)).toMatchObject({ status: '0', expirationDate: '2025-02-01', comment: 'spring sale', fullLink: 'www.example.com/x' });
  });

  it('names each bad field with code 1', async () => {
    const env = await emu.call('Link/Create', { data: { fullLink: 'ftp://example.com', status: 3, expirationDate: '2025-02-30', comment: 'x'.repeat(256) } }, 'links');
    expect(env.code).toBe(1);
    // As live: a general sentence, and each field's texts as a list.
    expect(env.message).toBe('One or more parameters contain incorrect data (data[fullLink], data[status], data[expirationDate], data[comment]): check the errors in data and try again.');
    expect(Object.keys(env.data as object).sort()).toEqual(['comment', 'expirationDate', 'fullLink', 'status']);
    expect((env.data as Record<string, string[]>).comment).toEqual([expect.stringMatching(/255/)]);
  });

  it('takes a comment of exactly 255 characters', async () => {
    const made = await create({ fullLink: 'https://example.com/c', comment: 'é'.repeat(255) });
    expect((await linkOf(made.id)).comment).toHaveLength(255);
  });

  it('says 11 when fullLink is missing', async () => {
    // The live answer to Link/Create without data: data null, the group `data` named.
    expect(await emu.call('Link/Create', {}, 'links')).toEqual({
      code: 11,
      data: null,
      message: 'Parameter(s) data are not valid for this module and method. Check the documentation of Link/Create: data[fullLink] is required.',
    });
  });

  it('hands out unique codes', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 200; i++) codes.add((await create({ fullLink: `https://example.com/u/${i}` })).code);
    expect(codes.size).toBe(200);
  });

  it('creates links matching --block-pattern blocked, with a moderator comment', async () => {
    const made = await create({ fullLink: 'https://blocked.example/phish' });
    const link = await linkOf(made.id);
    expect(link.moderatorStatus).toBe('0');
    expect(link.moderatorComment).toMatch(/blocked/i);
  });
});

describe('Link/Get', () => {
  it('finds a link by id, by code and by short link', async () => {
    const made = await create({ fullLink: 'https://example.com/get' });
    for (const params of [{ id: made.id }, { code: made.code }, { shortLink: made.shortLink }, { shortLink: `${made.shortLink}/` }]) {
      expect(await get(params)).toMatchObject({ code: 0, data: { id: made.id } });
    }
  });

  it('says 12 with none or several selectors and 2 when nothing matches', async () => {
    expect(await get({})).toMatchObject({ code: 12, message: 'Link/Get: give exactly one of id, code, shortLink' });
    const made = await create({ fullLink: 'https://example.com/two' });
    expect((await get({ id: made.id, code: made.code })).code).toBe(12);
    expect(await get({ id: 999_999 })).toMatchObject({ code: 2, data: null });
    expect((await get({ code: 'zzzzzzzz' })).code).toBe(2);
    expect((await get({ shortLink: 'https://elsewhere.example/' })).code).toBe(2);
    expect((await get({ id: 'abc' })).code).toBe(1);
  });
});

describe('Link/Update', () => {
  it('changes status, comment and expiry and answers true like the live service', async () => {
    const made = await create({ fullLink: 'https://example.com/upd', comment: 'before', expirationDate: '2025-03-01' });
    const env = await emu.call('Link/Update', { id: made.id, data: { status: 0, comment: 'after', expirationDate: '2025-04-01' } }, 'links');
    expect(env).toEqual({ code: 0, data: true, message: '' });
    expect(await linkOf(made.id)).toMatchObject({ status: '0', comment: 'after', expirationDate: '2025-04-01' });
  });

  it('keeps status and comment that are not sent but clears the expiry, as the contract says', async () => {
    const made = await create({ fullLink: 'https://example.com/keep', status: 0, comment: 'stay', expirationDate: '2025-03-01' });
    expect((await emu.call('Link/Update', { id: made.id }, 'links')).code).toBe(0);
    expect(await linkOf(made.id)).toMatchObject({ status: '0', comment: 'stay', expirationDate: null });
  });

  it('says 11 without id, 2 for an unknown link and 1 for a bad value', async () => {
    expect((await emu.call('Link/Update', { data: { status: 1 } }, 'links')).code).toBe(11);
    expect((await emu.call('Link/Update', { id: 987_654 }, 'links')).code).toBe(2);
    const made = await create({ fullLink: 'https://example.com/bad' });
    expect(await emu.call('Link/Update', { id: made.id, data: { status: 'on' } }, 'links')).toMatchObject({ code: 1, data: { status: [expect.any(String)] } });
  });
});

describe('Link/Delete', () => {
  it('reports processed and notProcessed ids and forgets the deleted links', async () => {
    const a = await create({ fullLink: 'https://example.com/d1' });
    const b = await create({ fullLink: 'https://example.com/d2' });
    const theirs = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/theirs' } }, 'other')).data as { id: string };
    const env = await emu.call('Link/Delete', { ids: [a.id, b.id, '424242', theirs.id, a.id] }, 'links');
    expect(env).toEqual({ code: 0, data: { processed: [a.id, b.id], notProcessed: ['424242', theirs.id] }, message: '' });
    expect((await get({ id: a.id })).code).toBe(2);
    expect((await get({ code: b.code })).code).toBe(2);
    expect((await emu.call('Link/Get', { id: theirs.id }, 'other')).code).toBe(0);
    const visit = await emu.raw('GET', `/${a.code}`);
    expect(visit.status).toBe(404);
  });

  it('says 11 without ids', async () => {
    expect((await emu.call('Link/Delete', {}, 'links')).code).toBe(11);
  });
});

describe('Link/List', () => {
  const key = 'list-key';
  const made: Array<{ id: string; code: string }> = [];

  beforeAll(async () => {
    // 60 links over 60 days: every third inactive, comments "batch N", alternate hosts.
    for (let i = 0; i < 60; i++) {
      emu.clock.set(TEST_START + i * 86_400_000);
      const env = await emu.call(
        'Link/Create',
        {
          data: {
            fullLink: `https://${i % 2 ? 'b' : 'a'}.example/${String(i).padStart(2, '0')}`,
            status: i % 3 === 0 ? 0 : 1,
            comment: `batch ${i}`,
            ...(i % 4 === 0 ? { expirationDate: `2026-01-${String((i % 28) + 1).padStart(2, '0')}` } : {}),
          },
        },
        key,
      );
      made.push(env.data as { id: string; code: string });
    }
    emu.clock.set(TEST_START);
  });

  const list = async (params: Record<string, unknown>) => {
    const env = await emu.call('Link/List', params, key);
    expect(env.code, env.message).toBe(0);
    return env.data as Page;
  };

  it('pages 25 at a time from page 0 by default, newest first, with the total as a string', async () => {
    const first = await list({});
    expect(first.totalItemCount).toBe('60');
    expect(first.items).toHaveLength(25);
    expect(first.items[0].id).toBe(made[59].id);
    const third = await list({ pagination: { currentPage: 2 } });
    expect(third.items).toHaveLength(10);
    expect((await list({ pagination: { currentPage: 3 } })).items).toEqual([]);
    expect((await list({ pagination: { pageSize: 50 } })).items).toHaveLength(50);
    expect((await list({ pagination: { pageSize: 100 } })).items).toHaveLength(60);
  });

  it('accepts only page sizes 25, 50 and 100 and pages from 0', async () => {
    for (const pageSize of [10, 26, 0, 'x']) {
      expect((await emu.call('Link/List', { pagination: { pageSize } }, key)).code).toBe(1);
    }
    expect((await emu.call('Link/List', { pagination: { currentPage: -1 } }, key)).code).toBe(1);
  });

  it('filters by status, moderator status, creation time and query, alone or combined', async () => {
    expect((await list({ criteria: { status: 0 } })).totalItemCount).toBe('20');
    expect((await list({ criteria: { status: 1 } })).totalItemCount).toBe('40');
    expect((await list({ criteria: { moderatorStatus: 1 } })).totalItemCount).toBe('60');
    expect((await list({ criteria: { moderatorStatus: 0 } })).totalItemCount).toBe('0');
    // Day 10 (2025-01-25) to day 19 (2025-02-03 10:00:00) inclusive.
    const range = await list({ criteria: { createTsFrom: '2025-01-25', createTsTo: '2025-02-03 10:00:00' } });
    expect(range.totalItemCount).toBe('10');
    expect((await list({ criteria: { createTsTo: '2025-02-03 09:59:59' } })).totalItemCount).toBe('19');
    expect((await list({ criteria: { query: 'batch 5' } })).totalItemCount).toBe('11'); // batch 5 and batch 50 to 59
    const combined = await list({ criteria: { status: 0, createTsFrom: '2025-01-25', query: 'batch' }, pagination: { pageSize: 100 } });
    expect(combined.items.map((l) => l.comment).sort()).toEqual(
      Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => i >= 10 && i % 3 === 0)
        .map((i) => `batch ${i}`)
        .sort(),
    );
  });

  it('matches the query against codes too, and takes % and _ literally', async () => {
    const code = made[7].code;
    expect((await list({ criteria: { query: code } })).items.map((l) => l.id)).toContain(made[7].id);
    expect((await list({ criteria: { query: '%' } })).totalItemCount).toBe('0');
    expect((await list({ criteria: { query: 'batch_1' } })).totalItemCount).toBe('0');
  });

  it('sorts by each of the five fields both ways', async () => {
    const all = async (sort: Record<string, string>) => (await list({ sort, pagination: { pageSize: 100 } })).items;
    const check = async (field: keyof LinkJson, compare: (a: LinkJson, b: LinkJson) => number) => {
      const asc = await all({ [field]: 'ASC' });
      expect([...asc].sort(compare).map((l) => l.id)).toEqual(asc.map((l) => l.id));
      const desc = await all({ [field]: 'desc' });
      expect(desc.map((l) => l[field])).toEqual(asc.map((l) => l[field]).reverse());
    };
    const text = (f: keyof LinkJson) => (a: LinkJson, b: LinkJson) =>
      String(a[f] ?? '') < String(b[f] ?? '') ? -1 : String(a[f] ?? '') > String(b[f] ?? '') ? 1 : Number(a.id) - Number(b.id);
    await check('createTs', text('createTs'));
    await check('expirationDate', text('expirationDate'));
    await check('code', text('code'));
    await check('fullLink', text('fullLink'));
    await check('clickCnt', (a, b) => Number(a.clickCnt) - Number(b.clickCnt) || Number(a.id) - Number(b.id));
    expect((await emu.call('Link/List', { sort: { id: 'ASC' } }, key)).code).toBe(1);
    expect((await emu.call('Link/List', { sort: { code: 'UP' } }, key)).code).toBe(1);
  });

  it('sorts by clicks once links have been visited', async () => {
    const popular = made[3];
    for (let i = 0; i < 3; i++) await emu.raw('GET', `/${popular.code}`);
    await emu.raw('GET', `/${made[4].code}`);
    const top = (await list({ sort: { clickCnt: 'DESC' } })).items;
    expect(top[0]).toMatchObject({ id: popular.id, clickCnt: '3' });
    expect(top[1]).toMatchObject({ id: made[4].id, clickCnt: '1' });
  });
});
