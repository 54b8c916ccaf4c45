// Request bodies by their Content-Type, over a real socket: JSON objects read
// as forms, multipart as the .NET client writes it. A body whose bytes are not
// what its Content-Type says is refused with code 1 saying what was expected;
// the form's limits hold for every kind; no body, however made, gets a 5xx.
// (The Python client's JSON requests: clients/requests-as-sent.test.ts.)
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/emulator/index.js';
import { MAX_PARAMS } from '../../src/emulator/service/wire.js';
import { startTestEmulator, type Envelope, type TestEmulator } from '../helpers/emulator.js';

const KEY = 'bodies-key';
let emu: TestEmulator;
const errors: string[] = [];
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: [KEY], log: (line) => errors.push(line) });
});
afterAll(() => emu?.close());

const query = `output=json&api=v1&apiKey=${KEY}`;
async function send(path: string, body: string | Buffer | undefined, headers: Record<string, string>, method = 'POST'): Promise<Envelope> {
  const res = await emu.raw(method, `/service/${path}?${query}`, body, headers);
  expect(res.status, res.text.slice(0, 200)).toBe(200);
  return JSON.parse(res.text) as Envelope;
}

/** A multipart body as .NET's MultipartFormDataContent writes string parts: a quoted boundary, a text/plain type per part, names unquoted. */
function dotnetMultipart(fields: Array<[string, string]>, file?: { name: string; bytes: Buffer }): { body: Buffer; type: string } {
  const boundary = 'a3f1c2e0-6b1d-4c4e-9d3b-2f6e8c1a7b90';
  const parts: Buffer[] = fields.map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name=${name}\r\n\r\n${value}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: form-data; name=${file.name}; filename=photo; filename*=utf-8''photo\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary="${boundary}"` };
}

describe('JSON bodies', () => {
  it('reads nested objects as bracket names and arrays as lists, for every operation', async () => {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const created = await send('Link/Create', JSON.stringify({ data: { fullLink: 'https://example.com/json', status: 0, comment: 'from json', expirationDate: '' } }), json);
    expect(created).toMatchObject({ code: 0 });
    const { id } = created.data as { id: string };
    expect((await send('Link/Get', JSON.stringify({ id: Number(id) }), json)).data).toMatchObject({ status: '0', comment: 'from json', expirationDate: null });
    expect(await send('Link/Update', JSON.stringify({ id, data: { status: 1, comment: 'updated' } }), json)).toMatchObject({ code: 0, data: true });
    const list = await send('Link/List', JSON.stringify({ criteria: { status: 1, query: 'updated' }, pagination: { pageSize: 25, currentPage: 0 }, sort: { createTs: 'DESC' } }), json);
    expect(list).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ id }] } });
    const stats = await send('Link/GetStats', JSON.stringify({ ids: [id], type: 'monthly', criteria: { dateFrom: '2024-06-01 00:00:00' } }), json);
    expect(stats).toMatchObject({ code: 0, data: { totals: { totalClicks0: 0 } } });
    // true is "1", as a form would carry it.
    const sent = (await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'numbered' }, KEY)).data as { campaignId: string };
    const messages = await send('Message/List', JSON.stringify({ withNumberInfo: true, criteria: { campaignIds: [Number(sent.campaignId)] } }), json);
    expect(messages).toMatchObject({ code: 0, data: { totalItemCount: '1', items: [{ text: 'numbered', countryA2: 'KZ' }] } });
    expect(await send('Link/Delete', JSON.stringify({ ids: [id, 987654] }), json)).toMatchObject({ code: 0, data: { processed: [id], notProcessed: ['987654'] } });
    // The key may sit in the body; and a refusal names the field as for a form.
    const refused = await emu.raw('POST', '/service/Link/Create?output=json', JSON.stringify({ apiKey: KEY, data: { fullLink: 'not a link' } }), json);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 1, data: { fullLink: [expect.stringContaining('URL')] } });
  });
});

describe('multipart bodies', () => {
  it('reads a multipart body as the .NET client writes it, and leaves files out', async () => {
    const { body, type } = dotnetMultipart([
      ['recipient', '77011234567'],
      ['text', 'через multipart'],
      ['params[name]', 'multi'],
    ]);
    const sent = await send('Message/SendSmsMessage', body, { 'content-type': type });
    expect(sent).toMatchObject({ code: 0, data: { status: 2 } });
    const listed = (await emu.call('Message/List', { criteria: { text: 'через multipart' } }, KEY)).data as { items: Array<{ to: string }> };
    expect(listed.items).toMatchObject([{ to: '77011234567' }]);
    // ContactCard/Create with a photo, as that client sends it: read whole, answered as not modelled.
    const card = dotnetMultipart([['data[name]', 'Ann']], { name: 'data[photo]', bytes: Buffer.from([0xff, 0xd8, 0x00, 0x01, 0x0d, 0x0a]) });
    expect(await send('contactcard/create', card.body, { 'content-type': card.type })).toMatchObject({ code: 9 });
    expect(errors).toEqual([]);
  });
});

describe('a body that is not what its Content-Type says', () => {
  it('is refused with code 1, saying what was expected, and nothing is done', async () => {
    const before = (await emu.call('Link/List', {}, KEY)).data as { totalItemCount: string };
    const form = 'data[fullLink]=https%3A%2F%2Fexample.com%2Fm';
    const cases: Array<[string, string, RegExp]> = [
      ['application/json', form, /^the body is not JSON, though Content-Type says application\/json .*: send a JSON object of parameters/],
      ['application/json', '["https://example.com"]', /^a JSON body must be an object of parameters.*; this one is an array$/],
      ['application/json', '"https://example.com"', /this one is a string$/],
      ['application/x-www-form-urlencoded', '{"data": {"fullLink": "https://example.com/m"}}', /^the body is JSON, but Content-Type says application\/x-www-form-urlencoded: send it with Content-Type: application\/json/],
      ['multipart/form-data; boundary=xyz', form, /^the body is not the multipart\/form-data its Content-Type says/],
      ['multipart/form-data', form, /^Content-Type multipart\/form-data cannot be read .*needs its boundary/],
      ['text/plain;charset=UTF-8', form, /^Content-Type text\/plain is not read: send the parameters as a form/],
      ['application/x-www-form-urlencoded', '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--', /^the body is multipart\/form-data, but Content-Type says/],
    ];
    for (const [type, body, message] of cases) {
      const env = await send('Link/Create', body, { 'content-type': type });
      expect(env, `${type}: ${body}`).toEqual({ code: 1, data: { body: [expect.stringMatching(message)] }, message: expect.stringMatching(message) });
    }
    // Without a Content-Type a form is assumed, and JSON is refused all the same.
    const bare = await emu.raw('POST', `/service/Link/Create?${query}`, Buffer.from('{"data": {}}'));
    expect(JSON.parse(bare.text)).toMatchObject({ code: 1, message: expect.stringContaining('there is no Content-Type (a form is assumed)') });
    expect(((await emu.call('Link/List', {}, KEY)).data as { totalItemCount: string }).totalItemCount).toBe(before.totalItemCount);
  });
});

describe('the form limits, for every kind of body', () => {
  const tooMany = `a request carries at most ${MAX_PARAMS} parameters`;
  it('refuses more parameters than the form takes with code 12, in JSON and multipart as in a form', async () => {
    const ids = Array.from({ length: MAX_PARAMS + 1 }, (_, i) => i + 1);
    expect(await send('Link/Delete', JSON.stringify({ ids }), { 'content-type': 'application/json' })).toEqual({ code: 12, data: { request: [tooMany] }, message: tooMany });
    const wide = dotnetMultipart(ids.map((i): [string, string] => [`ids[${i}]`, String(i)]));
    expect(await send('Link/Delete', wide.body, { 'content-type': wide.type })).toEqual({ code: 12, data: { request: [tooMany] }, message: tooMany });
    // Query and body count together.
    const half = JSON.stringify({ ids: ids.slice(0, MAX_PARAMS - 1) });
    const padded = await emu.raw('POST', `/service/Link/Delete?${query}&a=1&b=2`, half, { 'content-type': 'application/json' });
    expect(JSON.parse(padded.text)).toMatchObject({ code: 12 });
    const fits = await send('Link/Delete', JSON.stringify({ ids: ids.slice(0, MAX_PARAMS - 3) }), { 'content-type': 'application/json' });
    expect(fits).toMatchObject({ code: 0 });
  });

  it('refuses JSON nested deeper than a form name may be, naming the name, however deep', async () => {
    const deep = JSON.stringify({ criteria: { a: { b: { c: { d: 1 } } } } });
    expect(await send('Link/List', deep, { 'content-type': 'application/json' })).toMatchObject({
      code: 12,
      message: 'criteria[a][b][c]: parameter names nest at most 3 brackets deep',
    });
    const abyss = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(await send('Link/List', abyss, { 'content-type': 'application/json' })).toMatchObject({ code: 12 });
    expect(await send('Link/List', JSON.stringify({ criteria: { campaignIds: [1] } }), { 'content-type': 'application/json' })).toMatchObject({ code: 0 });
  });

  it('refuses a JSON or multipart body over 1 MiB with HTTP 413', async () => {
    const big = JSON.stringify({ data: { fullLink: 'https://example.com', comment: 'x'.repeat(MAX_BODY_BYTES) } });
    expect((await emu.raw('POST', `/service/Link/Create?${query}`, big, { 'content-type': 'application/json' })).status).toBe(413);
    const multi = dotnetMultipart([['text', 'x'.repeat(MAX_BODY_BYTES)]]);
    expect((await emu.raw('POST', `/service/Message/SendSmsMessage?${query}`, multi.body, { 'content-type': multi.type })).status).toBe(413);
  });
});

describe('generated bodies', () => {
  const types = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=zz',
    'multipart/form-data; boundary="zz"',
    'multipart/form-data',
    'text/plain',
    'application/xml',
    '',
  );
  const name = fc.oneof(fc.constantFrom('recipient', 'text', 'ids[]', 'ids[0]', 'data[fullLink]', 'criteria[status]', 'a[b][c][d][e]', '__proto__', ''), fc.string({ maxLength: 10 }));
  const multipart = fc.tuple(fc.array(fc.tuple(name, fc.string({ maxLength: 20 })), { maxLength: 5 }), fc.boolean()).map(([pairs, cut]) => {
    const text = `${pairs.map(([n, v]) => `--zz\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('')}--zz--\r\n`;
    return cut ? text.slice(0, Math.floor(text.length / 2)) : text;
  });
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
    fc.dictionary(name, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((v) => JSON.stringify(v)),
    multipart,
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  const path = fc.constantFrom('Link/Create', 'Link/List', 'Link/Delete', 'Message/SendSmsMessage', 'Message/GetSMSStatus', 'Message/List', 'Campaign/Create', 'Nope/Get');

  it('answers every body of every Content-Type with an envelope, in JSON or XML, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(path, types, body, fc.constantFrom('json', 'xml'), async (p, type, text, output) => {
        const res = await emu.raw('POST', `/service/${p}?output=${output}&apiKey=${KEY}`, text, type ? { 'content-type': type } : {});
        expect(res.status).toBe(200);
        if (output === 'json') expect(Object.keys(JSON.parse(res.text))).toEqual(['code', 'data', 'message']);
        else expect(res.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<response><code>\d+<\/code>(<data\/>|<data>[\s\S]*<\/data>)(<message\/>|<message>[\s\S]*<\/message>)<\/response>\n$/);
      }),
      { numRuns: 1500 },
    );
    expect(errors).toEqual([]);
    expect((await emu.call('User/GetOwnBalance', {}, KEY)).code).toBe(0);
    // 1,500 requests over a socket: 2 s alone, past the 20 s of a test of a few requests when the
    // machine is shared (seen, with two busy processes beside the suite). A bound on a hang only.
  }, 180_000);
});
