// The control API for tests that wait on an app: GET /_emulator/messages
// with wait= (a long poll, answered when a matching message is stored),
// POST /_emulator/messages/status (one message's fate chosen), and the
// health checks livez and readyz. Over HTTP on 127.0.0.1.
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startTestEmulator, TOOK, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator | undefined;
let other: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  await other?.close();
  emu = other = undefined;
});

async function control(method: 'GET' | 'POST' | 'HEAD', path: string, body?: unknown, headers: Record<string, string> = {}, url = emu!.url) {
  const res = await request(`${url}/_emulator/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

const send = (to: string, text: string, extra: Record<string, unknown> = {}) => emu!.call('Message/SendSmsMessage', { recipient: to, text, ...extra });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /_emulator/messages?wait=', () => {
  it('holds the answer until a matching message is stored: one sent 2 s later answers it', async () => {
    emu = await startTestEmulator();
    await send('77015550000', 'Your code is 1111');
    let sent = false;
    const waiting = control('GET', 'messages?to=77011234567&text=code&wait=30s').then((r) => ({ ...r, sentBefore: sent }));
    await sleep(1000);
    // A message to another number does not answer it.
    await send('77019999999', 'Your code is 2222');
    await sleep(1000);
    sent = true;
    await send('77011234567', 'Your code is 4711');
    const { status, json, sentBefore } = await waiting;
    expect(sentBefore).toBe(true);
    expect(status).toBe(200);
    expect(json).toMatchObject({ total: 1, timedOut: false });
    expect(json.messages).toEqual([expect.objectContaining({ to: '77011234567', text: 'Your code is 4711', status: 'NEW' })]);
  });

  it('answers at once when a match is already there, with every match, newest first', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'Your code is 1234');
    emu.clock.advance(1000);
    await send('77011234567', 'Your code is 5678');
    const { json } = await control('GET', 'messages?to=%2B77011234567&wait=5m');
    expect(json).toMatchObject({ total: 2, timedOut: false });
    expect((json.messages as Array<{ text: string }>).map((m) => m.text)).toEqual(['Your code is 5678', 'Your code is 1234']);
    // A start time leaves the earlier messages out: only later ones answer.
    const later = await control('GET', 'messages?to=77011234567&since=2025-01-15%2010:00:01&wait=0');
    expect((later.json.messages as Array<{ text: string }>).map((m) => m.text)).toEqual(['Your code is 5678']);
  });

  it('answers with none and timedOut when the wait runs out, even past the time a request may take to arrive', async () => {
    emu = await startTestEmulator({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 400, checkIntervalMs: 100 } });
    const { status, json } = await control('GET', 'messages?to=77011234567&wait=1500ms');
    expect(status).toBe(200);
    expect(json).toEqual({ messages: [], total: 0, timedOut: true });
    expect((await control('GET', 'messages?to=77011234567&wait=0')).json).toEqual({ messages: [], total: 0, timedOut: true });
  });

  it('refuses a wait that is not a duration of at most 300 s, in words', async () => {
    emu = await startTestEmulator();
    for (const wait of ['soon', '301s', '-1', '6m', '1h']) {
      const r = await control('GET', `messages?wait=${encodeURIComponent(wait)}`);
      expect(r.status, wait).toBe(400);
      expect(r.json.error).toBe(`wait: invalid value "${wait}": must be a duration from 0 to 300s, such as 30s, 500ms or 2m (a bare number is seconds)`);
    }
    expect((await control('GET', 'messages?wait=2&limit=0')).json.error).toMatch(/^limit: invalid value "0"/);
  });

  it('holds at most 256 readers at once; one more is told to come back, and readers that hang up free their place', async () => {
    emu = await startTestEmulator();
    const hangUp = new AbortController();
    const held = Array.from({ length: 256 }, () =>
      request(`${emu!.url}/_emulator/messages?to=77011234567&wait=60s`, { signal: hangUp.signal }).catch((err: Error) => err),
    );
    // Every reader is waiting once the next one is refused.
    let refused = await control('GET', 'messages?to=77011234567&wait=60s');
    for (let i = 0; refused.status !== 503 && i < 100; i++) {
      await sleep(50);
      refused = await control('GET', 'messages?to=77011234567&wait=60s');
    }
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json.error).toBe('wait: too many requests are waiting already; try again in a second');
    hangUp.abort();
    await Promise.all(held);
    let again = await control('GET', 'messages?to=77011234567&wait=0.2');
    for (let i = 0; again.status !== 200 && i < 100; i++) {
      await sleep(50);
      again = await control('GET', 'messages?to=77011234567&wait=0.2');
    }
    expect(again.json).toEqual({ messages: [], total: 0, timedOut: true });
  });

  it('answers readers still waiting when the emulator closes, so stopping is not held up', async () => {
    emu = await startTestEmulator();
    const waiting = control('GET', 'messages?to=77011234567&wait=300s');
    await sleep(200);
    await emu.close();
    emu = undefined;
    expect((await waiting).json).toEqual({ messages: [], total: 0, timedOut: true });
  });

  it('is woken by a message another process writes to the same database file (a --sandbox command beside serve)', async () => {
    const dataDir = tempDir();
    other = await startEmulator({ port: 0, db: join(dataDir, 'sandbox.db'), apiKeys: ['sandbox'] });
    const waiting = control('GET', 'messages?to=77011234567&wait=30s', undefined, {}, other.url);
    await sleep(300);
    const sent = await runCli(['--sandbox', 'message', 'send', '--to', '+77011234567', '--text', 'Your code is 4711', '-q'], { env: { SMSLINK_DATA_DIR: dataDir } });
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const { json } = await waiting;
    expect(json).toMatchObject({ total: 1, timedOut: false, messages: [expect.objectContaining({ text: 'Your code is 4711' })] });
  });
});

describe('POST /_emulator/messages/status', () => {
  it('gives one message a final status now, as its lifecycle would: the service, the list and the request log see it', async () => {
    const lines: string[] = [];
    emu = await startTestEmulator({ requestLog: (line) => lines.push(line) });
    await send('77011234567', 'Your code is 4711');
    await send('77015550001', 'left alone');
    emu.clock.advance(1500);
    const { status, json } = await control('POST', 'messages/status', { id: 1, status: 'UNDELIV' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ changed: true, previousStatus: 'ENQUEUD', message: 'Message 1 is UNDELIV from 2025-01-15 10:00:01 (it was ENQUEUD)' });
    expect((json.sms as { timeline: unknown }).timeline).toEqual([
      { status: 'NEW', at: '2025-01-15 10:00:00' },
      { status: 'ENQUEUD', at: '2025-01-15 10:00:01' },
      { status: 'ACCEPTD', at: '2025-01-15 10:00:01' },
      { status: 'UNDELIV', at: '2025-01-15 10:00:01' },
    ]);
    // The service answers it with its times; the clock did not move, and later time changes nothing.
    emu.clock.advance(60_000);
    const statuses = (await emu.call('Message/GetSMSStatus', { ids: [1, 2] })).data;
    expect(statuses).toEqual([
      { id: '1', status: 'UNDELIV', segNum: '1', startSendTs: '2025-01-15 10:00:01', statusUpdateTs: '2025-01-15 10:00:01' },
      expect.objectContaining({ id: '2', status: 'DELIVRD' }),
    ]);
    const listed = (await emu.call('Message/List', { criteria: { status: 'UNDELIV' } })).data as { items: Array<{ id: string }> };
    expect(listed.items.map((m) => m.id)).toEqual(['1']);
    await sleep(100);
    const logged = new RegExp(String.raw`^2025-01-15 10:00:01 {2}POST \/_emulator\/messages\/status {2}200 {2}${TOOK}$`);
    expect(lines.some((l) => logged.test(l))).toBe(true);
  });

  it('rejects straight after ENQUEUD, brings a message not yet sent forward, and changes nothing when the status is already that', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'later', { params: { deferredToTs: '2025-01-15 12:00:00' } });
    const rejected = await control('POST', 'messages/status', { id: '1', status: 'rejectd' });
    expect(rejected.json).toMatchObject({ changed: true, previousStatus: 'NEW' });
    expect(rejected.json.sms).toMatchObject({ status: 'REJECTD', startSendTs: '2025-01-15 10:00:00', statusUpdateTs: '2025-01-15 10:00:00' });
    expect((rejected.json.sms as { timeline: Array<{ status: string }> }).timeline.map((t) => t.status)).toEqual(['NEW', 'ENQUEUD', 'REJECTD']);
    const again = await control('POST', 'messages/status', { id: 1, status: 'REJECTD' });
    expect(again.json).toMatchObject({ changed: false, previousStatus: 'REJECTD', message: 'Message 1 was REJECTD already; nothing changed' });
    // A final status gives way to another: a test decides.
    const delivered = await control('POST', 'messages/status', { id: 1, status: 'DELIVRD' });
    expect((delivered.json.sms as { timeline: Array<{ status: string }> }).timeline.map((t) => t.status)).toEqual(['NEW', 'ENQUEUD', 'ACCEPTD', 'DELIVRD']);
  });

  it('refuses an unknown message (404), a bad id or status (400), naming the field', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'one');
    expect(await control('POST', 'messages/status', { id: 99, status: 'UNDELIV' })).toMatchObject({ status: 404, json: { error: 'id: no message 99 (GET /_emulator/messages lists them)' } });
    expect(await control('POST', 'messages/status', { id: 'x', status: 'UNDELIV' })).toMatchObject({ status: 400, json: { error: 'id: invalid value "x": must be a message id (a whole number from 1)' } });
    expect(await control('POST', 'messages/status', { id: 1, status: 'ACCEPTD' })).toMatchObject({
      status: 400,
      json: { error: 'status: invalid value "ACCEPTD": must be a final status: DELIVRD, UNDELIV, REJECTD, EXPIRED' },
    });
    expect(await control('POST', 'messages/status', { id: 1 })).toMatchObject({ status: 400, json: { error: expect.stringMatching(/^status: none given: must be a final status/) } });
    expect((await control('GET', 'messages/status')).status).toBe(405);
    expect(((await control('GET', 'messages')).json.messages as Array<{ status: string }>)[0].status).toBe('NEW');
  });
});

describe('the inspector', () => {
  it('lists the control API under Controls, with a form for one message\'s status, and shows the change under Requests', async () => {
    emu = await startTestEmulator();
    await send('77011234567', 'one');
    const controls = await (await request(`${emu.url}/_emulator/controls`)).body.text();
    expect(controls).toContain('action="/_emulator/messages/status"');
    expect(controls).toContain('<option value="UNDELIV">undelivered (UNDELIV)</option>');
    for (const call of ['GET /_emulator/messages?to=…&amp;wait=30s', 'POST /_emulator/messages/status {&quot;id&quot;: 12, &quot;status&quot;: &quot;UNDELIV&quot;}', 'GET /_emulator/livez, /_emulator/readyz']) {
      expect(controls).toContain(call);
    }
    // The form as a browser without script sends it: back to the controls page.
    const form = await request(`${emu.url}/_emulator/messages/status`, { method: 'POST', body: 'id=1&status=EXPIRED', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(form.statusCode).toBe(303);
    await form.body.dump();
    expect(((await control('GET', 'messages')).json.messages as Array<{ status: string }>)[0].status).toBe('EXPIRED');
    const log = await (await request(`${emu.url}/_emulator/requests?op=control`)).body.text();
    expect(log).toContain('POST /_emulator/messages/status');
    expect(log).toContain('done (303)');
  });
});

describe('GET /_emulator/livez and /_emulator/readyz', () => {
  it('answer without the control token, on any Host, with the inspector off', async () => {
    emu = await startTestEmulator({ controlToken: 'tok-123456789', inspector: false });
    expect((await control('GET', 'messages')).status).toBe(401);
    expect(await control('GET', 'livez')).toMatchObject({ status: 200, json: { status: 'live' } });
    expect(await control('GET', 'readyz', undefined, { host: 'emulator.internal:8080' })).toMatchObject({ status: 200, json: { status: 'ready' } });
    expect((await control('HEAD', 'readyz')).status).toBe(200);
    expect(await control('POST', 'readyz', {})).toMatchObject({ status: 405, json: { error: 'POST is not used here: GET /_emulator/readyz' } });
  });
});
