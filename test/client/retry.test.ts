// The retry policy over real sockets: what is retried, what is never resent,
// and what is reported as unknown, through both HTTP clients the client can
// use (Node's own, and undici for bulk runs and proxies).
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ConfigError, SmsLinkClient, TransportError } from '../../src/index.js';
import { retryDelay, parseRetryAfter, type RetryOptions } from '../../src/client/retry.js';

type Behaviour = 'ok' | 'code30' | 'code999' | '502' | '500' | '503' | 'reset' | 'stall' | 'truncated';

const OK_BODY: Record<string, unknown> = {
  '/service/Link/Get': { id: '1', code: 'abcd', shortLink: 'http://s/abcd', fullLink: 'https://e.com', status: '1' },
  '/service/Link/Create': { id: '1', code: 'abcd', shortLink: 'http://s/abcd' },
  '/service/Message/SendSmsMessage': { campaignId: '1', messageId: '2', status: 2 },
};

let servers: Server[] = [];
let clients: SmsLinkClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  servers = [];
  clients = [];
});

/** A server that plays the given behaviours in turn (then 'ok') and counts requests. */
async function faultyServer(script: Behaviour[], headers: Record<string, string> = {}) {
  let hits = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behaviour = script[hits++] ?? 'ok';
      const path = (req.url ?? '').split('?')[0];
      const envelope = (code: number, data: unknown = null) => JSON.stringify({ code, data, message: '' });
      switch (behaviour) {
        case 'ok':
          return res.writeHead(200, { 'content-type': 'application/json' }).end(envelope(0, OK_BODY[path] ?? true));
        case 'code30':
          return res.writeHead(200, headers).end(envelope(30));
        case 'code999':
          return res.writeHead(200).end(envelope(999));
        case '500':
        case '502':
          return res.writeHead(Number(behaviour), { 'content-type': 'text/html' }).end('<html>gateway</html>');
        case '503':
          return res.writeHead(503, headers).end('busy');
        case 'reset':
          return req.socket.destroy();
        case 'stall':
          return undefined;
        case 'truncated': {
          const full = envelope(0, OK_BODY[path]);
          return res.writeHead(200, { 'content-type': 'application/json' }).end(full.slice(0, full.length / 2));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits: () => hits };
}

function makeClient(url: string, extra: Partial<ConstructorParameters<typeof SmsLinkClient>[0]> = {}) {
  const retries: string[] = [];
  const c = new SmsLinkClient({ baseUrl: url, apiKey: 'RetryKey', retryBaseDelayMs: 5, retryMaxDelayMs: 50, timeoutMs: 2000, onRetry: (r) => retries.push(r.reason), ...extra });
  clients.push(c);
  return { c, retries };
}

describe.each(['node', 'undici'] as const)('over %s', (httpClient) => {
  const client = (url: string, extra: Partial<ConstructorParameters<typeof SmsLinkClient>[0]> = {}) => makeClient(url, { httpClient, ...extra });

  describe('safe operations are retried', () => {
    it.each<Behaviour>(['code30', 'code999', '500', '502', '503', 'reset', 'truncated'])('after %s', async (fault) => {
      const s = await faultyServer([fault, fault]);
      const { c, retries } = client(s.url);
      await expect(c.getLink({ id: 1 })).resolves.toMatchObject({ id: 1 });
      expect(s.hits()).toBe(3);
      expect(retries).toHaveLength(2);
    });

    it('after a stalled answer, each attempt bounded by the timeout', async () => {
      const s = await faultyServer(['stall']);
      const { c } = client(s.url, { timeoutMs: 200 });
      // The stalled answer never comes: only the timeout ends the first attempt.
      await expect(c.getLink({ id: 1 })).resolves.toMatchObject({ id: 1 });
      expect(s.hits()).toBe(2);
    });

    it('gives up after --retries and reports the last failure', async () => {
      const s = await faultyServer(['502', '502', '502', '502', '502']);
      const { c } = client(s.url, { retries: 2 });
      const err = (await c.getLink({ id: 1 }).catch((e: unknown) => e)) as TransportError;
      expect(err).toBeInstanceOf(TransportError);
      expect(err.status).toBe(502);
      expect(s.hits()).toBe(3);
    });

    it('retries 0 means one attempt', async () => {
      const s = await faultyServer(['503']);
      const { c } = client(s.url, { retries: 0 });
      await expect(c.getLink({ id: 1 })).rejects.toMatchObject({ status: 503 });
      expect(s.hits()).toBe(1);
    });

    it('honours Retry-After', async () => {
      const s = await faultyServer(['503'], { 'retry-after': '1' });
      const { c } = client(s.url, { retryMaxDelayMs: 5000 });
      const started = Date.now();
      await c.getLink({ id: 1 });
      // A lower bound a busy machine cannot break: the wait asked for lies between the two readings.
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    });
  });

  describe('create and send are never resent blindly', () => {
    it.each<Behaviour>(['500', '502', 'reset', 'truncated'])('%s after the request reached the service: one attempt, outcome unknown', async (fault) => {
      const s = await faultyServer([fault]);
      const { c } = client(s.url);
      const err = (await c.sendMessage({ recipient: '77011234567', text: 'x' }).catch((e: unknown) => e)) as TransportError;
      expect(err).toBeInstanceOf(TransportError);
      expect(err.outcomeUnknown).toBe(true);
      expect(s.hits()).toBe(1);
    });

    it('a stalled send times out once and is unknown', async () => {
      const s = await faultyServer(['stall']);
      const { c } = client(s.url, { timeoutMs: 200 });
      const err = (await c.createLink({ fullLink: 'https://e.com' }).catch((e: unknown) => e)) as TransportError;
      expect(err).toMatchObject({ kind: 'timeout', outcomeUnknown: true });
      expect(err.message).toContain('Link/Create: no answer within the 0.2 s timeout');
      expect(s.hits()).toBe(1);
    });

    it('503 on a send is not retried (the client cannot know nothing was done)', async () => {
      const s = await faultyServer(['503']);
      const { c } = client(s.url);
      await expect(c.sendMessage({ recipient: '77011234567', text: 'x' })).rejects.toMatchObject({ status: 503 });
      expect(s.hits()).toBe(1);
    });

    it('code 30 is retried: the service did nothing', async () => {
      const s = await faultyServer(['code30', 'code30']);
      const { c } = client(s.url);
      await expect(c.sendMessage({ recipient: '77011234567', text: 'x' })).resolves.toEqual({ campaignId: 1, messageId: 2, status: 2 });
      expect(s.hits()).toBe(3);
    });

    it('code 999 on a create is not retried and its outcome is unknown', async () => {
      const s = await faultyServer(['code999']);
      const { c } = client(s.url);
      const err = await c.createLink({ fullLink: 'https://e.com' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 999, outcomeUnknown: true });
      expect(s.hits()).toBe(1);
    });

    it('a refused connection is retried: nothing was sent', async () => {
      const tcp = createTcpServer();
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      const port = (tcp.address() as AddressInfo).port;
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      const { c, retries } = client(`http://127.0.0.1:${port}`, { retries: 2 });
      const err = (await c.sendMessage({ recipient: '77011234567', text: 'x' }).catch((e: unknown) => e)) as TransportError;
      expect(err).toMatchObject({ kind: 'connection', outcomeUnknown: false });
      expect(err.message).toContain('connection refused');
      expect(retries).toEqual(['connection error (ECONNREFUSED)', 'connection error (ECONNREFUSED)']);
    });
  });

  describe('interrupting', () => {
    it("the signal's reason is the error's cause: an app's own shutdown, its deadline, a call made after the abort", async () => {
      const s = await faultyServer(['stall', '503', 'stall']);
      const shutdown = new Error('shutting down');
      const ac = new AbortController();
      const { c } = client(s.url, { signal: ac.signal });
      const pending = c.sendMessage({ recipient: '77011234567', text: 'x' }).catch((e: unknown) => e);
      await expect.poll(() => s.hits(), { timeout: 10_000 }).toBe(1);
      ac.abort(shutdown);
      const err = (await pending) as TransportError;
      expect(err).toBeInstanceOf(TransportError);
      expect(err).toMatchObject({ kind: 'aborted', outcomeUnknown: true, message: 'Message/SendSmsMessage: interrupted' });
      expect(err.cause).toBe(shutdown);
      // The cause is no property of the error's JSON, which stays as it was.
      expect(JSON.parse(JSON.stringify(err))).not.toHaveProperty('cause');
      // A call made after the abort sends nothing and says why too.
      expect(((await c.getLink({ id: 1 }).catch((e: unknown) => e)) as TransportError).cause).toBe(shutdown);
      expect(s.hits()).toBe(1);

      // AbortSignal.timeout(): its TimeoutError, here ending the wait between attempts (after a 503 that asked for 30 s).
      const s2 = await faultyServer(['503', '503'], { 'retry-after': '30' });
      const { c: waiting } = client(s2.url, { signal: AbortSignal.timeout(300), retryMaxDelayMs: 30_000 });
      const backoff = (await waiting.getLink({ id: 1 }).catch((e: unknown) => e)) as TransportError;
      expect(backoff).toMatchObject({ kind: 'aborted', outcomeUnknown: false });
      expect((backoff.cause as Error).name).toBe('TimeoutError');
      expect(s2.hits()).toBe(1);
    });

    it('an abort during the backoff wait ends the call at once', async () => {
      const s = await faultyServer(['503', '503', '503'], { 'retry-after': '30' });
      const ac = new AbortController();
      const { c } = client(s.url, { signal: ac.signal, retryMaxDelayMs: 30_000 });
      const pending = c.getLink({ id: 1 }).catch((e: unknown) => e);
      await expect.poll(() => s.hits(), { timeout: 10_000 }).toBe(1);
      ac.abort();
      // Without the abort the call would wait the 30 s the server asked for, longer than the test may take.
      expect(await pending).toMatchObject({ kind: 'aborted' });
      expect(s.hits()).toBe(1);
    });

    it('an abort while the answer is awaited ends the call at once; the outcome of a send is unknown', async () => {
      const s = await faultyServer(['stall', 'stall']);
      for (const [call, outcomeUnknown] of [
        [(c: SmsLinkClient) => c.getLink({ id: 1 }), false],
        [(c: SmsLinkClient) => c.sendMessage({ recipient: '77011234567', text: 'x' }), true],
      ] as const) {
        const ac = new AbortController();
        const { c } = client(s.url, { signal: ac.signal });
        const pending = call(c).catch((e: unknown) => e);
        setTimeout(() => ac.abort(), 200);
        // The stalled answer never comes (a timeout would say `timeout`, not `aborted`).
        expect(await pending).toMatchObject({ kind: 'aborted', outcomeUnknown });
      }
    });

    it('a signal aborted before the call sends nothing', async () => {
      const s = await faultyServer([]);
      const ac = new AbortController();
      ac.abort();
      const { c } = client(s.url, { signal: ac.signal });
      expect(await c.getLink({ id: 1 }).catch((e: unknown) => e)).toMatchObject({ kind: 'aborted' });
      expect(s.hits()).toBe(0);
    });
  });
});

describe('backoff', () => {
  const opts: RetryOptions = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000, attemptTimeoutMs: 1, random: () => 0.999 };
  it('grows exponentially under a cap, with full jitter', () => {
    const err = { kind: 'error', nothingSent: false, timeout: false } as const;
    expect([1, 2, 3, 4, 5].map((a) => retryDelay(true, err, a, opts))).toEqual([99, 199, 399, 799, 999]);
    expect(retryDelay(true, err, 1, { ...opts, random: () => 0 })).toBe(0);
    expect(retryDelay(true, err, 6, opts)).toBeNull();
  });
  it('waits at least Retry-After, and gives up when it asks for more than a minute', () => {
    expect(retryDelay(true, { kind: 'status', status: 429, retryAfterMs: 700 }, 1, { ...opts, random: () => 0 })).toBe(700);
    expect(retryDelay(true, { kind: 'status', status: 429, retryAfterMs: 30_000 }, 1, opts)).toBe(30_000);
    expect(retryDelay(true, { kind: 'status', status: 429, retryAfterMs: 120_000 }, 1, opts)).toBeNull();
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
  });
});

