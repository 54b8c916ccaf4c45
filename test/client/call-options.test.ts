// A call's own options (the last argument of every method): its signal ends
// that call only, its timeoutMs and retries hold for that call only, and a
// bad one is refused as the client's options are, with nothing sent. Against
// the emulator over a socket (its faults stall or slow the answer), through
// both HTTP clients, and the recording server where what was sent counts.
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, SmsLinkClient, TransportError, type SmsLinkClientOptions } from '../../src/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

let emu: TestEmulator;
let linkId: number;
let clients: SmsLinkClient[] = [];

beforeAll(async () => {
  emu = await startTestEmulator();
  const c = new SmsLinkClient({ baseUrl: emu.url, apiKey: emu.key });
  linkId = (await c.createLink({ fullLink: 'https://example.com/per-call' })).id;
  await c.close();
});
afterAll(() => emu.close());
afterEach(async () => {
  await emu.emulator.setFaults(0);
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

/** What a promise came to: its value, or what it rejected with. */
const settled = (p: Promise<unknown>) => p.catch((e: unknown) => e);

describe.each(['node', 'undici'] as const)('over %s', (httpClient) => {
  const client = (extra: Partial<SmsLinkClientOptions> = {}) => {
    const c = new SmsLinkClient({ baseUrl: emu.url, apiKey: emu.key, retryBaseDelayMs: 5, httpClient, ...extra });
    clients.push(c);
    return c;
  };
  /** The emulator holds every answer from now on; resolves once it holds `n` requests. */
  const stalled = (n: number) => expect.poll(() => emu.emulator.faultCounts().stall, { timeout: 10_000 }).toBeGreaterThanOrEqual(n);

  it("a call's own signal ends that call, with its reason as the cause; the others go on, and the client still works", async () => {
    await emu.emulator.setFaults(1, 'stall');
    const stallsBefore = emu.emulator.faultCounts().stall;
    const c = client();
    const first = new AbortController();
    const second = new AbortController();
    const gone = new Error('the web request went away');
    const a = settled(c.getLink({ id: linkId }, { signal: first.signal }));
    const b = settled(c.getLink({ id: linkId }, { signal: second.signal }));
    await stalled(stallsBefore + 2);
    first.abort(gone);
    const err = (await a) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'aborted', outcomeUnknown: false, message: 'Link/Get: interrupted' });
    expect(err.cause).toBe(gone);
    // The other call is still waiting for its answer: the first signal did not end it.
    expect(await Promise.race([b, Promise.resolve('pending')])).toBe('pending');
    second.abort();
    expect(((await b) as TransportError).cause).toMatchObject({ name: 'AbortError' });

    // The same client, its calls' signals both aborted, answers the next call.
    await emu.emulator.setFaults(0);
    await expect(c.getLink({ id: linkId })).resolves.toMatchObject({ id: linkId, fullLink: 'https://example.com/per-call' });
  });

  it('one signal given to many calls at once ends them all, through one listener on it (Node warns past 10)', async () => {
    await emu.emulator.setFaults(1, 'stall');
    const stallsBefore = emu.emulator.faultCounts().stall;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const c = client();
      const page = new AbortController();
      const calls = Array.from({ length: 16 }, () => settled(c.getLink({ id: linkId }, { signal: page.signal })));
      await stalled(stallsBefore + 16);
      expect(getEventListeners(page.signal, 'abort')).toHaveLength(1);
      const reason = new Error('the page was closed');
      page.abort(reason);
      for (const err of await Promise.all(calls)) expect(err).toMatchObject({ kind: 'aborted', cause: reason });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it("the client's own signal still ends a call that has a signal of its own", async () => {
    await emu.emulator.setFaults(1, 'stall');
    const stallsBefore = emu.emulator.faultCounts().stall;
    const shutdown = new AbortController();
    const c = client({ signal: shutdown.signal });
    const pending = settled(c.getLink({ id: linkId }, { signal: new AbortController().signal, timeoutMs: 60_000 }));
    await stalled(stallsBefore + 1);
    const reason = new Error('shutting down');
    shutdown.abort(reason);
    expect(await pending).toMatchObject({ kind: 'aborted', cause: reason });
  });

  it("a call's own signal ends its wait before a retry: nothing more is sent", async () => {
    // A 503 that asks for 30 s before the retry: longer than the test may take, were the wait not ended.
    const busy = await startRecordingServer();
    busy.respond(() => ({ status: 503, headers: { 'retry-after': '30' }, body: 'busy' }));
    try {
      const c = client({ baseUrl: busy.url, retryMaxDelayMs: 30_000 });
      const ac = new AbortController();
      const pending = settled(c.getLink({ id: linkId }, { signal: ac.signal }));
      await expect.poll(() => busy.requests.length, { timeout: 10_000 }).toBe(1);
      ac.abort(new Error('enough'));
      const err = (await pending) as TransportError;
      expect(err).toMatchObject({ kind: 'aborted', outcomeUnknown: false, details: { attempts: 1 } });
      expect((err.cause as Error).message).toBe('enough');
      expect(busy.requests).toHaveLength(1);
    } finally {
      await busy.close();
    }
  });

  it("a call's timeoutMs ends that call; the client's own limit holds for the next", async () => {
    await emu.emulator.setFaults(1, 'stall');
    const c = client({ timeoutMs: 1_500, retries: 0 });
    const short = (await settled(c.getLink({ id: linkId }, { timeoutMs: 200 }))) as TransportError;
    expect(short).toBeInstanceOf(TransportError);
    expect(short).toMatchObject({ kind: 'timeout', details: { attempts: 1 } });
    expect(short.message).toBe('Link/Get: no answer within the 0.2 s timeout (the timeoutMs option)');
    const usual = (await settled(c.getLink({ id: linkId }))) as TransportError;
    expect(usual).toMatchObject({ kind: 'timeout' });
    expect(usual.message).toBe('Link/Get: no answer within the 1.5 s timeout (the timeoutMs option)');
  });

  it("a call's retries replace the client's for that call", async () => {
    await emu.emulator.setFaults(1, 'stall');
    const c = client({ timeoutMs: 200, retries: 0 });
    const err = (await settled(c.getLink({ id: linkId }, { retries: 1 }))) as TransportError;
    expect(err).toMatchObject({ kind: 'timeout', details: { attempts: 2 } });
    expect(err.message).toBe('Link/Get: no answer within the 0.2 s timeout (the timeoutMs option) after 2 attempts');
  });

  it("a call's timeoutMs longer than the client's gives a slow answer the time it needs", async () => {
    // Every answer comes 2 s late: later than the client's limit, well within the call's. (Long enough for undici's
    // coarse timers: when its agent's own limits were the client's, they ended the call's attempt at the client's.)
    await emu.emulator.setFaults(1, 'latency:2000-2000ms');
    const c = client({ timeoutMs: 300, retries: 0 });
    await expect(c.getLink({ id: linkId })).rejects.toMatchObject({ kind: 'timeout' });
    await expect(c.getLink({ id: linkId }, { timeoutMs: 20_000 })).resolves.toMatchObject({ id: linkId });
  });
});

describe('options a call cannot mean', () => {
  let server: RecordingServer;
  let c: SmsLinkClient;
  beforeAll(async () => {
    server = await startRecordingServer();
    c = new SmsLinkClient({ baseUrl: server.url, apiKey: 'CallKey0123456789' });
  });
  afterAll(async () => {
    await c.close();
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got 0)'],
    [{ timeoutMs: Number(undefined) }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got NaN)'],
    [{ timeoutMs: 3_000_000_000 }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got 3000000000)'],
    [{ retries: -1 }, 'retries must be a whole number, 0 or more (got -1)'],
    [{ retries: 0.5 }, 'retries must be a whole number, 0 or more (got 0.5)'],
  ])('%o is refused with the words of the constructor, and nothing is sent', async (bad, message) => {
    for (const call of [() => c.getLink({ id: 1 }, bad), () => c.getBalance(undefined, bad), () => c.sendMessage({ recipient: '77011234567', text: 'x' }, bad)]) {
      const err = await settled(call());
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({ message, kind: 'usage' });
    }
    // The constructor says the same of the same value.
    expect(() => new SmsLinkClient({ baseUrl: server.url, apiKey: 'CallKey0123456789', ...bad })).toThrow(message);
    expect(server.requests).toHaveLength(0);
  });

  it('a timeoutMs given as text is refused, by the types and when called', async () => {
    // @ts-expect-error timeoutMs is a number of milliseconds
    const err = await settled(c.getLink({ id: 1 }, { timeoutMs: '5000' }));
    expect(err).toMatchObject({ name: 'ConfigError', message: 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got "5000")' });
    expect(server.requests).toHaveLength(0);
  });

  it('a signal aborted before the call sends nothing, its reason the cause', async () => {
    const reason = new Error('already gone');
    const err = await settled(c.sendMessage({ recipient: '77011234567', text: 'x' }, { signal: AbortSignal.abort(reason) }));
    expect(err).toMatchObject({ kind: 'aborted', outcomeUnknown: false, cause: reason });
    expect(server.requests).toHaveLength(0);
  });

  it('a method whose input may be left out takes options after an input left out, and works with no arguments', async () => {
    await expect(c.getBalance()).resolves.toEqual({ balance: 100, currency: 'KZT' });
    await expect(c.getBalance(undefined, { timeoutMs: 5_000, retries: 0 })).resolves.toEqual({ balance: 100, currency: 'KZT' });
    await expect(c.listLinks({}, { signal: new AbortController().signal })).resolves.toMatchObject({ totalItemCount: 2 });
    expect(server.requests.map((r) => r.path)).toEqual(['/service/User/GetOwnBalance', '/service/User/GetOwnBalance', '/service/Link/List']);
  });
});
