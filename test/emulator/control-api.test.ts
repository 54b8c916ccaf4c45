// The test-control API under /_emulator/, over HTTP: what a test of an app
// asserts on (the messages sent) and how it sets the scene (reset, clock,
// faults); and who may use it.
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGate, refusal } from '../../src/emulator/inspector/access.js';
import { serviceQuery, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function control(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(`${emu!.url}/_emulator/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
}

const send = (to: string, text: string, key?: string) => emu!.call('Message/SendSmsMessage', { recipient: to, text }, key);

describe('GET /_emulator/messages', () => {
  it('lists the messages sent, newest first, with their statuses; needs no API key', async () => {
    emu = await startTestEmulator({ apiKeys: ['app-key-0000', 'other-key-0000'] });
    await send('77011234567', 'Your code is 4711');
    emu.clock.advance(60_000);
    await send('77019990000', 'Rejected one', 'other-key-0000');
    emu.clock.advance(2_000);
    const { status, json } = await control('GET', 'messages');
    expect(status).toBe(200);
    expect(json.total).toBe(2);
    const [newest, older] = json.messages as Array<Record<string, unknown>>;
    expect(newest).toMatchObject({ to: '77019990000', text: 'Rejected one', status: 'REJECTD', account: 2, segments: 1, encoding: 'GSM-7', price: 0.01 });
    // What a delivery report counts: price per segment, country and operator (as Message/List withNumberInfo=1 gives them).
    expect(newest).toMatchObject({ segUserBuy: 0.01, countryA2: 'KZ', operatorName: 'Kcell' });
    expect(older).toMatchObject({ to: '77011234567', status: 'DELIVRD', account: 1, from: 'SMSLINK', createdAt: '2025-01-15 10:00:00' });
    expect(older.timeline).toEqual([
      { status: 'NEW', at: '2025-01-15 10:00:00' },
      { status: 'ENQUEUD', at: '2025-01-15 10:00:01' },
      { status: 'ACCEPTD', at: '2025-01-15 10:00:02' },
      { status: 'DELIVRD', at: '2025-01-15 10:00:05' },
    ]);
  });

  it('filters by part of the number, part of the text and a start time', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'Your code is 4711');
    emu.clock.advance(3_600_000);
    await send('77011234567', 'Your code is 9999');
    await send('998901234567', 'Salom');
    const texts = async (query: string) => ((await control('GET', `messages?${query}`)).json.messages as Array<{ text: string }>).map((m) => m.text);
    expect(await texts('to=%2B7701')).toEqual(['Your code is 9999', 'Your code is 4711']);
    expect(await texts('text=4711')).toEqual(['Your code is 4711']);
    expect(await texts('since=2025-01-15%2010:30:00')).toEqual(['Salom', 'Your code is 9999']);
    expect(await texts('since=2025-01-15T10:30:00Z&to=7701')).toEqual(['Your code is 9999']);
    expect(await texts('limit=1')).toEqual(['Salom']);
  });

  it('refuses a bad filter with HTTP 400 naming it', async () => {
    emu = await startTestEmulator();
    expect(await control('GET', 'messages?since=yesterday')).toEqual({ status: 400, json: { error: expect.stringMatching(/^since: invalid value "yesterday": must be YYYY-MM-DD HH:MM:SS/) } });
    expect(await control('GET', 'messages?limit=0')).toEqual({ status: 400, json: { error: expect.stringMatching(/^limit: invalid value "0"/) } });
    expect(await control('GET', 'messages?to=abc')).toEqual({ status: 400, json: { error: expect.stringMatching(/^to: invalid value "abc"/) } });
  });
});

describe('POST /_emulator/reset, clock and faults', () => {
  it('reset goes back to the seed', async () => {
    emu = await startTestEmulator({ seed: { messages: [{ to: '77011234567', text: 'seeded' }] } });
    await send('77015550000', 'made later');
    expect((await control('GET', 'messages')).json.total).toBe(2);
    const { status, json } = await control('POST', 'reset');
    expect(status).toBe(200);
    expect(json).toMatchObject({ links: 0, messages: 1 });
    expect(((await control('GET', 'messages')).json.messages as Array<{ text: string }>).map((m) => m.text)).toEqual(['seeded']);
  });

  it('clock {"advance": SECONDS} moves the clock and delivers what came due; "pending" delivers everything', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'one');
    const moved = await control('POST', 'clock', { advance: 2 });
    expect(moved.json).toMatchObject({ now: '2025-01-15 10:00:02', advanced: 2 });
    expect(((await control('GET', 'messages')).json.messages as Array<{ status: string }>)[0].status).toBe('ACCEPTD');
    // Link/GetSMSStatus sees the same clock.
    expect((await emu.call('Message/GetSMSStatus', { ids: [1] })).data).toEqual([expect.objectContaining({ status: 'ACCEPTD' })]);
    await send('77010002222', 'expires after a day');
    expect((await control('GET', 'clock')).json.pendingSeconds).toBe(86_401);
    await control('POST', 'clock', { advance: 'pending' });
    expect(((await control('GET', 'messages')).json.messages as Array<{ status: string }>).map((m) => m.status)).toEqual(['EXPIRED', 'DELIVRD']);
    expect((await control('GET', 'clock')).json.pendingSeconds).toBe(0);
  });

  it('deliver gives every message on its way its final status now and leaves the clock where it was', async () => {
    emu = await startTestEmulator({ seed: { messages: [{ to: '77015550000', text: 'seeded NEW stays', status: 'NEW' }] } });
    await send('77011234567', 'one');
    await send('77010002222', 'expires after a day');
    await emu.call('Message/SendSmsMessage', { recipient: '77013334444', text: 'later', sendDate: '2025-01-15 12:00:00' });
    const { status, json } = await control('POST', 'deliver');
    expect(status).toBe(200);
    expect(json).toMatchObject({ now: '2025-01-15 10:00:00', delivered: 3, pendingSeconds: 0 });
    expect(json.message).toBe('Delivered 3 messages on their way; the clock stays at 2025-01-15 10:00:00');
    const listed = (await control('GET', 'messages')).json.messages as Array<{ text: string; status: string; timeline: Array<{ at: string }> }>;
    expect(listed.map((m) => [m.text, m.status])).toEqual([
      ['later', 'DELIVRD'],
      ['expires after a day', 'EXPIRED'],
      ['one', 'DELIVRD'],
      ['seeded NEW stays', 'NEW'],
    ]);
    // Nothing is dated after now: a send for +2h from the real clock is still in the future.
    expect(listed.flatMap((m) => m.timeline.map((t) => t.at)).every((at) => at <= '2025-01-15 10:00:00')).toBe(true);
    expect((await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'in two hours', sendDate: '2025-01-15 12:00:00' })).code).toBe(0);
    expect((await control('POST', 'deliver')).json).toMatchObject({ delivered: 1 });
    expect((await control('POST', 'deliver')).json).toMatchObject({ delivered: 0, message: 'Delivered 0 messages on their way; the clock stays at 2025-01-15 10:00:00' });
  });

  it('clock refuses what is not a number of seconds', async () => {
    emu = await startTestEmulator();
    for (const advance of [-1, 'soon', null, 1e12]) {
      const r = await control('POST', 'clock', { advance });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatch(/^advance: invalid value .*: must be a number of seconds from 0 to \d+, in decimal, or "pending"$/);
    }
    expect(await control('POST', 'clock', [1])).toEqual({ status: 400, json: { error: 'body: must be a JSON object' } });
  });

  it('faults {"rate", "kinds"} switches faults on and off while running', async () => {
    emu = await startTestEmulator();
    const on = await control('POST', 'faults', { rate: 1, kinds: ['503'] });
    expect(on.json).toMatchObject({ rate: 1, kinds: ['503'] });
    const refused = await emu.raw('POST', '/service/Link/List?output=json&api=v1&apiKey=sandbox');
    expect(refused.status).toBe(503);
    expect((await control('GET', 'faults')).json.counts).toMatchObject({ '503': 1 });
    await control('POST', 'faults', { rate: 0 });
    expect((await emu.call('Link/List')).code).toBe(0);
    // Counts are kept across switches.
    expect((await control('GET', 'faults')).json).toMatchObject({ rate: 0, counts: { '503': 1 } });
    expect(emu.emulator.faultCounts()['503']).toBe(1);
  });

  it('GET faults answers the shape POST takes: read, changed and posted back as it is', async () => {
    emu = await startTestEmulator();
    await control('POST', 'faults', { rate: 0, kinds: 'latency:20-40ms, reset,503' });
    const read = (await control('GET', 'faults')).json;
    expect(read).toMatchObject({ rate: 0, kinds: ['latency:20-40ms', 'reset', '503'] });
    const back = await control('POST', 'faults', { rate: 1, kinds: (read.kinds as string[]).filter((k) => k !== 'reset') });
    expect([back.status, back.json]).toEqual([200, expect.objectContaining({ rate: 1, kinds: ['latency:20-40ms', '503'] })]);
    // The library's state is the same shape.
    expect((await emu.emulator.setFaults(0)).kinds).toEqual(['latency:20-40ms', '503']);
    const page = await request(`${emu.url}/_emulator/controls`);
    expect(await page.body.text()).toMatch(/<input type="checkbox" name="kinds" value="503" checked>/);
    await emu.emulator.setFaults(0.5);
    const on = await request(`${emu.url}/_emulator/controls`);
    expect(await on.body.text()).toContain('50% of requests, from latency:20-40ms, 503</dd>');
  });

  it('faults refuses a bad rate or kind, naming it', async () => {
    emu = await startTestEmulator();
    expect((await control('POST', 'faults', { rate: 2 })).json.error).toMatch(/^rate: invalid value 2: must be a probability from 0 to 1, in decimal$/);
    expect((await control('POST', 'faults', { rate: 0.5, kinds: ['boom'] })).json.error).toMatch(/^kinds: unknown fault "boom"; known:/);
    expect((await control('POST', 'faults', { rate: 0.5, kinds: [] })).json.error).toBe('kinds: needs at least one fault');
    expect((await control('GET', 'faults')).json.rate).toBe(0);
  });

  it('answers 405 to a method it does not take', async () => {
    emu = await startTestEmulator();
    expect((await control('GET', 'reset')).status).toBe(405);
    expect((await control('POST', 'messages', {})).status).toBe(405);
  });
});

describe('a form sent by a script', () => {
  it('is answered in JSON, as curl -d rate=0.2 sends it; only a browser (Accept: text/html) goes back to the controls page', async () => {
    emu = await startTestEmulator();
    const post = (path: string, body: string, accept?: string) =>
      request(`${emu!.url}/_emulator/${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(accept ? { accept } : {}) } });
    // curl's own Accept: */*
    const faults = await post('faults', 'rate=0.2&kinds=503', '*/*');
    expect([faults.statusCode, await faults.body.json()]).toEqual([200, expect.objectContaining({ rate: 0.2, message: 'Faults on: 20% of /service/ requests' })]);
    const reset = await post('reset', '');
    expect([reset.statusCode, await reset.body.json()]).toEqual([200, expect.objectContaining({ message: 'Reset: 0 links, 0 messages from the seed' })]);
    const browser = await post('faults', 'rate=0', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    await browser.body.dump();
    expect([browser.statusCode, browser.headers.location]).toEqual([303, '/_emulator/controls']);
    expect((await control('GET', 'faults')).json.rate).toBe(0);
  });
});