describe('limits that cannot mean what they say', () => {
  // Number(process.env.X) of a variable left unset is NaN; 0 is "no limit" to many HTTP libraries.
  // Taken as they came, each made every attempt time out at once ("no answer within the NaN s timeout"), four times over.
  it.each([
    [{ timeoutMs: Number(undefined) }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got NaN)'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got 0)'],
    [{ timeoutMs: -5 }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got -5)'],
    [{ timeoutMs: 3_000_000_000 }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got 3000000000)'],
    [{ timeoutMs: '5000' as unknown as number }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got "5000")'],
    [{ timeoutMs: { seconds: 5 } as unknown as number }, 'timeoutMs must be a number of milliseconds from 1 to 2147483647 (got a mapping)'],
    [{ retries: -1 }, 'retries must be a whole number, 0 or more (got -1)'],
    [{ retries: 1.5 }, 'retries must be a whole number, 0 or more (got 1.5)'],
    [{ retryBaseDelayMs: Number.NaN }, 'retryBaseDelayMs must be a number of milliseconds from 0 to 2147483647 (got NaN)'],
    [{ retryMaxDelayMs: Infinity }, 'retryMaxDelayMs must be a number of milliseconds from 0 to 2147483647 (got Infinity)'],
  ])('%o is refused when the client is made, naming the option and its rule', async (bad, message) => {
    const { url, hits } = await faultyServer([]);
    let err: unknown;
    try {
      const c = new SmsLinkClient({ baseUrl: url, apiKey: 'RetryKey', ...bad });
      clients.push(c);
      await c.getLink({ id: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(message);
    expect((err as ConfigError).kind).toBe('usage');
    expect(hits()).toBe(0);
  });

  it('takes the limits at their edges', async () => {
    const { url } = await faultyServer([]);
    const { c } = makeClient(url, { timeoutMs: 2 ** 31 - 1, retries: 0, retryBaseDelayMs: 0, retryMaxDelayMs: 0 });
    await expect(c.getLink({ id: 1 })).resolves.toMatchObject({ id: 1, code: 'abcd' });
  });
});
