// The exact bytes each operation puts on the wire, over a real socket to a
// recording server, and how the client reads the live answers.
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import qs from 'qs';
import { ApiError, ConfigError, SmsLinkClient, TransportError, ValidationError } from '../../src/index.js';
import { LIVE_LINK, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

let server: RecordingServer;
let client: SmsLinkClient;
const KEY = 'k3y-4-tests-0123456789abcdef';

beforeAll(async () => {
  server = await startRecordingServer();
  client = new SmsLinkClient({ baseUrl: server.url, apiKey: KEY });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.respond(undefined);
});

const last = () => server.requests.at(-1)!;

describe('request bytes per operation', () => {
  it.each([
    [
      'createLink',
      { fullLink: 'https://example.com/a?b=1&c=2', status: 0, expirationDate: '2026-12-31', comment: 'spring sale' },
      '/service/Link/Create',
      'data[fullLink]=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1%26c%3D2&data[status]=0&data[expirationDate]=2026-12-31&data[comment]=spring%20sale',
    ],
    ['getLink', { id: 417863 }, '/service/Link/Get', 'id=417863'],
    ['getLink', { shortLink: 'https://sho.rt/ddoj' }, '/service/Link/Get', 'shortLink=https%3A%2F%2Fsho.rt%2Fddoj'],
    [
      'listLinks',
      { status: 1, createTsFrom: '2026-01-01', createTsTo: '2026-01-31 23:59:59', pageSize: 50, currentPage: 2, sort: { createTs: 'desc', code: 'asc' } },
      '/service/Link/List',
      'criteria[status]=1&criteria[createTsFrom]=2026-01-01&criteria[createTsTo]=2026-01-31%2023%3A59%3A59&pagination[pageSize]=50&pagination[currentPage]=2&sort[createTs]=DESC&sort[code]=ASC',
    ],
    ['updateLink', { id: 7, status: 1, expirationDate: '2027-01-01' }, '/service/Link/Update', 'id=7&data[status]=1&data[expirationDate]=2027-01-01'],
    ['deleteLinks', { ids: [1, 2, 3] }, '/service/Link/Delete', 'ids[0]=1&ids[1]=2&ids[2]=3'],
    [
      'getLinkStats',
      { ids: [1, 2], type: 'daily', dateFrom: '2026-11-01 00:00:00', dateTo: '2026-11-30 23:59:59' },
      '/service/Link/GetStats',
      'ids[]=1&ids[]=2&type=daily&criteria[dateFrom]=2026-11-01%2000%3A00%3A00&criteria[dateTo]=2026-11-30%2023%3A59%3A59',
    ],
    ['getCampaignLinks', { campaignId: 9001 }, '/service/Link/GetLinks', 'campaignId=9001'],
    [
      'sendMessage',
      { recipient: '+7 701 123-45-67', text: 'Hi', from: 'SHOP', name: 'otp', shortenLinks: 1, validity: 120 },
      '/service/Message/SendSmsMessage',
      'recipient=77011234567&text=Hi&from=SHOP&params[name]=otp&params[shortenLinks]=1&params[validity]=120',
    ],
    ['getMessageStatus', { ids: [10, 11, 12] }, '/service/Message/GetSMSStatus', 'ids=10%2C11%2C12'],
    [
      'listMessages',
      { withNumberInfo: 1, campaignIds: [1, 2], to: '7701', status: 'DELIVRD', sort: { startSendTs: 'DESC' } },
      '/service/Message/List',
      'withNumberInfo=1&criteria[campaignIds]=1%2C2&criteria[to]=7701&criteria[status]=DELIVRD&sort[startSendTs]=DESC',
    ],
  ])('%s %j', async (method, input, path, body) => {
    await (client as unknown as Record<string, (i: unknown) => Promise<unknown>>)[method](input);
    const req = last();
    expect(req.method).toBe('POST');
    expect(req.path).toBe(path);
    expect(req.body).toBe(body);
    expect([...req.query.entries()]).toEqual([
      ['output', 'json'],
      ['api', 'v1'],
      ['apiKey', KEY],
    ]);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(req.headers['user-agent']).toMatch(/^smslink\/\d+\.\d+\.\d+ node\/\d+/);
  });

  it('carries texts with ? / \\ & +, spaces, emoji and Cyrillic byte-exact', async () => {
    const text = 'Привет? a/b\\c & d+e  😀 100% = ok\nnext line';
    await client.sendMessage({ recipient: '77011234567', text });
    const body = last().body;
    const encoded = body.split('&').find((p) => p.startsWith('text='))!.slice('text='.length);
    // Nothing that could break the form: only unreserved characters and %XX escapes.
    expect(encoded).toMatch(/^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$/);
    expect(qs.parse(body).text).toBe(text);
    expect(new URLSearchParams(body).get('text')).toBe(text);
  });

  it('keeps a base URL path prefix and ignores a trailing slash', async () => {
    const prefixed = new SmsLinkClient({ baseUrl: `${server.url}/api/v2/`, apiKey: KEY });
    await prefixed.getLink({ id: 1 });
    await prefixed.close();
    expect(last().path).toBe('/api/v2/service/Link/Get');
  });

  it('sends nothing when a rule is broken', async () => {
    await expect(client.createLink({ fullLink: 'not a url' })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.getLinkStats({ ids: [1, 2, 3, 4, 5, 6], type: 'daily' })).rejects.toThrow(/at most 5 ids/);
    expect(server.requests).toHaveLength(0);
  });

  it('says a choice of parameters left out in plain words', async () => {
    // It was `Link/Get: id|code|shortLink give exactly one of id, code, shortLink`.
    const err = await client.getLink({} as never).catch((e: unknown) => e); // the types refuse it; JavaScript does not
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toBe('Link/Get: give exactly one of id, code, shortLink');
    expect((err as ValidationError).issues).toMatchObject([{ key: 'id|code|shortLink', code: 12 }]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an input that is no object (from JavaScript) with a ValidationError naming it', async () => {
    const refused = (call: () => Promise<unknown>) => call().catch((err: unknown) => (err instanceof ValidationError ? err.message : err));
    // null was a TypeError from inside the client, a string `0 is not a parameter of Link/Get`, a list a rule about sort.
    expect(await refused(() => client.getLink(null as never))).toBe('Link/Get: input must be an object of its parameters (got null)');
    expect(await refused(() => client.getLink('417863' as never))).toBe('Link/Get: input must be an object of its parameters (got "417863")');
    expect(await refused(() => client.listLinks([] as never))).toBe('Link/List: input must be an object of its parameters (got a list)');
    expect(await refused(() => client.getBalance(null as never))).toBe('User/GetOwnBalance: input must be an object of its parameters (got null)');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to send the key over plain http to a host that is not loopback, naming the option that allows it', async () => {
    const remote = new SmsLinkClient({ baseUrl: 'http://api.example.com', apiKey: KEY });
    const err = await remote.getLink({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    // The library's option: a library user has no --allow-insecure-http.
    expect((err as ConfigError).message).toBe(
      'refusing to send the API key over plain http:// to api.example.com; use https://, or pass the allowInsecureHttp option if you really mean it',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('never shows a key given as the base URL (the two options swapped), nor a key it knows in a base URL', async () => {
    const refused = async (options: { baseUrl: string; apiKey: string }) => {
      const swapped = new SmsLinkClient(options);
      const err = (await swapped.getLink({ id: 1 }).catch((e: unknown) => e)) as ConfigError;
      expect(err).toBeInstanceOf(ConfigError);
      expect(`${err.message}\n${err.stack}\n${JSON.stringify(err)}`).not.toContain('SwappedKey0123456789');
      return err.message;
    };
    expect(await refused({ baseUrl: 'SwappedKey0123456789abcdefABCDEF01234567', apiKey: server.url })).toBe(
      'base URL "********4567" is not a valid URL: it looks like an API key; are the base URL and the key given the wrong way round?',
    );
    expect(await refused({ baseUrl: 'oops SwappedKey0123456789', apiKey: 'SwappedKey0123456789' })).toBe('base URL "oops ***" is not a valid URL');
    expect(await refused({ baseUrl: 'api.example.com', apiKey: KEY })).toBe('base URL "api.example.com" is not a valid URL; write it with its scheme: https://api.example.com');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a key with a line break or spaces at its ends (read from a file) instead of sending it for code 8', async () => {
    const fromFile = new SmsLinkClient({ baseUrl: server.url, apiKey: `${KEY}\n` });
    const err = await fromFile.getLink({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe('the API key has spaces or a line break at its start or end (as a key read from a file has); trim it');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a base URL that ends in /service, which it adds itself, naming the one to give', async () => {
    const doubled = new SmsLinkClient({ baseUrl: `${server.url}/api/service/`, apiKey: KEY });
    const err = await doubled.getLink({ id: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(`base URL ${server.url}/api/service/ ends in /service, which the client adds to every request itself: give ${server.url}/api`);
    expect(server.requests).toHaveLength(0);
  });
});

describe('reading live answers', () => {
  it('turns string numbers into numbers by field type and passes unknown fields through', async () => {
    const link = await client.getLink({ id: 417863 });
    expect(link).toMatchObject({ id: 417863, status: 1, moderatorStatus: 1, clickCnt: 0, expirationDate: '2026-12-31', moderatorComment: null });
    expect(link.domain).toBe('sho.rt');
    expect(link.isCustom).toBe('0');
    const page = await client.listLinks();
    expect(page.totalItemCount).toBe(2);
    expect(page.items[1]).toMatchObject({ id: 417864, status: 0, expirationDate: null });
  });

  it('accepts both shapes of Link/Update (string or true)', async () => {
    expect(await client.updateLink({ id: 1 })).toEqual({ shortLink: null });
    server.respond(() => ({ body: { code: 0, data: 'https://sho.rt/ddoj', message: '' } }));
    expect(await client.updateLink({ id: 1 })).toEqual({ shortLink: 'https://sho.rt/ddoj' });
  });

  it('accepts both shapes of GetStats totals (object or string)', async () => {
    const live = await client.getLinkStats({ ids: [1, 2], type: 'monthly' });
    expect(live.items[1]).toEqual({ param: '2026-11', clicks0: 4, redirects0: 3, clicks1: 2, redirects1: 2 });
    expect(live.totals).toEqual({ totalClicks0: 5, totalRedirects0: 4, totalClicks1: 2, totalRedirects1: 2 });
    server.respond(() => ({ body: { code: 0, data: { items: [], totals: '7' }, message: '' } }));
    expect((await client.getLinkStats({ ids: [1], type: 'monthly' })).totals).toBe(7);
  });

  it('normalises send, status and message records', async () => {
    expect(await client.sendMessage({ recipient: '77011234567', text: 'x' })).toEqual({ campaignId: 9001, messageId: 123456, status: 2 });
    expect((await client.getMessageStatus({ ids: [123456] }))[0]).toMatchObject({ id: 123456, segNum: 1, status: 'DELIVRD' });
    expect((await client.listMessages()).items[0]).toMatchObject({ id: 123456, campaignId: 9001, segUserBuy: 0.01, to: '77011234567' });
  });

  it('raises ApiError with the code, its meaning and the field errors', async () => {
    server.respond(() => ({ body: { code: 1, data: { fullLink: 'invalid url' }, message: 'validation failed' } }));
    const err = await client.createLink({ fullLink: 'https://example.com' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 1, meaning: 'validation error', fields: { fullLink: 'invalid url' } });
    expect((err as Error).message).toContain('fullLink: invalid url');
  });

  it('shows a live-shaped field error (a list of texts per field) by its field and first text', async () => {
    const live = { code: 1, data: { fullLink: ['invalid url', 'too long'], comment: ['too long'] }, message: 'One or more fields contain incorrect data; check the errors and try again.' };
    server.respond(() => ({ body: live }));
    const err = await client.createLink({ fullLink: 'https://example.com' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 1, fields: live.data, data: live.data });
    expect((err as Error).message).toBe(
      'Link/Create failed with code 1 (validation error): One or more fields contain incorrect data; check the errors and try again. (fullLink: invalid url; comment: too long)',
    );
  });

  it('raises TransportError with the HTTP status and the start of an HTML body', async () => {
    server.respond(() => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }));
    const err = (await client.getLink({ id: 1 }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(502);
    expect(err.details.bodyStart).toContain('502 Bad Gateway');
  });

  it('raises TransportError when a 200 body is not the envelope', async () => {
    server.respond(() => ({ body: '{"code":0,"da' }));
    await expect(client.getLink({ id: 1 })).rejects.toMatchObject({ kind: 'protocol' });
    server.respond(() => ({ body: { hello: 'world' } }));
    await expect(client.getLink({ id: 1 })).rejects.toMatchObject({ kind: 'protocol' });
  });
});

describe('closing the connections', () => {
  it('release() drops the keep-alive connection at once, and the client still works after it', async () => {
    const open = new Set<Socket>();
    const onConnection = (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    };
    server.server.on('connection', onConnection);
    const own = new SmsLinkClient({ baseUrl: server.url, apiKey: KEY });
    try {
      await own.getLink({ id: 1 });
      expect(open.size).toBe(1);
      await own.release();
      await expect.poll(() => open.size).toBe(0);
      // A later call opens a new connection, as after close().
      await expect(own.getLink({ id: 2 })).resolves.toMatchObject({ id: 417863 });
    } finally {
      await own.close();
      server.server.off('connection', onConnection);
    }
  });

  it('release() with a request in flight lets it finish, as close() does', async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    let arrived = false;
    const slow = createServer((req, res) => {
      arrived = true;
      req.resume();
      req.on('end', () => void held.then(() => res.end(JSON.stringify({ code: 0, data: { ...LIVE_LINK, id: '5' }, message: '' }))));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const own = new SmsLinkClient({ baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`, apiKey: KEY });
    try {
      const got = own.getLink({ id: 5 });
      await expect.poll(() => arrived).toBe(true);
      const released = own.release();
      answer();
      await expect(got).resolves.toMatchObject({ id: 5 });
      await released;
    } finally {
      await own.close();
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
