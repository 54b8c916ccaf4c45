// Who may use /service/ and the short links of a running emulator, over a
// real socket: on loopback, only requests naming a loopback Host (DNS
// rebinding); /service/ also refuses other sites' web pages unless serve
// names their origin with --cors. Clients outside a browser send no Origin
// and are not touched (the public client libraries' suites show it too).

import { connect } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceQuery, startTestEmulator, type RawAnswer, type TestEmulator } from '../helpers/emulator.js';
import { startEmulator } from '../../src/emulator/index.js';

let emu: TestEmulator;
afterEach(() => emu?.close());

const KEY = 'access-key-0000';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function send(headers: Record<string, string>, text = 'hello'): Promise<RawAnswer> {
  return emu.raw('POST', `/service/Message/SendSmsMessage?${serviceQuery(KEY)}`, `recipient=77011234567&text=${text}`, { ...form, ...headers });
}

async function messagesSent(): Promise<number> {
  const env = await emu.call('Message/List', {}, KEY);
  return Number((env.data as { totalItemCount: string }).totalItemCount);
}

describe('/service/ on a loopback address', () => {
  it('refuses a request naming another host (a DNS-rebinding page) with an envelope, and does nothing', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY] });
    for (const host of ['attacker.example', `attacker.example:${emu.port}`, '127.0.0.1.nip.io', '10.0.0.5']) {
      const r = await send({ host });
      expect(r.status, host).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ code: 9, data: null, message: expect.stringContaining('loopback names only') });
    }
    expect(await messagesSent()).toBe(0);
    for (const host of [`localhost:${emu.port}`, `127.0.0.1:${emu.port}`, `app.localhost:${emu.port}`]) expect((await send({ host })).status, host).toBe(200);
    expect(await messagesSent()).toBe(3);
  });

  it('refuses a page of another site: its Origin, or Sec-Fetch-Site when it sends none', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY] });
    const refused: Array<Record<string, string>> = [{ origin: 'https://attacker.example' }, { origin: 'null' }, { origin: 'http://localhost:3000' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of refused) {
      const r = await send(headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(r.text)).toMatchObject({ code: 9, message: expect.stringContaining('--cors') });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    // A GET as an <img> would make it.
    const viaGet = await emu.raw('GET', `/service/Message/SendSmsMessage?${serviceQuery(KEY)}&recipient=77011234567&text=img`, undefined, { 'sec-fetch-site': 'cross-site' });
    expect(viaGet.status).toBe(403);
    expect(await messagesSent()).toBe(0);
    // The emulator's own pages, a URL typed into the browser, and clients outside a browser.
    const allowed: Array<Record<string, string>> = [{ origin: emu.url }, { 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}];
    for (const headers of allowed) expect((await send(headers)).status, JSON.stringify(headers)).toBe(200);
    expect(await messagesSent()).toBe(4);
  });

  it('lets the pages of a --cors origin call it and read the answer, preflight included', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY], cors: ['http://localhost:3000/', 'https://app.example'] });
    const ok = await send({ origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).code).toBe(0);
    expect(ok.headers).toMatchObject({ 'access-control-allow-origin': 'http://localhost:3000', vary: 'Origin' });
    const preflight = await emu.raw('OPTIONS', '/service/Message/SendSmsMessage', undefined, {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-app-version',
      'access-control-request-private-network': 'true',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'content-type, x-app-version',
      'access-control-allow-private-network': 'true',
    });
    expect((await send({ origin: 'http://localhost:3001' })).status).toBe(403);
    const other = await emu.raw('OPTIONS', '/service/Message/SendSmsMessage', undefined, { origin: 'https://attacker.example', 'access-control-request-method': 'POST' });
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(await messagesSent()).toBe(1);
  });

  it('refuses an origin that is not one', async () => {
    for (const origin of ['*', 'http://localhost:3000/app', 'ftp://example.com', 'http://user:pw@example.com']) {
      await expect(startEmulator({ port: 0, db: ':memory:', cors: [origin] })).rejects.toThrow(`--cors: invalid value "${origin}"`);
    }
  });

  it('answers a request without a Host header, which no browser sends (HTTP/1.0)', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY] });
    const socket = connect(emu.port, '127.0.0.1');
    socket.end(`GET /service/Link/List?${serviceQuery(KEY)} HTTP/1.0\r\n\r\n`);
    let got = '';
    for await (const chunk of socket) got += chunk;
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
    expect(got).toContain('"code":0');
  });
});

describe('short-link visits', () => {
  it('on loopback: refuse another Host, take a click from another site', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY] });
    const made = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/x' } }, KEY)).data as { id: string; code: string };
    const refused = await emu.raw('GET', `/${made.code}`, undefined, { host: 'attacker.example' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('loopback names only');
    expect(refused.headers.location).toBeUndefined();
    const clicked = await emu.raw('GET', `/${made.code}`, undefined, { 'sec-fetch-site': 'cross-site', referer: 'https://mail.example/' });
    expect([clicked.status, clicked.headers.location]).toEqual([302, 'https://example.com/x']);
    const link = (await emu.call('Link/Get', { id: made.id }, KEY)).data as { clickCnt: string };
    expect(link.clickCnt).toBe('1');
  });

  it('take the host of --short-base', async () => {
    emu = await startTestEmulator({ apiKeys: [KEY], shortBase: 'http://sho.rt' });
    const made = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/y' } }, KEY)).data as { code: string; shortLink: string };
    expect(made.shortLink).toBe(`http://sho.rt/${made.code}`);
    expect((await emu.raw('GET', `/${made.code}`, undefined, { host: 'sho.rt' })).status).toBe(302);
    // Not /service/: the short base is where links open, not where the API is.
    expect((await emu.raw('GET', `/service/Link/List?${serviceQuery(KEY)}`, undefined, { host: 'sho.rt' })).status).toBe(403);
  });
});

describe('on another address', () => {
  it('answers any Host (the address is reached by name), still refusing other sites’ pages', async () => {
    const running = await startEmulator({ host: '0.0.0.0', port: 0, db: ':memory:', apiKeys: [KEY] });
    emu = { close: () => running.close() } as TestEmulator;
    const post = async (headers: Record<string, string>) => {
      const res = await request(`http://127.0.0.1:${running.port}/service/Link/List?${serviceQuery(KEY)}`, { method: 'POST', headers: { ...form, ...headers }, body: '' });
      await res.body.dump();
      return res.statusCode;
    };
    expect(await post({ host: 'emulator.internal' })).toBe(200);
    expect(await post({ host: 'emulator.internal', origin: 'https://attacker.example' })).toBe(403);
  });
});
