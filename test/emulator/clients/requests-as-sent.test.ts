// Public clients of the service that are not npm packages, each request made
// as that client makes it (method, path case, query, headers, body), over a
// real socket: the official PHP library in both formats (XML read by PHP's
// SimpleXML), the Java client (okhttp), the .NET client and the Python client
// (httpx, JSON). docs/emulator-wire.md "Public clients" says how to point each.
import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type Envelope, type RawAnswer, type TestEmulator } from '../../helpers/emulator.js';
import { readWithSimpleXml } from '../../helpers/php.js';

// Keys as the live service hands them out: 40 lower-case letters and digits (the Java client checks).
const KEY = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0';
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY] });
});
afterAll(() => emu?.close());

const json = (res: RawAnswer) => JSON.parse(res.text) as Envelope;

/** Python's json.dumps with its defaults: `, ` and `: ` between items, non-ASCII as \\u escapes. */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${pythonDumps(k)}: ${pythonDumps(v)}`).join(', ')}}`;
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What httpx sends for `client.post(url, params=..., json=payload)`: 0.27 writes json.dumps with its defaults, 0.28 compact and UTF-8. */
const httpx = {
  old: (payload: unknown) => ({ body: pythonDumps(payload), type: 'application/json' }),
  new: (payload: unknown) => ({ body: JSON.stringify(payload), type: 'application/json' }),
};
const httpxHeaders = (type: string) => ({ 'content-type': type, accept: '*/*', 'accept-encoding': 'gzip, deflate', 'user-agent': 'python-httpx/0.28.1' });

async function sendJson(path: string, body: string | undefined, headers: Record<string, string>): Promise<Envelope> {
  const res = await emu.raw('POST', `/service/${path}?output=json&api=v1&apiKey=${KEY}`, body, headers);
  expect(res.status, res.text.slice(0, 200)).toBe(200);
  return json(res);
}

describe('the official PHP library (mobizon-php), pointed at serve with apiServer and forceHTTP', () => {
  /**
   * MobizonApi::call as it sends: the module and method lower-cased, the
   * query api, apiKey, output (http_build_query), POST with the parameters
   * as http_build_query writes them when there are any, else GET; curl's
   * Content-type header either way.
   */
  const call = (format: 'xml' | 'json', provider: string, method: string, post: Record<string, unknown> = {}) => {
    const path = `/service/${provider.toLowerCase()}/${method.toLowerCase()}?${qs.stringify({ api: 'v1', apiKey: KEY, output: format })}`;
    const headers = { 'user-agent': 'Mobizon-PHP/1.0.0', accept: '*/*', 'content-type': 'application/x-www-form-urlencoded' };
    const body = qs.stringify(post, { format: 'RFC1738' });
    return body ? emu.raw('POST', path, body, headers) : emu.raw('GET', path, undefined, headers);
  };

  it('runs its examples in XML mode: each answer loads with simplexml_load_string, and call() reports success', async () => {
    // docs/examples/balance.php, send_message.php, generate_messages_report_csv.php, as the library sends them.
    const balance = await call('xml', 'User', 'GetOwnBalance');
    const sent = await call('xml', 'message', 'sendSMSMessage', { recipient: '77770000000', text: 'Test sms message', from: 'TEST' });
    const [balanceRead, sentRead] = await readWithSimpleXml([balance.text, sent.text]);
    expect(balanceRead).toEqual({ loaded: true, success: true, code: '0', message: '', data: { balance: '100.0000', currency: 'KZT' } });
    expect(sentRead).toMatchObject({ loaded: true, success: true, data: { campaignId: expect.stringMatching(/^\d+$/), messageId: expect.stringMatching(/^\d+$/), status: '2' } });
    const messageId = (sentRead as unknown as { data: { messageId: string } }).data.messageId;
    const statuses = await call('xml', 'message', 'getSMSStatus', { ids: [messageId, '13394', '11345', '4393'] });
    // The report example's criteria names are not the documented ones: unknown parameters are ignored, as live.
    const report = await call('xml', 'message', 'list', {
      'criteria[campaignCreateDateFrom]': '2025-01-01 00:00:00',
      'criteria[campaignCreateDateTo]': '2025-12-31 23:59:59',
      'sort[id]': 'DESC',
      'pagination[pageSize]': 100,
      'pagination[currentPage]': 0,
    });
    const alphanames = await call('xml', 'alphaname', 'list');
    const [statusRead, reportRead, alphanameRead] = await readWithSimpleXml([statuses.text, report.text, alphanames.text]);
    expect(statusRead).toMatchObject({ success: true, data: [{ id: messageId, status: 'NEW', segNum: '1' }] });
    expect(reportRead).toMatchObject({ success: true, data: { totalItemCount: '1', items: [{ id: messageId, text: 'Test sms message', to: '77770000000' }] } });
    // Alphaname/List exists on the live service; this emulator says so, and call() reports the failure.
    expect(alphanameRead).toMatchObject({ loaded: true, success: false, code: '9', message: expect.stringContaining('Alphaname/List exists on the live service') });
    for (const res of [balance, sent, statuses, report, alphanames]) expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
  });

  it('reads a refusal in XML as the library reports it: [code] message, and the field texts under data', async () => {
    const refused = await call('xml', 'link', 'create', { data: { fullLink: 'not a url', comment: 'x'.repeat(256) } });
    const [read] = await readWithSimpleXml([refused.text]);
    expect(read).toEqual({
      loaded: true,
      success: false,
      code: '1',
      message: 'One or more parameters contain incorrect data (data[fullLink], data[comment]): check the errors in data and try again.',
      data: { fullLink: [expect.stringContaining('must be a URL')], comment: [expect.stringContaining('255')] },
    });
  });

  it('runs in JSON mode, its default, as before', async () => {
    const created = json(await call('json', 'link', 'create', { data: { fullLink: 'https://example.com/php', comment: 'php' } }));
    expect(created).toMatchObject({ code: 0, data: { id: expect.stringMatching(/^\d+$/) } });
    const got = json(await call('json', 'link', 'get', { id: (created.data as { id: string }).id }));
    expect(got).toMatchObject({ code: 0, data: { fullLink: 'https://example.com/php', comment: 'php' } });
  });
});