describe('bad input', () => {
  /** Sends `text` as it is and reads until the emulator closes the connection (or 20 s pass: then what came so far). */
  async function exchange(text: string): Promise<string> {
    const socket = connect(emu!.port, '127.0.0.1');
    socket.setTimeout(20_000, () => socket.destroy());
    socket.write(text);
    let got = '';
    for await (const chunk of socket) got += chunk;
    return got;
  }
  const head = (path: string, headers: string) => `POST /_emulator/${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n${headers}\r\n`;
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string };

  it('takes numbers in decimal only: 0x10, 1e3, Infinity and padded ones are refused, nothing moves', async () => {
    emu = await startTestEmulator();
    for (const advance of ['0x10', '1e3', 'Infinity', ' 5', '5 ', '-0', '']) {
      const r = await control('POST', 'clock', { advance });
      expect([r.status, r.json.error], advance).toEqual([400, expect.stringMatching(/^advance: invalid value ".*": must be a number of seconds from 0 to \d+, in decimal, or "pending"$/)]);
    }
    const form = await request(`${emu.url}/_emulator/clock`, { method: 'POST', body: 'advance=0x10', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([form.statusCode, ((await form.body.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^advance: invalid value "0x10"/)]);
    expect((await control('GET', 'clock')).json.now).toBe('2025-01-15 10:00:00');
    expect((await control('POST', 'clock', { advance: '16' })).json).toMatchObject({ advanced: 16, now: '2025-01-15 10:00:16' });
    expect((await control('POST', 'clock', { advance: 0.5 })).json).toMatchObject({ advanced: 0.5 });
    expect((await control('POST', 'faults', { rate: '0x1' })).json.error).toMatch(/^rate: invalid value "0x1": must be a probability from 0 to 1, in decimal$/);
    expect((await control('GET', 'messages?limit=0x10')).json.error).toMatch(/^limit: invalid value "0x10": must be a whole number from 1 to 1000$/);
  });

  it('refuses a body past 64 KiB with 413 as soon as it is past, without reading it to its end', async () => {
    emu = await startTestEmulator();
    // Declared: answered before a byte of it is sent.
    const declared = await exchange(head('clock', 'content-length: 200000000\r\n'));
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(declared)).toEqual({ error: 'body: larger than 65536 bytes' });
    // Streamed with no end in sight: the answer comes once 64 KiB have arrived.
    const streamed = await exchange(`${head('faults', 'transfer-encoding: chunked\r\n')}11800\r\n{"rate": 0, "x": "${'a'.repeat(0x11800 - 21)}"}\r\n`);
    expect(streamed).toMatch(/^HTTP\/1\.1 413 /);
    expect(streamed.toLowerCase()).toContain('connection: close');
    expect(bodyOf(streamed)).toEqual({ error: 'body: larger than 65536 bytes' });
  });

  it('refuses JSON nested past 8 levels with 400 as it arrives, never a 500 or a trace', async () => {
    const logged: string[] = [];
    emu = await startTestEmulator({ log: (line) => logged.push(line) });
    const deep = await exchange(`${head('clock', 'transfer-encoding: chunked\r\n')}4e20\r\n{"advance": ${'['.repeat(0x4e20 - 12)}\r\n`);
    expect(deep).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(deep)).toEqual({ error: 'body: nested deeper than 8 levels; this API takes a flat JSON object' });
    const whole = await control('POST', 'faults', { rate: JSON.parse(`${'['.repeat(20)}1${']'.repeat(20)}`) });
    expect(whole).toEqual({ status: 400, json: { error: 'body: nested deeper than 8 levels; this API takes a flat JSON object' } });
    // Brackets inside a string are text, not nesting.
    expect((await control('POST', 'faults', { rate: 0, note: '[[[[[[[[[[[[' })).status).toBe(200);
    expect((await control('POST', 'faults', { rate: [[[[[[1]]]]]] })).json.error).toMatch(/^rate: invalid value a list: must be a probability/);
    expect(logged).toEqual([]);
  });

  it('refuses a malformed control-token cookie in words', async () => {
    const logged: string[] = [];
    emu = await startTestEmulator({ controlToken: 'tok-123456789', log: (line) => logged.push(line) });
    const r = await control('GET', 'messages', undefined, { cookie: 'smslink_control=%E0%A4%A' });
    expect(r).toEqual({ status: 400, json: { error: expect.stringMatching(/^the cookie smslink_control is malformed \(not percent-encoded\): open the inspector again with \?token=<token>/) } });
    const page = await request(`${emu.url}/`, { headers: { cookie: 'other=1; smslink_control=%zz' } });
    expect(page.statusCode).toBe(400);
    expect(await page.body.text()).not.toMatch(/\n\s+at /);
    expect(logged).toEqual([]);
  });
});

