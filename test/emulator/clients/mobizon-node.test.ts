// The public npm library mobizon-node 0.3.6, unchanged, against the emulator
// on 127.0.0.1:0: every call its README and example.js show. Configuration
// only, through its documented setConfig(): apiServer is the emulator's URL,
// apiKey one of its keys. It POSTs with axios and qs (ids[0]=, data[...]),
// sends sendSms by GET, and sends `expirationDate: ''` and `from: ''` as its
// README does: the live service reads those as absent, and so must we.
import { createRequire } from 'node:module';
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

  it('getBalance (User/GetOwnBalance) is outside the contract: a clean code 4 envelope', async () => {
    expect(await mobizon.getBalance()).toEqual({ code: 4, data: null, message: 'unknown module: user' });
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