describe('the Java client (ua.mobizon.MobizonApi, okhttp)', () => {
  /** Its sendAndGetAPIResponse: POST to a lower-case path, query output, api, apiKey; a form body (okhttp encodes brackets). */
  const post = (path: string, fields: Array<[string, string]>, format = 'json') => {
    const body = fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache', 'user-agent': 'okhttp/3.14.9', 'accept-encoding': 'gzip' };
    return emu.raw('POST', `/${path}?output=${format}&api=v1&apiKey=${KEY}`, body, headers);
  };

  it('getSMSMessageById and getSMSMessagesByCampaignId find one message and one campaign’s, by criteria[id] and criteria[campaignId]', async () => {
    const sent: Array<{ campaignId: string; messageId: string }> = [];
    for (const text of ['java one', 'java two']) {
      sent.push(json(await post('service/message/sendsmsmessage', [['text', text], ['recipient', '77011234567'], ['params[mclass]', '1'], ['params[validity]', '1440']])).data as (typeof sent)[0]);
    }
    const byId = json(await post('service/message/list', [['criteria[id]', sent[1].messageId], ['withNumberInfo', '1']]));
    expect(byId).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ id: sent[1].messageId, text: 'java two', countryA2: 'KZ' }] } });
    const byCampaign = json(await post('service/message/list', [['criteria[campaignId]', sent[0].campaignId], ['withNumberInfo', '1']]));
    expect(byCampaign).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ id: sent[0].messageId, text: 'java one' }] } });
    // No id of this account: nothing, rather than every message.
    expect(json(await post('service/message/list', [['criteria[id]', '987654']]))).toMatchObject({ data: { totalItemCount: '0', items: [] } });
  });

  it('getCampaignLinks (campaign/getlinks) answers as Link/GetLinks; the campaign calls it does not model say so with code 9', async () => {
    const sent = json(await post('service/message/sendsmsmessage', [['text', 'see https://example.com/java'], ['recipient', '77011234567'], ['params[shortenLinks]', '1']])).data as { campaignId: string };
    const links = json(await post('service/campaign/getlinks', [['campaignId', sent.campaignId]]));
    expect(links).toEqual(json(await post('service/link/getlinks', [['campaignId', sent.campaignId]])));
    expect(links).toMatchObject({ code: 0, data: [{ fullLink: 'https://example.com/java', clickCnt: '0', redirectCnt: '0' }] });
    expect(json(await post('service/campaign/getlinks', [['campaignId', '987654']]))).toMatchObject({ code: 2, data: null });
    for (const [path, name] of [
      ['service/campaign/create', 'Campaign/Create'],
      ['service/campaign/addrecipients', 'Campaign/AddRecipients'],
      ['service/campaign/getinfo', 'Campaign/GetInfo'],
      ['service/campaign/send', 'Campaign/Send'],
      ['service/taskqueue/getstatus', 'TaskQueue/GetStatus'],
    ]) {
      expect(json(await post(path, [['id', '1']])), path).toEqual({
        code: 9,
        data: null,
        message: expect.stringMatching(new RegExp(`^${name} exists on the live service; this emulator does not model it`)),
      });
    }
  });

  it('in XML mode gets XML', async () => {
    const res = await post('service/user/getownbalance', [], 'xml');
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.text).toMatch(/<response><code>0<\/code><data><balance>\d+\.\d{4}<\/balance><currency>KZT<\/currency><\/data><message\/><\/response>/);
  });
});

