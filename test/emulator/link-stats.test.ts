import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

interface Stats {
  items: Array<Record<string, string | number>>;
  totals: Record<string, number>;
}

let emu: TestEmulator;
let almaty: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  almaty = await startTestEmulator({ tz: 'Asia/Almaty' });
});
afterAll(async () => {
  await emu.close();
  await almaty.close();
});

const stats = async (params: Record<string, unknown>, on = emu) => {
  const env = await on.call('Link/GetStats', params, undefined, { arrayFormat: 'brackets' });
  expect(env.code, env.message).toBe(0);
  return env.data as Stats;
};
const create = async (on = emu) => ((await on.call('Link/Create', { data: { fullLink: 'https://example.com/s' } })).data as { id: string; code: string });
const visitAt = async (on: TestEmulator, code: string, iso: string) => {
  on.clock.set(Date.parse(iso));
  await on.raw('GET', `/${code}`);
};

describe('Link/GetStats rules', () => {
  it('refuses more than 5 ids and unknown types with code 12', async () => {
    const { id } = await create();
    expect((await emu.call('Link/GetStats', { ids: [id, id, id, id, id, id], type: 'daily' })).code).toBe(12);
    expect((await emu.call('Link/GetStats', { ids: [id], type: 'weekly' })).code).toBe(12);
    expect((await emu.call('Link/GetStats', { ids: [id] })).code).toBe(11);
    expect((await emu.call('Link/GetStats', { type: 'daily' })).code).toBe(11);
    expect((await emu.call('Link/GetStats', { ids: [id, id, id, id, id], type: 'daily' })).code).toBe(0);
  });

  it('refuses a malformed date or an end before the start with code 1', async () => {
    const { id } = await create();
    expect((await emu.call('Link/GetStats', { ids: [id], type: 'daily', criteria: { dateFrom: '2025-01-01' } })).code).toBe(1);
    const env = await emu.call('Link/GetStats', { ids: [id], type: 'daily', criteria: { dateFrom: '2025-01-02 00:00:00', dateTo: '2025-01-01 00:00:00' } });
    expect(env).toMatchObject({ code: 1, data: { dateTo: [expect.any(String)] } });
  });
});

describe('Link/GetStats intervals at each maximum', () => {
  // Now is 2025-01-15 10:00:00 UTC.
  const table = [
    // type, rows, rule 1 (no dates): first/last; rule 2 (from 2024-01-01 00:00:00): last; rule 3 (to 2024-12-31 23:59:59): first
    { type: 'minute', rows: 180, now: ['2025-01-15 07:01', '2025-01-15 10:00'], fromLast: '2024-01-01 02:59', toFirst: '2024-12-31 21:00' },
    { type: 'hourly', rows: 168, now: ['2025-01-08 11:00', '2025-01-15 10:00'], fromLast: '2024-01-07 23:00', toFirst: '2024-12-25 00:00' },
    { type: 'daily', rows: 90, now: ['2024-10-18', '2025-01-15'], fromLast: '2024-03-30', toFirst: '2024-10-03' },
    { type: 'monthly', rows: 36, now: ['2022-02', '2025-01'], fromLast: '2026-12', toFirst: '2022-01' },
  ] as const;

  for (const row of table) {
    it(`${row.type}: the last maximum interval, from dateFrom, and up to dateTo`, async () => {
      const { id } = await create();
      emu.clock.set(Date.UTC(2025, 0, 15, 10, 0, 0));
      const labels = (s: Stats) => s.items.map((r) => String(r.param));

      const latest = labels(await stats({ ids: [id], type: row.type }));
      expect(latest).toHaveLength(row.rows);
      expect([latest[0], latest.at(-1)]).toEqual(row.now);

      const fromOnly = labels(await stats({ ids: [id], type: row.type, criteria: { dateFrom: '2024-01-01 00:00:00' } }));
      expect(fromOnly).toHaveLength(row.rows);
      expect([fromOnly[0].startsWith('2024-01'), fromOnly.at(-1)]).toEqual([true, row.fromLast]);

      const tooLong = labels(await stats({ ids: [id], type: row.type, criteria: { dateFrom: '2024-01-01 00:00:00', dateTo: '2030-01-01 00:00:00' } }));
      expect(tooLong).toEqual(fromOnly);

      const toOnly = labels(await stats({ ids: [id], type: row.type, criteria: { dateTo: '2024-12-31 23:59:59' } }));
      expect(toOnly).toHaveLength(row.rows);
      expect([toOnly[0], toOnly.at(-1)?.startsWith('2024-12')]).toEqual([row.toFirst, true]);
    });
  }

  it('uses exactly the interval asked for when it is within the maximum', async () => {
    const { id } = await create();
    const s = await stats({ ids: [id], type: 'daily', criteria: { dateFrom: '2024-03-01 00:00:00', dateTo: '2024-03-10 23:59:59' } });
    expect(s.items.map((r) => r.param)).toEqual(Array.from({ length: 10 }, (_, i) => `2024-03-${String(i + 1).padStart(2, '0')}`));
  });
});

