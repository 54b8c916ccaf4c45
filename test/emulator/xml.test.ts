// output=xml over a real socket: every operation and every error answers the
// same envelope as XML (one root, lists as <item> elements, an XML content
// type). Each XML answer is read by fast-xml-parser and by PHP's SimpleXML as
// the official PHP library reads it (test/helpers/simplexml.php), and must
// say what the JSON answer to the same request says.
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/emulator/server.js';
import { encodeParams, startTestEmulator, type Envelope, type RawAnswer, type TestEmulator } from '../helpers/emulator.js';
import { asXmlText, readWithSimpleXml, type SimpleXmlValue } from '../helpers/php.js';

const KEY = 'xml-key';
let emu: TestEmulator;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  emu = await startTestEmulator({
    seed: {
      keys: [KEY],
      links: [{ fullLink: 'https://example.com/a', comment: 'first', clicks: 2 }, { fullLink: 'https://example.com/b' }],
      campaigns: [{ name: 'autumn', links: [{ fullLink: 'https://example.com/c', clicks: 1 }] }],
      messages: [{ to: '77011234567', text: 'Your code is 4711', status: 'DELIVRD' }, { to: '77019990000', text: 'second', status: 'UNDELIV' }],
    },
  });
});
afterAll(() => emu?.close());

const parser = new XMLParser({ ignoreDeclaration: true, parseTagValue: false, trimValues: false, isArray: (name) => name === 'item' });

/** fast-xml-parser's reading of a value: `{ item: [...] }` is a list. */
function fromParser(v: unknown): SimpleXmlValue {
  if (typeof v === 'string') return v;
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 1 && entries[0][0] === 'item') return (entries[0][1] as unknown[]).map(fromParser);
  return Object.fromEntries(entries.map(([k, x]) => [k, fromParser(x)]));
}

/** An XML answer as fast-xml-parser reads it: the root's code, data and message. */
function parseXml(text: string): { code: string; data: SimpleXmlValue; message: string } {
  const doc = parser.parse(text, true) as { response: { code: string; data: unknown; message: string } };
  expect(Object.keys(doc)).toEqual(['response']);
  expect(Object.keys(doc.response)).toEqual(['code', 'data', 'message']);
  return { code: doc.response.code, data: fromParser(doc.response.data), message: doc.response.message };
}

const post = (path: string, query: string, body: string) => emu.raw('POST', `/service/${path}?${query}`, body, form);

/** The same request answered in JSON and in XML. */
async function both(path: string, params: Record<string, unknown> = {}, key = KEY): Promise<{ json: Envelope; xml: RawAnswer }> {
  const body = encodeParams(params);
  const json = JSON.parse((await post(path, `output=json&api=v1&apiKey=${key}`, body)).text) as Envelope;
  const xml = await post(path, `output=xml&api=v1&apiKey=${key}`, body);
  return { json, xml };
}

/** Checks that both readers see in `xml` what `json` says; returns PHP's reading. */
async function expectSame(label: string, json: Envelope, xml: RawAnswer) {
  expect(xml.status, label).toBe(200);
  expect(xml.headers['content-type'], label).toBe('application/xml; charset=utf-8');
  const expected = { code: String(json.code), data: asXmlText(json.data), message: json.message };
  expect(parseXml(xml.text), label).toEqual(expected);
  return expected;
}

