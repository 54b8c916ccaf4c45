// Reading the emulator's inbox from the library, as a test of an app does:
// the app sends through the service API over a real socket (the typed
// client), the test asserts with messages() and waitForMessage(), which
// pick and show messages as GET /_emulator/messages does.
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxTimeoutError, ManualClock, openEmulatorInProcess, startEmulator, type InboxMessage, type RunningEmulator } from '../../src/emulator/index.js';
import { SmsLinkClient } from '../../src/index.js';
import { TEST_START } from '../helpers/emulator.js';

let emulator: RunningEmulator | undefined;
let app: SmsLinkClient | undefined;
afterEach(async () => {
  await app?.close();
  await emulator?.close();
  app = emulator = undefined;
});

/** An emulator on a free port with a manual clock, and the app's client pointed at it. */
async function start(): Promise<{ emulator: RunningEmulator; app: SmsLinkClient; clock: ManualClock }> {
  const clock = new ManualClock(TEST_START);
  emulator = await startEmulator({ port: 0, apiKeys: ['app-key-0000', 'other-key-0000'], clock });
  app = new SmsLinkClient({ baseUrl: emulator.url, apiKey: 'app-key-0000', retries: 0 });
  return { emulator, app, clock };
}

/** Whether a promise is still pending after the event loop has run what it had. */
async function pending(p: Promise<unknown>): Promise<boolean> {
  const mark = Symbol('pending');
  return (await Promise.race([p.catch(() => undefined), new Promise((resolve) => setTimeout(() => resolve(mark), 50))])) === mark;
}

describe('messages()', () => {
  it('lists what the app sent, newest first, as the control API lists it', async () => {
    const { emulator, app, clock } = await start();
    await app.sendMessage({ recipient: '+77011234567', text: 'Your code is 4711' });
    clock.advance(60_000);
    await app.sendMessage({ recipient: '+77019990000', text: 'Rejected one' });
    clock.advance(2_000);

    const all = await emulator.messages();
    expect(all.map((m) => m.text)).toEqual(['Rejected one', 'Your code is 4711']);
    const [newest, older] = all;
    expect(newest).toMatchObject({ to: '77019990000', status: 'REJECTD', account: 1, segments: 1, encoding: 'GSM-7', segUserBuy: 0.01, price: 0.01 });
    expect(older).toMatchObject({ to: '77011234567', from: 'SMSLINK', status: 'DELIVRD', createdAt: '2025-01-15 10:00:00', countryA2: 'KZ', operatorName: 'Kcell' });
    expect(older.timeline).toEqual([
      { status: 'NEW', at: '2025-01-15 10:00:00' },
      { status: 'ENQUEUD', at: '2025-01-15 10:00:01' },
      { status: 'ACCEPTD', at: '2025-01-15 10:00:02' },
      { status: 'DELIVRD', at: '2025-01-15 10:00:05' },
    ]);
    // The very records GET /_emulator/messages answers, field for field.
    const http = (await (await request(`${emulator.url}/_emulator/messages`)).body.json()) as { messages: InboxMessage[] };
    expect(all).toEqual(http.messages);
  });

  it('filters by part of the number, part of the text, a start time and a count, as the control API does', async () => {
    const { emulator, app, clock } = await start();
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 4711' });
    clock.advance(3_600_000);
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 9999' });
    await app.sendMessage({ recipient: '998901234567', text: 'Salom' });
    const texts = async (filter: Parameters<RunningEmulator['messages']>[0]) => (await emulator.messages(filter)).map((m) => m.text);
    expect(await texts({ to: '+7701' })).toEqual(['Your code is 9999', 'Your code is 4711']);
    expect(await texts({ to: '+7 701 123 45 67', text: '4711' })).toEqual(['Your code is 4711']);
    expect(await texts({ since: new Date(TEST_START + 1_800_000) })).toEqual(['Salom', 'Your code is 9999']);
    expect(await texts({ since: '2025-01-15 10:30:00' })).toEqual(['Salom', 'Your code is 9999']);
    expect(await texts({ limit: 1 })).toEqual(['Salom']);
    for (const query of ['to=%2B7701', 'text=4711', 'since=2025-01-15%2010:30:00', 'limit=1']) {
      const http = (await (await request(`${emulator.url}/_emulator/messages?${query}`)).body.json()) as { messages: InboxMessage[] };
      const [name, value] = decodeURIComponent(query).split('=');
      expect(await emulator.messages({ [name]: name === 'limit' ? Number(value) : value }), query).toEqual(http.messages);
    }
  });

  it('returns [] when the filter matches nothing', async () => {
    const { emulator, app } = await start();
    expect(await emulator.messages({ to: '77011234567' })).toEqual([]);
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 4711' });
    expect(await emulator.messages({ to: '77019999999' })).toEqual([]);
    expect(await emulator.messages({ to: '77011234567', text: 'password' })).toEqual([]);
    expect(await emulator.messages({ since: '2025-01-16' })).toEqual([]);
  });

  it('refuses a bad filter with the field and its rule, the control API\'s words', async () => {
    const { emulator } = await start();
    const refused = (filter: unknown) => emulator.messages(filter as never).catch((err: Error) => `${err.name}: ${err.message}`);
    expect(await refused({ limit: 0 })).toBe('RangeError: limit: invalid value 0: must be a whole number from 1 to 1000');
    expect(await refused({ limit: 2.5 })).toBe('RangeError: limit: invalid value 2.5: must be a whole number from 1 to 1000');
    expect(await refused({ to: 'mum' })).toBe('RangeError: to: invalid value "mum": must be digits (part of a number)');
    expect(await refused({ since: 'yesterday' })).toBe('RangeError: since: invalid value "yesterday": must be YYYY-MM-DD HH:MM:SS (in UTC) or an ISO 8601 time');
    expect(await refused({ since: new Date('nope') })).toMatch(/^RangeError: since: invalid value: an Invalid Date/);
    // A misspelt field would pick every message: it is refused instead.
    expect(await refused({ recipient: '77011234567' })).toBe('RangeError: messages: "recipient" is not a filter; it takes to, text, since, limit');
    expect(await refused('77011234567')).toBe('TypeError: messages: the filter must be an object such as { to: \'+77011234567\' } (got "77011234567")');
    // The control API says the same of the same values.
    const http = await request(`${emulator.url}/_emulator/messages?to=mum`);
    expect(await http.body.json()).toEqual({ error: 'to: invalid value "mum": must be digits (part of a number)' });
  });
});

