// The emulator in this process (--sandbox): the client reaches it through a
// send() instead of a socket, and must see exactly what the HTTP server
// would have answered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock, openEmulatorInProcess, startEmulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { MAX_BODY_BYTES } from '../../src/emulator/server.js';
import { ApiError, SmsLinkClient, TransportError } from '../../src/index.js';
import type { Send } from '../../src/client/send.js';
import { sendOnce } from '../helpers/send.js';
import { serviceQuery, startTestEmulator, TEST_START, type RawAnswer } from '../helpers/emulator.js';

const dir = mkdtempSync(join(tmpdir(), 'smslink-in-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One request to the emulator through its send(). */
const dispatchRaw = (send: Send, method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<RawAnswer> =>
  sendOnce(send, { url: `http://127.0.0.1:8080${path}`, method, headers, body });

/** The envelope without the random parts (link codes, and the short links made of them); an XML one as it is. */
function envelopeOf(text: string): unknown {
  if (text.startsWith('<')) return text.replace(/<code>(?!\d+<)[^<]*<\/code>/g, '<code>(random)</code>').replace(/<shortLink>[^<]*</g, '<shortLink>(random)<');
  return JSON.parse(text, (key, value: unknown) => (key === 'code' && typeof value === 'string') || key === 'shortLink' ? '(random)' : value);
}

describe('the emulator in this process', () => {
  it('answers every /service/ request as the HTTP server does', async () => {
    const opts = { apiKeys: ['k1'], clock: new ManualClock(TEST_START) };
    const server = await startTestEmulator(opts);
    const local = openEmulatorInProcess({ ...opts, db: ':memory:', shortBase: server.url });
    const q = serviceQuery('k1');
    const form = 'data[fullLink]=https%3A%2F%2Fexample.com%2Fa&data[comment]=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82';
    const json = { 'content-type': 'application/json' };
    const multipart = { 'content-type': 'multipart/form-data; boundary=b0' };
    const cases: Array<[string, string, (string | Buffer)?, Record<string, string>?]> = [
      ['POST', `/service/Link/Create?${q}`, form],
      ['GET', `/service/link/get?${q}&id=1`],
      ['POST', `/service/Link/List/?${q}`, 'pagination[pageSize]=25&sort[createTs]=DESC'],
      ['POST', `/service/Link/Create?${q}`, 'data[fullLink]=example.com'],
      ['POST', `/service/Link/Get?${q}`, ''],
      ['POST', `/service/Nope/Get?${q}`, ''],
      ['POST', `/service/Link/Nope?${q}`, ''],
      ['POST', '/service/Link/Get?output=json&api=v1&apiKey=wrong', 'id=1'],
      ['POST', '/service/Link/Get?output=xml&apiKey=k1', 'id=1'],
      ['PUT', `/service/Link/Get?${q}`, 'id=1'],
      ['POST', `/service/Link/Get?${q}`, Buffer.from([0x69, 0x64, 0x3d, 0xff])],
      ['POST', `/service/Link/Create?${q}`, Buffer.alloc(MAX_BODY_BYTES + 1, 0x61)],
      ['POST', `/service/Link/List?${q}&output=xml`, '{"criteria": {"status": 1}}', json],
      ['POST', `/service/Link/List?${q}`, '{"criteria": ', json],
      ['POST', `/service/Link/List?${q}`, '{"criteria": {"status": 1}}', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', `/service/Link/Get?${q}`, '--b0\r\nContent-Disposition: form-data; name="id"\r\n\r\n1\r\n--b0--\r\n', multipart],
      ['POST', `/service/Link/Get?${q}`, '--b0\r\nContent-Disposition: form-data; name="id"\r\n\r\n1', multipart],
    ];
    try {
      for (const [method, path, body, headers] of cases) {
        const [viaSocket, here] = [await server.raw(method, path, body, headers), await dispatchRaw(local.send, method, path, body, headers)];
        const label = `${method} ${path.split('?')[0]}`;
        expect(here.status, label).toBe(viaSocket.status);
        expect(envelopeOf(here.text), label).toEqual(envelopeOf(viaSocket.text));
        for (const name of ['content-type', 'content-length', 'allow']) expect(here.headers[name], `${label}: ${name}`).toEqual(viaSocket.headers[name]);
      }
      expect((await dispatchRaw(local.send, 'GET', '/abcd')).status).toBe(404);
    } finally {
      await Promise.all([server.close(), local.close()]);
    }
  });

  it('serves the client as a running `serve` on the same database does', async () => {
    const db = join(dir, 'shared.db');
    const local = openEmulatorInProcess({ db, apiKeys: ['sandbox'] });
    const served = await startEmulator({ port: 0, db, apiKeys: ['sandbox'], shortBase: 'http://127.0.0.1:8080' });
    const viaSend = new SmsLinkClient({ baseUrl: local.url, apiKey: 'sandbox', send: local.send });
    const viaSocket = new SmsLinkClient({ baseUrl: served.url, apiKey: 'sandbox' });
    try {
      const made = await viaSend.createLink({ fullLink: 'https://example.com/both', comment: 'here' });
      expect(made.shortLink).toBe(`http://127.0.0.1:8080/${made.code}`);
      expect(await viaSocket.getLink({ id: made.id })).toEqual(await viaSend.getLink({ id: made.id }));
      const other = await viaSocket.createLink({ fullLink: 'https://example.com/served' });
      expect((await viaSend.listLinks({ pageSize: 25 })).items.map((l) => l.id)).toEqual(expect.arrayContaining([made.id, other.id]));
      // Answers that are errors go through the same envelope checks.
      const err = await viaSend.getLink({ id: 999_999 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 2 });
    } finally {
      await Promise.all([viaSend.close(), viaSocket.close()]);
      await Promise.all([local.close(), served.close()]);
    }
  });

  it('answers the requests made before close(), then refuses new ones', async () => {
    const local = openEmulatorInProcess({ apiKeys: ['k'] });
    const pending = dispatchRaw(local.send, 'POST', `/service/Link/Create?${serviceQuery('k')}`, 'data[fullLink]=https://example.com/last');
    await local.close();
    expect(JSON.parse((await pending).text)).toMatchObject({ code: 0, data: { id: '1' } });
    const client = new SmsLinkClient({ baseUrl: local.url, apiKey: 'k', send: local.send, retries: 0 });
    const err = await client.getLink({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'connection' });
  });

  it('aborts a request that has not been answered yet: it is not carried out', async () => {
    const local = openEmulatorInProcess({ apiKeys: ['k'] });
    const ac = new AbortController();
    const client = new SmsLinkClient({ baseUrl: local.url, apiKey: 'k', send: local.send, signal: ac.signal });
    try {
      const pending = client.createLink({ fullLink: 'https://example.com/never' }).catch((e: unknown) => e);
      ac.abort();
      expect(await pending).toMatchObject({ kind: 'aborted' });
      const check = new SmsLinkClient({ baseUrl: local.url, apiKey: 'k', send: local.send });
      expect((await check.listLinks({})).totalItemCount).toBe(0);
    } finally {
      await local.close();
    }
  });

  it('refuses faults, which need a socket', () => {
    expect(() => openEmulatorInProcess({ faultRate: 0.5 } as EmulatorOptions)).toThrow(/socket/);
  });
});
