// The public npm library mobizon-node 0.3.6, unchanged, against the emulator
// on 127.0.0.1:0: every call its README and example.js show. Configuration
// only, through its documented setConfig(): apiServer is the emulator's URL,
// apiKey one of its keys. It POSTs with axios and qs (ids[0]=, data[...]),
// sends sendSms by GET, and sends `expirationDate: ''` and `from: ''` as its
// README does: the live service reads those as absent, and so must we. With
// `format: 'xml'` it hands back the service's XML as a string.
import { createRequire } from 'node:module';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type Envelope, type TestEmulator } from '../../helpers/emulator.js';

// The library has no types; its calls return the service's envelope as parsed JSON.
type Call = (data?: Record<string, unknown>) => Promise<Envelope>;
const { mobizon } = createRequire(import.meta.url)('mobizon-node') as {
  mobizon: { setConfig(c: { apiServer: string; apiKey: string; format?: string }): void } & Record<string, Call>;
};

const KEY = 'mbn0123456789abcdefghijklmnopqrstuvwxyzA';
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
  mobizon.setConfig({ apiServer: emu.url, apiKey: KEY, format: 'json' });
});
afterAll(() => emu?.close());

describe('mobizon-node 0.3.6 against the emulator', () => {
  let link: { id: string; code: string; shortLink: string };
  let sent: { campaignId: string; messageId: string; status: number };

  it('getBalance (User/GetOwnBalance): the opening balance and its currency', async () => {
    expect(await mobizon.getBalance()).toEqual({ code: 0, data: { balance: '100.0000', currency: 'KZT' }, message: '' });
  });

  it("createShort, as its README writes it (expirationDate: '')", async () => {
    const env = await mobizon.createShort({ data: { fullLink: 'https://mobizon.com.br', status: 1, expirationDate: '', comment: 'Shortened link.' } });
    expect(env).toMatchObject({ code: 0, message: '', data: { id: expect.stringMatching(/^\d+$/), code: expect.any(String), shortLink: expect.stringContaining('/') } });
    link = env.data as typeof link;
  });

  it("sendSms by GET, as its README writes it (from: '')", async () => {
    const env = await mobizon.sendSms({ recipient: '5511941439844', from: '', text: 'SMS sent by Mobizon.' });
    expect(env).toEqual({ code: 0, message: '', data: { campaignId: expect.stringMatching(/^\d+$/), messageId: expect.stringMatching(/^\d+$/), status: 2 } });
    sent = env.data as typeof sent;
  });

  it('getBalance after the send: one segment at 0.01 less', async () => {
    expect(await mobizon.getBalance()).toEqual({ code: 0, data: { balance: '99.9900', currency: 'KZT' }, message: '' });
  });

  it('getSms', async () => {
    const env = await mobizon.getSms({ ids: [sent.messageId, '999999'] });
    expect(env).toMatchObject({ code: 0, data: [{ id: sent.messageId, status: expect.any(String), segNum: '1' }] });
  });

  it("listSms (criteria from: '' is no filter)", async () => {
    const env = await mobizon.listSms({ criteria: { from: '' }, pagination: { currentPage: '0', pageSize: '50' }, sort: { campaignId: 'ASC' } });
    expect(env).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ id: sent.messageId, to: '5511941439844', text: 'SMS sent by Mobizon.', countryA2: null }] } });
  });

  it('getShort', async () => {
    const env = await mobizon.getShort({ code: link.code });
    expect(env).toMatchObject({ code: 0, data: { id: link.id, fullLink: 'https://mobizon.com.br', expirationDate: null, comment: 'Shortened link.' } });
  });

  it('listShort', async () => {
    const env = await mobizon.listShort({ criteria: { status: '1', moderatorStatus: '1' }, pagination: { currentPage: '0', pageSize: '50' }, sort: { clickCnt: 'ASC' } });
    expect(env).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ id: link.id }] } });
  });

  it("updateShort (expirationDate: '' means no expiry)", async () => {
    const env = await mobizon.updateShort({ id: link.id, data: { status: 1, expirationDate: '', comment: 'Updated link.' } });
    expect(env).toEqual({ code: 0, data: true, message: '' });
    expect((await mobizon.getShort({ id: link.id })).data).toMatchObject({ comment: 'Updated link.', expirationDate: null });
  });

  it('getStatsShort', async () => {
    const env = await mobizon.getStatsShort({ ids: [link.id], type: 'monthly', criteria: { dateFrom: '2024-01-01 13:30:00' } });
    expect(env).toMatchObject({ code: 0, data: { totals: { totalClicks0: 0, totalRedirects0: 0 } } });
    expect((env.data as { items: Array<{ param: string }> }).items[0]).toMatchObject({ param: '2024-01', clicks0: 0, redirects0: 0 });
  });

  it('deleteShort', async () => {
    const env = await mobizon.deleteShort({ ids: [link.id, '718'] });
    expect(env).toEqual({ code: 0, message: '', data: { processed: [link.id], notProcessed: ['718'] } });
  });
});

describe('mobizon-node 0.3.6 in XML mode', () => {
  const xml = new XMLParser({ ignoreDeclaration: true, parseTagValue: false, isArray: (name) => name === 'item' });
  const read = (data: unknown) => (xml.parse(data as unknown as string, true) as { response: Record<string, unknown> }).response;
  beforeAll(() => mobizon.setConfig({ apiServer: emu.url, apiKey: KEY, format: 'xml' }));
  afterAll(() => mobizon.setConfig({ apiServer: emu.url, apiKey: KEY, format: 'json' }));

  it('getBalance, sendSms (GET), getSms, listSms, createShort and getShort answer in XML', async () => {
    expect(read(await mobizon.getBalance())).toEqual({ code: '0', data: { balance: expect.stringMatching(/^\d+\.\d{4}$/), currency: 'KZT' }, message: '' });
    const sent = read(await mobizon.sendSms({ recipient: '5511941439844', from: '', text: 'SMS in XML.' }));
    expect(sent).toMatchObject({ code: '0', data: { messageId: expect.stringMatching(/^\d+$/), status: '2' } });
    const messageId = (sent.data as { messageId: string }).messageId;
    expect(read(await mobizon.getSms({ ids: [messageId] }))).toMatchObject({ code: '0', data: { item: [{ id: messageId, segNum: '1' }] } });
    expect(read(await mobizon.listSms({ criteria: { text: 'SMS in XML.' } }))).toMatchObject({ data: { totalItemCount: '1', items: { item: [{ id: messageId }] } } });
    const created = read(await mobizon.createShort({ data: { fullLink: 'https://mobizon.com.br/xml', status: 1, expirationDate: '', comment: 'XML.' } }));
    expect(created).toMatchObject({ code: '0', data: { id: expect.stringMatching(/^\d+$/) } });
    const got = read(await mobizon.getShort({ id: (created.data as { id: string }).id }));
    expect(got).toMatchObject({ code: '0', data: { fullLink: 'https://mobizon.com.br/xml', comment: 'XML.', expirationDate: '' } });
  });
});
