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

  it('says 4 for an unknown module and 5 for an unknown operation, naming it and what there is, as live', async () => {
    expect(await emu.call('Foo/Create')).toEqual({
      code: 4,
      data: null,
      message:
        "Module Foo not found. Check the spelling and the documentation: this emulator answers Link, Message, Campaign/GetLinks, User/GetOwnBalance; smslink's docs/emulator.md lists what this emulator answers.",
    });
    expect(await emu.call('Link/Explode')).toEqual({
      code: 5,
      data: null,
      message: 'Method Explode not found in module Link. Check the spelling and the documentation: Link has Create, Delete, Get, GetLinks, GetStats, List, Update.',
    });
    expect(await emu.call('link')).toMatchObject({ code: 5, message: expect.stringMatching(/^No method given for module Link\./) });
    expect(await emu.call('')).toMatchObject({ code: 4 });
  });

  it('answers the envelope with HTTP 200 for API errors, with the message saying what went wrong', async () => {
    const res = await emu.raw('POST', `/service/Link/Create?${serviceQuery('key-one')}`, 'data[fullLink]=not-a-url', form);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const env = JSON.parse(res.text);
    expect(Object.keys(env).sort()).toEqual(['code', 'data', 'message']);
    expect(env.code).toBe(1);
    expect(env.data).toEqual({ fullLink: [expect.stringContaining('must be a URL')] });
    expect(env.message).toContain('data[fullLink]');
  });

  it('answers success with code 0 and an empty message', async () => {
    const env = await emu.call('Link/List');
    expect(env).toMatchObject({ code: 0, message: '' });
  });
});

describe('query parameters', () => {
  it('takes output=json when output is absent or empty, and refuses formats other than json and xml with code 6, in JSON', async () => {
    for (const q of ['apiKey=key-one', 'api=v1&apiKey=key-one', 'output=&apiKey=key-one', 'output=JSON&apiKey=key-one']) {
      const res = await emu.raw('GET', `/service/Link/List?${q}`);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text), q).toMatchObject({ code: 0, data: { items: expect.any(Array) } });
    }
    for (const q of ['output=yaml&api=v1&apiKey=key-one', 'output=xml2&apiKey=key-one', 'output[]=json&apiKey=key-one', 'output[]=xml&apiKey=key-one']) {
      const res = await emu.raw('POST', `/service/Link/List?${q}`, '', form);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text), q).toMatchObject({ code: 6, message: expect.stringContaining('unsupported output format') });
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

  it('accepts api=v1, absent or empty, and refuses other versions', async () => {
    expect(JSON.parse((await emu.raw('GET', '/service/Link/List?output=json&apiKey=key-one')).text).code).toBe(0);
    expect(JSON.parse((await emu.raw('GET', '/service/Link/List?output=json&api=&apiKey=key-one')).text).code).toBe(0);
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

describe('the live dialect: an empty optional parameter is an absent one', () => {
  const post = async (path: string, body: string) => JSON.parse((await emu.raw('POST', `/service/${path}?${serviceQuery('key-one')}`, body, form)).text);

  it('creates and updates a link with data[expirationDate]= as one that never expires', async () => {
    const created = await post('Link/Create', 'data[fullLink]=https%3A%2F%2Fexample.com%2Fempty&data[status]=1&data[expirationDate]=&data[comment]=c');
    expect(created).toMatchObject({ code: 0, data: { id: expect.stringMatching(/^\d+$/) } });
    const id = created.data.id as string;
    expect((await emu.call('Link/Get', { id })).data).toMatchObject({ expirationDate: null, comment: 'c' });
    expect((await emu.call('Link/Update', { id, data: { expirationDate: '2030-01-31' } })).code).toBe(0);
    expect((await emu.call('Link/Get', { id })).data).toMatchObject({ expirationDate: '2030-01-31' });
    expect(await post('Link/Update', `id=${id}&data[status]=1&data[expirationDate]=&data[comment]=again`)).toEqual({ code: 0, data: true, message: '' });
    expect((await emu.call('Link/Get', { id })).data).toMatchObject({ expirationDate: null, comment: 'again' });
  });

  it('sends with from= from the default sender and params[name]= as no campaign name', async () => {
    const sent = await post('Message/SendSmsMessage', 'recipient=77011234567&from=&text=default+sender&params[name]=');
    expect(sent).toMatchObject({ code: 0, data: { messageId: expect.stringMatching(/^\d+$/), status: 2 } });
    const listed = (await emu.call('Message/List', { criteria: { text: 'default sender' } })).data as { items: Array<{ from: string }> };
    expect(listed.items.map((m) => m.from)).toEqual(['SMSLINK']);
  });

  it('reads an empty criterion or page as absent, not as a filter that matches nothing', async () => {
    const all = (await emu.call('Link/List')).data as { totalItemCount: string };
    const empty = await post('Link/List', 'criteria[status]=&criteria[query]=&pagination[pageSize]=&pagination[currentPage]=');
    expect(empty).toMatchObject({ code: 0, data: { totalItemCount: all.totalItemCount } });
  });

  it('still refuses a required parameter sent empty, naming it', async () => {
    for (const [path, body, key] of [
      ['Link/Create', 'data[fullLink]=&data[comment]=x', 'fullLink'],
      ['Message/SendSmsMessage', 'recipient=77011234567&text=', 'text'],
      ['Message/SendSmsMessage', 'recipient=&text=hi', 'recipient'],
    ]) {
      const env = await post(path, body);
      expect(env, body).toMatchObject({ code: 1, data: { [key]: [expect.any(String)] } });
    }
    // A choice sent empty is no choice made.
    expect(await post('Link/Get', 'id=')).toMatchObject({ code: 12 });
  });
});

describe('the live dialect: Message/List', () => {
  it('sorts by id as well as by the contract fields', async () => {
    const ids: string[] = [];
    for (const text of ['sort one', 'sort two', 'sort three']) {
      ids.push(((await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text })).data as { messageId: string }).messageId);
    }
    const order = async (dir: string) =>
      ((await emu.call('Message/List', { criteria: { to: '77011234567' }, sort: { id: dir }, pagination: { pageSize: 100 } })).data as { items: Array<{ id: string; text: string }> }).items
        .filter((m) => m.text.startsWith('sort '))
        .map((m) => m.id);
    expect(await order('ASC')).toEqual(ids);
    expect(await order('DESC')).toEqual([...ids].reverse());
    expect((await emu.call('Message/List', { sort: { uuid: 'ASC' } })).code).toBe(1);
  });

  it('carries countryA2 and operatorName on every item, null unless withNumberInfo=1, and the price with four places', async () => {
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'shape' });
    const plain = ((await emu.call('Message/List', { criteria: { text: 'shape' } })).data as { items: Array<Record<string, unknown>> }).items[0];
    expect(plain).toMatchObject({ countryA2: null, operatorName: null, segUserBuy: expect.stringMatching(/^\d+\.\d{4}$/) });
    const info = ((await emu.call('Message/List', { withNumberInfo: 1, criteria: { text: 'shape' } })).data as { items: Array<Record<string, unknown>> }).items[0];
    expect(info).toMatchObject({ countryA2: 'KZ', operatorName: expect.any(String) });
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