describe('output=xml', () => {
  it('answers every operation with the envelope of its JSON answer, as fast-xml-parser and PHP SimpleXML read it', async () => {
    const links = (await emu.call('Link/List', {}, KEY)).data as { items: Array<{ id: string }> };
    const messages = (await emu.call('Message/List', {}, KEY)).data as { items: Array<{ id: string; campaignId: string }> };
    const reads: Array<[string, Record<string, unknown>]> = [
      ['Link/Get', { id: links.items[0].id }],
      ['Link/List', { sort: { createTs: 'ASC' } }],
      ['Link/GetStats', { ids: links.items.map((l) => l.id), type: 'daily' }],
      ['Message/GetSMSStatus', { ids: messages.items.map((m) => m.id) }],
      ['Message/List', { withNumberInfo: 1 }],
      ['Message/List', { criteria: { text: 'matches nothing' } }],
      ['User/GetOwnBalance', {}],
    ];
    const seen: Array<{ label: string; expected: unknown; xml: string }> = [];
    for (const [path, params] of reads) {
      const { json, xml } = await both(path, params);
      const label = `${path} ${JSON.stringify(params)}`;
      seen.push({ label, expected: await expectSame(label, json, xml), xml: xml.text });
    }
    // Lists are repeated <item> elements (three links); an empty one is an empty element.
    const xmlOf = (label: string) => seen.find((s) => s.label.startsWith(label))!.xml;
    expect(xmlOf('Link/List').match(/<item><id>\d+<\/id>/g)).toHaveLength(3);
    expect(xmlOf('Message/List {"criteria"')).toContain('<data><items/><totalItemCount>0</totalItemCount></data>');
    const php = await readWithSimpleXml(seen.map((s) => s.xml));
    // The library's success test: code 0 or 100.
    php.forEach((read, i) => expect(read, seen[i].label).toEqual({ loaded: true, success: true, ...(seen[i].expected as object) }));
  });

  it('answers Link/GetLinks and Campaign/GetLinks of a campaign the same, in XML too', async () => {
    const sent = (await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'see https://example.com/x', params: { shortenLinks: 1 } }, KEY)).data as {
      campaignId: string;
    };
    const texts: string[] = [];
    for (const path of ['Link/GetLinks', 'campaign/getlinks', 'Campaign/GetLinks']) {
      const { json, xml } = await both(path, { campaignId: sent.campaignId });
      expect(json).toMatchObject({ code: 0, data: [{ fullLink: 'https://example.com/x' }] });
      await expectSame(path, json, xml);
      texts.push(xml.text);
    }
    expect(new Set(texts).size).toBe(1);
  });

  it('carries out writes asked for in XML, and answers them in XML', async () => {
    const created = await post('Link/Create', `output=xml&apiKey=${KEY}`, 'data[fullLink]=https%3A%2F%2Fexample.com%2Fxml&data[comment]=made+in+xml');
    const made = parseXml(created.text);
    expect(made).toMatchObject({ code: '0', message: '', data: { id: expect.stringMatching(/^\d+$/), code: expect.any(String) } });
    const id = (made.data as { id: string }).id;
    expect((await emu.call('Link/Get', { id }, KEY)).data).toMatchObject({ fullLink: 'https://example.com/xml', comment: 'made in xml' });
    expect(parseXml((await post('link/update', `output=xml&apiKey=${KEY}`, `id=${id}&data[comment]=changed`)).text)).toEqual({ code: '0', data: 'true', message: '' });
    const deleted = parseXml((await post('Link/Delete', `output=xml&apiKey=${KEY}`, `ids[0]=${id}&ids[1]=987654`)).text);
    expect(deleted).toEqual({ code: '0', message: '', data: { processed: [id], notProcessed: ['987654'] } });
    const sent = parseXml((await emu.raw('GET', `/service/message/sendsmsmessage?output=xml&apiKey=${KEY}&recipient=77011234567&text=hi`)).text);
    expect(sent).toMatchObject({ code: '0', data: { messageId: expect.stringMatching(/^\d+$/), status: '2' } });
    const status = (await emu.call('Message/GetSMSStatus', { ids: (sent.data as { messageId: string }).messageId }, KEY)).data as unknown[];
    expect(status).toHaveLength(1);
  });

  it('answers every error in XML too: codes 1, 2, 4, 5, 8, 9, 11 and 12', async () => {
    const cases: Array<[string, Record<string, unknown>, number, string?]> = [
      ['Link/Create', { data: { fullLink: 'not a url', comment: 'x'.repeat(256) } }, 1],
      ['Link/Get', { id: 987654 }, 2],
      ['Nope/Get', {}, 4],
      ['Link/Explode', {}, 5],
      ['Link/List', {}, 8, 'wrong-key'],
      ['Campaign/Create', { data: { name: 'x' } }, 9],
      ['TaskQueue/GetStatus', { id: 1 }, 9],
      ['Link/Create', {}, 11],
      ['Link/Get', {}, 12],
      ['Link/GetStats', { ids: [1, 2, 3, 4, 5, 6], type: 'daily' }, 12],
    ];
    const seen: Array<{ label: string; expected: unknown; xml: string }> = [];
    for (const [path, params, code, key] of cases) {
      const { json, xml } = await both(path, params, key);
      expect(json.code, path).toBe(code);
      seen.push({ label: `${path} -> ${code}`, expected: await expectSame(path, json, xml), xml: xml.text });
    }
    // Code 1 lists each field's texts; code 8 has data [].
    expect(seen[0].xml).toMatch(/<data><fullLink><item>must be a URL[^<]*<\/item><\/fullLink><comment><item>[^<]*255[^<]*<\/item><\/comment><\/data>/);
    expect(seen[4].xml).toContain('<code>8</code><data/><message>failed.api.auth</message>');
    const php = await readWithSimpleXml(seen.map((s) => s.xml));
    php.forEach((read, i) => expect(read, seen[i].label).toEqual({ loaded: true, success: false, ...(seen[i].expected as object) }));
  });

  it('answers refusals of the request itself in XML: another method, a body too large, not UTF-8, not what its Content-Type says, too many parameters', async () => {
    const q = `output=xml&api=v1&apiKey=${KEY}`;
    const answers = [
      await emu.raw('PUT', `/service/Link/Get?${q}`, 'id=1', form),
      await emu.raw('POST', `/service/Link/Create?${q}`, Buffer.alloc(MAX_BODY_BYTES + 1, 0x61), form),
      await emu.raw('POST', `/service/Link/Create?${q}`, Buffer.from([0x69, 0x64, 0x3d, 0xff]), form),
      await emu.raw('POST', `/service/Link/Create?${q}`, '{"data": {"fullLink": "https://example.com"}}', form),
      await emu.raw('POST', `/service/Link/Delete?${q}`, 'x=1&'.repeat(2000), form),
    ];
    expect(answers.map((a) => a.status)).toEqual([405, 413, 200, 200, 200]);
    const read = answers.map((a) => {
      expect(a.headers['content-type']).toBe('application/xml; charset=utf-8');
      return parseXml(a.text);
    });
    expect(read.map((r) => r.code)).toEqual(['5', '1', '1', '1', '12']);
    expect(read[3]).toMatchObject({ data: { body: [expect.stringContaining('the body is JSON, but Content-Type says application/x-www-form-urlencoded')] } });
    const php = await readWithSimpleXml(answers.map((a) => a.text));
    php.forEach((p, i) => expect(p).toMatchObject({ loaded: true, code: read[i].code, message: read[i].message }));
  });

  it('keeps code 6 in JSON for a format it does not write, whatever the letter case of xml', async () => {
    const refused = await emu.raw('GET', `/service/Link/List?output=yaml&apiKey=${KEY}`);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 6, data: null, message: expect.stringContaining('output=xml') });
    const upper = await emu.raw('GET', `/service/User/GetOwnBalance?output=XML&apiKey=${KEY}`);
    expect(parseXml(upper.text)).toMatchObject({ code: '0', data: { currency: 'KZT' } });
  });

  it('escapes markup and writes characters XML cannot carry as U+FFFD, and both readers read the text back', async () => {
    const comment = '<b>"Tom" & \'Jerry\'</b> ]]> \u0001 привет 😀';
    const made = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/esc', comment } }, KEY)).data as { id: string };
    const xml = await post('Link/Get', `output=xml&apiKey=${KEY}`, `id=${made.id}`);
    expect(xml.text).toContain('<comment>&lt;b&gt;"Tom" &amp; \'Jerry\'&lt;/b&gt; ]]&gt; \uFFFD привет 😀</comment>');
    const shown = comment.replace('\u0001', '\uFFFD');
    expect((parseXml(xml.text).data as { comment: string }).comment).toBe(shown);
    const [php] = await readWithSimpleXml([xml.text]);
    expect(php).toMatchObject({ loaded: true, data: { comment: shown } });
  });
});

describe('output=xml with faults', () => {
  it('answers a code 30 fault in XML, and cuts a truncated one in its XML content type', async () => {
    const faulty = await startTestEmulator({ apiKeys: [KEY], faultRate: 1, faults: ['code30'] });
    try {
      const res = await faulty.raw('GET', `/service/Link/List?output=xml&apiKey=${KEY}`);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(parseXml(res.text)).toMatchObject({ code: '30', data: '' });
      await faulty.emulator.setFaults(1, ['truncated']);
      const cut = await faulty.raw('GET', `/service/Link/List?output=xml&apiKey=${KEY}`);
      expect(cut.headers['content-type']).toBe('application/xml; charset=utf-8');
      const [php] = await readWithSimpleXml([cut.text]);
      expect(php).toEqual({ loaded: false });
    } finally {
      await faulty.close();
    }
  });
});