describe('who may use it', () => {
  it('on loopback: refuses another Host (DNS rebinding) and a POST from another origin', async () => {
    emu = await startTestEmulator();
    expect((await control('GET', 'messages', undefined, { host: 'attacker.example' })).status).toBe(403);
    const cross = await control('POST', 'reset', undefined, { origin: 'https://attacker.example' });
    expect(cross).toEqual({ status: 403, json: { error: 'requests from another web site are refused' } });
    expect((await control('POST', 'reset', undefined, { origin: emu.url })).status).toBe(200);
    expect((await control('GET', 'messages', undefined, { host: `localhost:${emu.port}` })).status).toBe(200);
  });

  it('refuses a POST another site\'s page sends without an Origin (Sec-Fetch-Site), as /service/ does; a token or --cors does not let it in', async () => {
    emu = await startTestEmulator({ controlToken: 'tok-123456789', cors: ['http://localhost:3000'] });
    const token = { authorization: 'Bearer tok-123456789' };
    for (const site of ['cross-site', 'same-site']) {
      const r = await control('POST', 'faults', { rate: 0.5 }, { ...token, 'sec-fetch-site': site });
      expect(r, site).toEqual({ status: 403, json: { error: 'requests from another web site are refused' } });
      // The same request to /service/ is refused the same way.
      expect((await emu.raw('POST', `/service/User/GetOwnBalance?${serviceQuery(emu.key)}`, '', { 'sec-fetch-site': site })).status, site).toBe(403);
    }
    // A --cors origin's page is let into /service/, not into the test bench.
    const corsPage = await control('POST', 'faults', { rate: 0.5 }, { ...token, origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' });
    expect(corsPage).toEqual({ status: 403, json: { error: 'requests from another web site are refused' } });
    expect((await control('GET', 'faults', undefined, token)).json).toMatchObject({ rate: 0 });
    // The inspector's own pages, a URL typed in the browser, and programs (no such header) go on; so does a cross-site read.
    for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Array<Record<string, string>>) {
      expect((await control('POST', 'faults', { rate: 0 }, { ...token, ...headers })).status, JSON.stringify(headers)).toBe(200);
    }
    expect((await control('GET', 'messages', undefined, { ...token, 'sec-fetch-site': 'cross-site' })).status).toBe(200);
  });

  it('with a control token: nothing without it, everything with it', async () => {
    emu = await startTestEmulator({ controlToken: 'tok-123456789' });
    const without = await control('GET', 'messages');
    expect(without.status).toBe(401);
    expect(without.json.error).toMatch(/control token/);
    expect((await control('GET', 'messages', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await control('GET', 'messages', undefined, { authorization: 'Bearer tok-123456789' })).status).toBe(200);
    // A browser opens the inspector once with ?token= and keeps a cookie.
    const opened = await request(`${emu.url}/?token=tok-123456789`);
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe('/');
    const cookie = String(opened.headers['set-cookie']).split(';')[0];
    expect(String(opened.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await request(`${emu.url}/`, { headers: { cookie } })).statusCode).toBe(200);
    expect((await request(`${emu.url}/`)).statusCode).toBe(401);
  });

  it('with a control token: says whether none was given or the one given is not it, and never echoes it', async () => {
    emu = await startTestEmulator({ controlToken: 'tok-123456789' });
    const said = async (headers: Record<string, string>, path = 'messages') => {
      const r = await control('GET', path, undefined, headers);
      expect(r.status).toBe(401);
      expect(JSON.stringify(r.json)).not.toContain('wrong-tok');
      return r.json.error;
    };
    expect(await said({})).toBe('this needs the control token, and none was given: send the header "Authorization: Bearer <token>", or open the inspector once with ?token=<token>');
    expect(await said({ authorization: 'Bearer wrong-tok' })).toBe(
      "the token in the Authorization header is not the control token (serve's --control-token or SMSLINK_CONTROL_TOKEN): send that one",
    );
    expect(await said({ authorization: 'wrong-tok' })).toMatch(/^this needs the control token, and the Authorization header gives none \(it must be "Bearer <token>"\)/);
    expect(await said({ cookie: 'smslink_control=wrong-tok' })).toBe(
      "the token this browser kept (cookie smslink_control) is not the control token (serve's --control-token or SMSLINK_CONTROL_TOKEN): open the inspector again with ?token=<token>",
    );
    expect(await said({}, 'messages?token=wrong-tok')).toMatch(/^the control API takes the control token in the header "Authorization: Bearer <token>", not as \?token=/);
    // A page opened with a ?token= that is not it.
    const page = await request(`${emu.url}/?token=wrong-tok`);
    const html = await page.body.text();
    expect(page.statusCode).toBe(401);
    expect(html).toContain('the ?token= given is not the control token');
    expect(html).not.toContain('wrong-tok');
  });

  it('on another address: off without a token', () => {
    const req = (headers: Record<string, string>, method = 'GET') => ({ headers, method }) as unknown as IncomingMessage;
    expect(refusal(makeGate('0.0.0.0', undefined), req({ host: '192.0.2.1:8080' }))?.status).toBe(403);
    expect(refusal(makeGate('0.0.0.0', 'tok-123456789'), req({ host: '192.0.2.1:8080' }))?.status).toBe(401);
    expect(refusal(makeGate('0.0.0.0', 'tok-123456789'), req({ host: '192.0.2.1:8080', authorization: 'Bearer tok-123456789' }))).toBeNull();
    expect(refusal(makeGate('::1', undefined), req({ host: '[::1]:8080' }))).toBeNull();
  });
});