describe('waitForMessage()', () => {
  it('resolves with the message as soon as the app sends it; one to another number does not answer it', async () => {
    const { emulator, app } = await start();
    const waiting = emulator.waitForMessage({ to: '+77011234567', text: 'code' });
    await app.sendMessage({ recipient: '77019999999', text: 'Your code is 2222' });
    await app.sendMessage({ recipient: '77011234567', text: 'Welcome' });
    expect(await pending(waiting)).toBe(true);
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 4711' });
    const message = await waiting;
    expect(message).toMatchObject({ id: 3, to: '77011234567', text: 'Your code is 4711', status: 'NEW' });
    expect(message).toEqual((await emulator.messages({ to: '77011234567', text: 'code' }))[0]);
  });

  it('resolves at once with the newest match already there', async () => {
    const { emulator, app, clock } = await start();
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 1234' });
    clock.advance(1000);
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 5678' });
    expect((await emulator.waitForMessage({ to: '77011234567' }, { timeoutMs: 0 })).text).toBe('Your code is 5678');
    // A start time leaves the earlier messages out.
    clock.advance(1000);
    const later = emulator.waitForMessage({ to: '77011234567', since: '2025-01-15 10:00:02' });
    expect(await pending(later)).toBe(true);
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 9012' });
    expect((await later).text).toBe('Your code is 9012');
  });

  it('rejects with InboxTimeoutError naming the filter and the time waited when none came', async () => {
    const { emulator, app } = await start();
    await app.sendMessage({ recipient: '77011234567', text: 'Welcome' });
    const err = await emulator.waitForMessage({ to: '+77011234567', text: 'code' }, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InboxTimeoutError);
    expect(err).toMatchObject({ name: 'InboxTimeoutError', filter: { to: '+77011234567', text: 'code' }, timeoutMs: 300 });
    expect((err as Error).message).toBe('waitForMessage: no message matching {"to":"+77011234567","text":"code"} came within 300 ms');
    const none = await emulator.waitForMessage({ text: 'code' }, { timeoutMs: 0 }).catch((e: Error) => e.message);
    expect(none).toBe('waitForMessage: no message matching {"text":"code"} is there (timeoutMs 0: no wait)');
  });

  it('ends when its signal aborts, with the signal\'s reason; an aborted signal ends it before it waits', async () => {
    const { emulator, app } = await start();
    const stop = new AbortController();
    const waiting = emulator.waitForMessage({ to: '77011234567' }, { signal: stop.signal });
    expect(await pending(waiting)).toBe(true);
    const reason = new Error('the test is over');
    stop.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(emulator.waitForMessage({ to: '77011234567' }, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    // Nothing is left waiting: a message sent now is found by a new wait at once.
    await app.sendMessage({ recipient: '77011234567', text: 'Your code is 4711' });
    expect((await emulator.waitForMessage({ to: '77011234567' }, { timeoutMs: 0 })).text).toBe('Your code is 4711');
  });

  it('refuses a bad timeout or filter before it waits, naming it', async () => {
    const { emulator } = await start();
    const refused = (filter: unknown, options: unknown) => emulator.waitForMessage(filter as never, options as never).catch((err: Error) => err.message);
    expect(await refused({}, { timeoutMs: -1 })).toBe('timeoutMs: invalid value -1: must be a number of milliseconds from 0 to 300000');
    expect(await refused({}, { timeoutMs: 300_001 })).toBe('timeoutMs: invalid value 300001: must be a number of milliseconds from 0 to 300000');
    expect(await refused({}, { timeoutMs: '5s' })).toBe('timeoutMs: invalid value "5s": must be a number of milliseconds from 0 to 300000');
    expect(await refused({ limit: 5 }, {})).toBe('waitForMessage: "limit" is not a filter; it takes to, text, since');
    expect(await refused({ to: 'mum' }, {})).toBe('to: invalid value "mum": must be digits (part of a number)');
    expect(await refused({ to: 77011234567 }, {})).toBe("to: invalid value 77011234567: must be a string of digits (part of a number), such as '+77011234567'");
  });

  it('ends when the emulator closes, and neither method reads a closed emulator', async () => {
    const { emulator: running } = await start();
    const waiting = running.waitForMessage({ to: '77011234567' }).catch((e: Error) => e.message);
    expect(await pending(waiting)).toBe(true);
    await running.close();
    emulator = undefined;
    expect(await waiting).toBe('waitForMessage: the emulator closed before a message matching {"to":"77011234567"} came');
    await expect(running.messages()).rejects.toThrow('messages: the emulator is closed');
    await expect(running.waitForMessage({ to: '77011234567' })).rejects.toThrow('waitForMessage: the emulator is closed');
  });

  it('says the emulator is closed when a test resets, moves, delivers or arms faults after close()', async () => {
    const { emulator: running } = await start();
    await running.close();
    emulator = undefined;
    const after = (call: () => Promise<unknown>) => call().then(
      (value) => ({ value }),
      (err: Error) => err.message,
    );
    expect(await after(() => running.reset())).toBe('reset: the emulator is closed');
    expect(await after(() => running.advance(5))).toBe('advance: the emulator is closed');
    expect(await after(() => running.deliver())).toBe('deliver: the emulator is closed');
    expect(await after(() => running.setFaults(1, 'code30'))).toBe('setFaults: the emulator is closed');
    await running.close();
  });
});

describe('the emulator in this process', () => {
  it('reads what the client sent through its send(), and waits for it alike', async () => {
    const local = openEmulatorInProcess({ apiKeys: ['k'], clock: new ManualClock(TEST_START) });
    const client = new SmsLinkClient({ baseUrl: local.url, apiKey: 'k', send: local.send });
    try {
      const waiting = local.waitForMessage({ to: '77011234567' });
      expect(await pending(waiting)).toBe(true);
      await client.sendMessage({ recipient: '+77011234567', text: 'Your code is 4711' });
      expect(await waiting).toMatchObject({ to: '77011234567', text: 'Your code is 4711', account: 1, status: 'NEW' });
      expect((await local.messages({ text: '4711' })).map((m) => m.id)).toEqual([1]);
      expect(await local.messages({ text: 'nothing like it' })).toEqual([]);
    } finally {
      await client.close();
      await local.close();
    }
  });
});
