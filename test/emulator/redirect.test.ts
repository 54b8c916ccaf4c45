import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  // Almaty is UTC+5 all year: the end of a day there is 19:00 UTC.
  emu = await startTestEmulator({ tz: 'Asia/Almaty', blockPattern: '^https://evil\\.' });
});
afterAll(() => emu.close());

async function create(data: Record<string, unknown>) {
  const env = await emu.call('Link/Create', { data });
  expect(env.code, env.message).toBe(0);
  return env.data as { id: string; code: string; shortLink: string };
}
const counts = async (id: string) => {
  const link = (await emu.call('Link/Get', { id })).data as { clickCnt: string; redirectCnt: string };
  return [Number(link.clickCnt), Number(link.redirectCnt)];
};

describe('short links', () => {
  it('redirect GET and HEAD with 302 to the full link and count clicks and redirects', async () => {
    const link = await create({ fullLink: 'https://example.com/landing?utm=sms' });
    const res = await emu.raw('GET', `/${link.code}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://example.com/landing?utm=sms');
    const head = await emu.raw('HEAD', `/${link.code}`);
    expect(head.status).toBe(302);
    expect(await counts(link.id)).toEqual([2, 2]);
  });

  it('follows the shortLink it handed out', async () => {
    const link = await create({ fullLink: 'https://example.com/follow' });
    const res = await fetch(link.shortLink, { redirect: 'manual' });
    expect(res.status).toBe(302);
  });

  it('sends www. links to http:// and makes unicode addresses ASCII', async () => {
    const www = await create({ fullLink: 'www.example.com/page' });
    expect((await emu.raw('GET', `/${www.code}`)).headers.location).toBe('http://www.example.com/page');
    const idn = await create({ fullLink: 'https://пример.рф/путь?q=слово' });
    const location = (await emu.raw('GET', `/${idn.code}`)).headers.location as string;
    expect(location).toMatch(/^[\x21-\x7e]+$/);
    expect(location).toContain('xn--');
  });

  it('answers 404 with a page saying the link is inactive, counting the click but not a redirect', async () => {
    const link = await create({ fullLink: 'https://example.com/off', status: 0 });
    const res = await emu.raw('GET', `/${link.code}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/switched off/);
    expect(await counts(link.id)).toEqual([1, 0]);
  });

  it('answers 404 for a blocked link, with the moderator comment', async () => {
    const link = await create({ fullLink: 'https://evil.example/login' });
    const res = await emu.raw('GET', `/${link.code}`);
    expect(res.status).toBe(404);
    expect(res.text).toMatch(/blocked by the moderator/);
  });

  it('answers 404 for a code nobody has, and does not mistake other paths for codes', async () => {
    expect((await emu.raw('GET', '/zzzzzz')).status).toBe(404);
    expect((await emu.raw('GET', '/favicon.ico')).status).toBe(404);
    expect((await emu.raw('GET', '/a/b')).status).toBe(404);
    expect((await emu.raw('POST', '/abcd')).status).toBe(405);
    expect((await emu.raw('GET', '/')).status).toBe(200);
  });

  it('works until the end of the expiration day in the account time zone, then answers 410', async () => {
    emu.clock.set(Date.UTC(2025, 0, 15, 12, 0, 0));
    const link = await create({ fullLink: 'https://example.com/sale', expirationDate: '2025-01-15' });
    emu.clock.set(Date.UTC(2025, 0, 15, 18, 59, 59));
    expect((await emu.raw('GET', `/${link.code}`)).status).toBe(302);
    emu.clock.set(Date.UTC(2025, 0, 15, 19, 0, 0));
    const res = await emu.raw('GET', `/${link.code}`);
    expect(res.status).toBe(410);
    expect(res.text).toMatch(/expired at the end of 2025-01-15/);
    expect(await counts(link.id)).toEqual([2, 1]);
    // Update without a date makes it valid indefinitely again.
    await emu.call('Link/Update', { id: link.id });
    expect((await emu.raw('GET', `/${link.code}`)).status).toBe(302);
  });
});