describe('Link/GetStats counts', () => {
  it('counts clicks and redirects per period and per link position, in the live shape', async () => {
    const a = await create();
    const b = await create();
    await emu.call('Link/Update', { id: b.id, data: { status: 0 } });
    await visitAt(emu, a.code, '2025-03-02T08:00:00Z');
    await visitAt(emu, a.code, '2025-03-02T23:59:59Z');
    await visitAt(emu, b.code, '2025-03-02T12:00:00Z');
    await visitAt(emu, a.code, '2025-03-04T00:00:00Z');
    const s = await stats({ ids: [a.id, b.id], type: 'daily', criteria: { dateFrom: '2025-03-01 00:00:00', dateTo: '2025-03-04 23:59:59' } });
    expect(s.items).toEqual([
      { param: '2025-03-01', clicks0: 0, redirects0: 0, clicks1: 0, redirects1: 0 },
      { param: '2025-03-02', clicks0: '2', redirects0: '2', clicks1: '1', redirects1: 0 },
      { param: '2025-03-03', clicks0: 0, redirects0: 0, clicks1: 0, redirects1: 0 },
      { param: '2025-03-04', clicks0: '1', redirects0: '1', clicks1: 0, redirects1: 0 },
    ]);
    expect(s.totals).toEqual({ totalClicks0: 3, totalRedirects0: 3, totalClicks1: 1, totalRedirects1: 0 });

    const monthly = await stats({ ids: [a.id], type: 'monthly', criteria: { dateFrom: '2025-03-01 00:00:00' } });
    expect(monthly.items[0]).toEqual({ param: '2025-03', clicks0: '3', redirects0: '3' });
    const minute = await stats({ ids: [a.id], type: 'minute', criteria: { dateFrom: '2025-03-02 23:58:00', dateTo: '2025-03-03 00:00:59' } });
    expect(minute.items).toEqual([
      { param: '2025-03-02 23:58', clicks0: 0, redirects0: 0 },
      { param: '2025-03-02 23:59', clicks0: '1', redirects0: '1' },
      { param: '2025-03-03 00:00', clicks0: 0, redirects0: 0 },
    ]);
  });

  it('puts clicks in the periods of the account time zone', async () => {
    const link = await create(almaty);
    // 20:30 UTC is 01:30 the next day in Almaty (UTC+5).
    await visitAt(almaty, link.code, '2025-01-15T20:30:00Z');
    const s = await stats({ ids: [link.id], type: 'daily', criteria: { dateFrom: '2025-01-15 00:00:00', dateTo: '2025-01-16 23:59:59' } }, almaty);
    expect(s.items).toEqual([
      { param: '2025-01-15', clicks0: 0, redirects0: 0 },
      { param: '2025-01-16', clicks0: '1', redirects0: '1' },
    ]);
    const hourly = await stats({ ids: [link.id], type: 'hourly', criteria: { dateFrom: '2025-01-16 01:00:00', dateTo: '2025-01-16 01:59:59' } }, almaty);
    expect(hourly.items).toEqual([{ param: '2025-01-16 01:00', clicks0: '1', redirects0: '1' }]);
  });
});