describe('the .NET client (Mobizon.Net, HttpClient)', () => {
  /** FormUrlEncodedContent: spaces as +, brackets encoded; the module and method as it spells them. */
  const post = (module: string, method: string, fields: Record<string, string>) =>
    emu.raw('POST', `/service/${module}/${method}?output=json&api=v1&apiKey=${KEY}`, new URLSearchParams(fields).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });

  it('sends, reads status, lists by status code and gets link lists with the names it uses', async () => {
    const sent = json(await post('Message', 'SendSmsMessage', { recipient: '77011234567', text: 'dotnet text', 'params[validity]': '60' }));
    expect(sent).toMatchObject({ code: 0 });
    const { messageId } = sent.data as { messageId: string };
    expect(json(await post('Message', 'GetSMSStatus', { 'ids[0]': messageId }))).toMatchObject({ code: 0, data: [{ id: messageId }] });
    // It sends criteria[status] as the status code (NEW, DELIVRD ...).
    expect(json(await post('Message', 'List', { 'criteria[status]': 'NEW', 'criteria[text]': 'dotnet text' }))).toMatchObject({ data: { totalItemCount: '1' } });
    expect(json(await post('link', 'getlinks', { campaignId: (sent.data as { campaignId: string }).campaignId }))).toEqual({ code: 0, data: [], message: '' });
    for (const [module, method] of [
      ['Campaign', 'List'],
      ['contactgroup', 'list'],
      ['contactcard', 'getgroups'],
      ['numberstoplist', 'create'],
      ['user', 'getownbalance'],
    ]) {
      const env = json(await post(module, method, {}));
      expect(env.code, `${module}/${method}`).toBe(module === 'user' ? 0 : 9);
    }
  });
});

describe('the Python client (mobizon_client, httpx json=)', () => {
  it('sends a message, reads its status and the balance, in both of httpx’s JSON encodings', async () => {
    for (const encode of [httpx.old, httpx.new]) {
      // send_message: {"recipient", "text", "from": null}; from None is no sender given.
      const send1 = encode({ recipient: '77074004737', text: 'Тест', from: null });
      const sent = await sendJson('Message/SendSmsMessage', send1.body, httpxHeaders(send1.type));
      expect(sent).toEqual({ code: 0, message: '', data: { campaignId: expect.stringMatching(/^\d+$/), messageId: expect.stringMatching(/^\d+$/), status: 2 } });
      const { messageId } = sent.data as { messageId: string };
      const status1 = encode({ ids: [messageId] });
      expect(await sendJson('Message/GetSMSStatus', status1.body, httpxHeaders(status1.type))).toMatchObject({ code: 0, data: [{ id: messageId, segNum: '1' }] });
      // get_balance: a POST with no body at all.
      expect(await sendJson('User/GetOwnBalance', undefined, { accept: '*/*', 'content-length': '0' })).toMatchObject({ code: 0, data: { currency: 'KZT' } });
      const listed = await emu.call('Message/List', { criteria: { text: 'Тест' } }, KEY);
      expect((listed.data as { items: Array<{ id: string; from: string }> }).items.find((m) => m.id === messageId)).toMatchObject({ from: 'SMSLINK' });
    }
  });
});
