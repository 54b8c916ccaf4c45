import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceQuery, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: ['key-one', 'key-two'] });
});
afterAll(() => emu.close());

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('routing', () => {
  it('answers every spelling of a path, by POST and by GET', async () => {
    const created = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/a' } });
    expect(created.code).toBe(0);
    const id = (created.data as { id: string }).id;
    for (const path of ['Link/Get', 'link/get', 'LINK/GET', 'link/Get/']) {
      const post = await emu.raw('POST', `/service/${path}?${serviceQuery('key-one')}`, `id=${id}`, form);
      expect(JSON.parse(post.text)).toMatchObject({ code: 0, data: { id } });
      const get = await emu.raw('GET', `/service/${path}?${serviceQuery('key-one')}&id=${id}`);
      expect(JSON.parse(get.text)).toMatchObject({ code: 0, data: { id } });
    }
    for (const path of ['Link/GetStats', 'link/getStats', 'link/getstats']) {
      const res = await emu.call(path, { ids: [Number(id)], type: 'daily' });
      expect(res.code).toBe(0);
    }
    for (const path of ['Message/SendSmsMessage', 'message/sendSMSMessage', 'message/sendsmsmessage']) {
      const res = await emu.call(path, { recipient: '+77011234567', text: 'hi' });
      expect(res.code).toBe(0);
    }
  });

  it('says 4 for an unknown module and 5 for an unknown operation', async () => {
    expect(await emu.call('Foo/Create')).toMatchObject({ code: 4, data: null, message: 'unknown module: Foo' });
    expect(await emu.call('Link/Explode')).toMatchObject({ code: 5, data: null, message: 'unknown method: Link/Explode' });
    expect(await emu.call('Link')).toMatchObject({ code: 5 });
    expect(await emu.call('')).toMatchObject({ code: 4 });
  });

  it('answers the envelope with HTTP 200 for API errors, with the message saying what went wrong', async () => {
    const res = await emu.raw('POST', `/service/Link/Create?${serviceQuery('key-one')}`, 'data[fullLink]=not-a-url', form);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const env = JSON.parse(res.text);
    expect(Object.keys(env).sort()).toEqual(['code', 'data', 'message']);
    expect(env.code).toBe(1);
    expect(env.data).toEqual({ fullLink: expect.stringContaining('must be a URL') });
    expect(env.message).toContain('data[fullLink]');
  });

  it('answers success with code 0 and an empty message', async () => {
    const env = await emu.call('Link/List');
    expect(env).toMatchObject({ code: 0, message: '' });
  });
});

describe('query parameters', () => {
  it('needs output=json: anything else or nothing is code 6', async () => {
    for (const q of ['output=xml&api=v1&apiKey=key-one', 'api=v1&apiKey=key-one']) {
      const res = await emu.raw('POST', `/service/Link/List?${q}`, '', form);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).code).toBe(6);
    }
  });

  it('refuses a missing or unknown key with code 8 and data []', async () => {
    for (const q of ['output=json&api=v1', 'output=json&api=v1&apiKey=', 'output=json&api=v1&apiKey=nope', 'output=json&api=v1&apiKey=key-one2']) {
      const env = JSON.parse((await emu.raw('POST', `/service/Link/List?${q}`, '', form)).text);
      expect(env).toEqual({ code: 8, data: [], message: expect.stringMatching(/auth/) });
    }
  });

  it('checks the key before it tells which modules exist', async () => {
    const env = JSON.parse((await emu.raw('POST', '/service/Secret/Thing?output=json&api=v1&apiKey=nope', '', form)).text);
    expect(env.code).toBe(8);
  });

  it('accepts api=v1 and refuses other versions', async () => {
    expect(JSON.parse((await emu.raw('GET', '/service/Link/List?output=json&apiKey=key-one')).text).code).toBe(0);
    expect(JSON.parse((await emu.raw('GET', '/service/Link/List?output=json&api=v2&apiKey=key-one')).text).code).toBe(5);
  });

  it('ignores parameters it does not know, as the live service does', async () => {
    const env = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/x', color: 'red' }, extra: 1 });
    expect(env.code).toBe(0);
  });

  it('answers other HTTP methods on /service/ with 405', async () => {
    const res = await emu.raw('DELETE', `/service/Link/List?${serviceQuery('key-one')}`);
    expect(res.status).toBe(405);
    expect(JSON.parse(res.text).code).toBe(5);
  });
});

describe('live shapes', () => {
  it('sends ids and counts as strings and the send status as a number', async () => {
    const created = await emu.call('Link/Create', { data: { fullLink: 'https://example.com/shape' } });
    const data = created.data as Record<string, unknown>;
    expect(typeof data.id).toBe('string');
    const link = (await emu.call('Link/Get', { id: data.id })).data as Record<string, unknown>;
    expect(link).toMatchObject({ id: data.id, status: '1', moderatorStatus: '1', clickCnt: '0', redirectCnt: '0' });
    const list = (await emu.call('Link/List')).data as Record<string, unknown>;
    expect(typeof list.totalItemCount).toBe('string');
    const sent = (await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'x' })).data as Record<string, unknown>;
    expect(sent).toEqual({ campaignId: expect.stringMatching(/^\d+$/), messageId: expect.stringMatching(/^\d+$/), status: 2 });
  });
});

describe('per-key isolation', () => {
  it("keeps one key's links and messages away from another key", async () => {
    const mine = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/mine', comment: 'isolated' } }, 'key-one')).data as {
      id: string;
      code: string;
    };
    const other = 'key-two';
    expect((await emu.call('Link/Get', { id: mine.id }, other)).code).toBe(2);
    expect((await emu.call('Link/Get', { code: mine.code }, other)).code).toBe(2);
    expect((await emu.call('Link/Update', { id: mine.id, data: { status: 0 } }, other)).code).toBe(2);
    const listed = (await emu.call('Link/List', { criteria: { query: 'isolated' } }, other)).data as { items: unknown[]; totalItemCount: string };
    expect(listed).toEqual({ items: [], totalItemCount: '0' });
    expect((await emu.call('Link/Delete', { ids: [mine.id] }, other)).data).toEqual({ processed: [], notProcessed: [mine.id] });
    const stats = (await emu.call('Link/GetStats', { ids: [mine.id], type: 'minute' }, other, { arrayFormat: 'brackets' })).data as {
      totals: Record<string, number>;
    };
    expect(stats.totals).toEqual({ totalClicks0: 0, totalRedirects0: 0 });

    const sent = (await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'private' }, 'key-one')).data as {
      messageId: string;
      campaignId: string;
    };
    expect((await emu.call('Message/GetSMSStatus', { ids: sent.messageId }, other)).data).toEqual([]);
    expect(((await emu.call('Message/List', { criteria: { text: 'private' } }, other)).data as { items: unknown[] }).items).toEqual([]);
    expect((await emu.call('Link/GetLinks', { campaignId: sent.campaignId }, other)).code).toBe(2);

    // The owner still sees everything.
    expect((await emu.call('Link/Get', { id: mine.id }, 'key-one')).code).toBe(0);
    expect(((await emu.call('Message/GetSMSStatus', { ids: sent.messageId }, 'key-one')).data as unknown[]).length).toBe(1);
  });
});
