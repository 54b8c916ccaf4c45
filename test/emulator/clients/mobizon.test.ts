// The public npm library mobizon 1.0.1, unchanged, against the emulator on
// 127.0.0.1:0: the calls its README shows, and the lower-case ones its own
// tests make. It sends GET with neither `output` nor `api` (the live service
// takes json and v1 then). Its base URL is not a documented setting: the one
// way to point it elsewhere without changing its code is the `testBaseUrl`
// parameter its index.js reads (and takes out) of every call, which its own
// test suite uses; the key is its documented constructor argument. In XML
// mode (`output: 'xml'` in a call) it hands back the body as it came.
import { createRequire } from 'node:module';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

interface ApiError {
  code: number;
  message: string;
  data: unknown;
}
type Method = (params: Record<string, unknown>, done: (error: ApiError | null, data: unknown) => void) => void;
// The library has no types: a proxy of modules, each a proxy of methods.
const mobizonFor = createRequire(import.meta.url)('mobizon') as (apiKey: string) => Record<string, Record<string, Method>>;

const KEY = 'mbz0123456789abcdefghijklmnopqrstuvwxyzA';
let emu: TestEmulator;
let mobizon: Record<string, Record<string, Method>>;
/** One call, as a promise of [error, data]. */
let call: (module: string, method: string, params: Record<string, unknown>) => Promise<[ApiError | null, unknown]>;

beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
  mobizon = mobizonFor(KEY);
  call = (module, method, params) =>
    new Promise((resolve) => mobizon[module][method]({ ...params, testBaseUrl: `${emu.url}/service/` }, (error, data) => resolve([error, data])));
});
afterAll(() => emu?.close());

describe('mobizon 1.0.1 against the emulator', () => {
  it('User.GetOwnBalance, as its README writes it: the opening balance and its currency', async () => {
    expect(await call('User', 'GetOwnBalance', {})).toEqual([null, { balance: '100.0000', currency: 'KZT' }]);
  });

  it('Message.SendSMSMessage, as its README writes it', async () => {
    const [error, data] = await call('Message', 'SendSMSMessage', { recipient: '77011234567', text: 'Success' });
    expect(error).toBeNull();
    expect(data).toEqual({ campaignId: expect.stringMatching(/^\d+$/), messageId: expect.stringMatching(/^\d+$/), status: 2 });
    const [statusError, statuses] = await call('message', 'getsmsstatus', { ids: (data as { messageId: string }).messageId });
    expect(statusError).toBeNull();
    expect(statuses).toEqual([expect.objectContaining({ id: (data as { messageId: string }).messageId, segNum: '1' })]);
    // One segment at the default 0.01, in the lower-case spelling its own tests use.
    expect(await call('user', 'getownbalance', {})).toEqual([null, { balance: '99.9900', currency: 'KZT' }]);
  });

  it('link.create as its own tests call it; a required text sent empty comes back as its error', async () => {
    const [error, data] = await call('link', 'create', { data: { fullLink: 'https://google.com' } });
    expect(error).toBeNull();
    expect(data).toEqual({ id: expect.stringMatching(/^\d+$/), code: expect.any(String), shortLink: expect.any(String) });
    const [refused] = await call('message', 'sendSMSMessage', { recipient: '+77770000000', text: '' });
    expect(refused).toMatchObject({ code: 1, data: { text: [expect.any(String)] } });
  });
});

describe('mobizon 1.0.1 in XML mode', () => {
  const xml = new XMLParser({ ignoreDeclaration: true, parseTagValue: false, isArray: (name) => name === 'item' });
  const read = (data: unknown) => (xml.parse(data as string, true) as { response: Record<string, unknown> }).response;

  it("gets the service's XML as its data, success and refusal alike", async () => {
    const [error, data] = await call('User', 'GetOwnBalance', { output: 'xml' });
    expect(error).toBeNull();
    expect(data).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<response>/);
    expect(read(data)).toEqual({ code: '0', data: { balance: expect.stringMatching(/^\d+\.\d{4}$/), currency: 'KZT' }, message: '' });
    const [, sent] = await call('message', 'sendsmsmessage', { output: 'xml', recipient: '77011234567', text: 'in xml' });
    expect(read(sent)).toMatchObject({ code: '0', data: { messageId: expect.stringMatching(/^\d+$/), status: '2' } });
    const [, refused] = await call('link', 'create', { output: 'xml', data: { fullLink: 'not a link' } });
    expect(read(refused)).toMatchObject({ code: '1', data: { fullLink: { item: [expect.stringContaining('URL')] } } });
  });
});
