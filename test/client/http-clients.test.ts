// The two HTTP clients behind the client's send() (src/client/node-http.ts,
// Node's own; src/client/undici.ts for bulk runs and proxies) must be
// interchangeable: the same answers reach the client, a client's requests
// share one connection, and an answer cut short is never taken for a whole one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SmsLinkClient, TransportError } from '../../src/index.js';
import { nodeHttpTransport } from '../../src/client/node-http.js';
import type { Transport } from '../../src/client/send.js';
import { undiciTransport } from '../../src/client/undici.js';
import { sendOnce } from '../helpers/send.js';

const LINK = { id: '1', code: 'abcd', shortLink: 'http://s/abcd', fullLink: 'https://e.com', status: '1' };

let server: Server;
let url: string;
/** Connections the server has seen, and how each request is answered. */
let sockets: Socket[] = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
let clients: SmsLinkClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  sockets = [];
});

const ok = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 0, data: LINK, message: '' }));

/** One Link/Get through a transport, answered in full. */
const exchange = (t: Transport, origin: string) =>
  sendOnce(t.send, { url: `${origin}/service/Link/Get?x=1`, method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'id=1' });

describe.each(['node', 'undici'] as const)('over %s', (httpClient) => {
  const client = () => {
    const c = new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', retryBaseDelayMs: 5, timeoutMs: 2000, httpClient });
    clients.push(c);
    return c;
  };

  it("a client's requests reuse its keep-alive connections", async () => {
    answer = (_req, res) => ok(res);
    const c = client();
    for (let i = 0; i < 10; i++) await c.getLink({ id: 1 });
    // undici's pool may open a second connection while the first is being marked free.
    expect(sockets.length).toBeLessThanOrEqual(2);
  });

  it('an answer cut short of its length is retried for a read, and unknown for a create', async () => {
    let n = 0;
    answer = (_req, res) => {
      if (n++ > 0) return ok(res);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"code":0,"data":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    await expect(client().getLink({ id: 1 })).resolves.toMatchObject({ id: 1, code: 'abcd' });
    expect(n).toBe(2);
    n = 0;
    const err = await client()
      .createLink({ fullLink: 'https://e.com' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'connection', outcomeUnknown: true });
    expect(n).toBe(1);
  });
  it('a connection whose TLS handshake never ends times out by the timeout; a create is retried, nothing having been sent', async () => {
    // Accepts, then says nothing: no certificate ever comes.
    const silent = createTcpServer((socket) => socket.on('error', () => {}));
    let connections = 0;
    silent.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const c = new SmsLinkClient({
        baseUrl: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        apiKey: 'HttpKey0123456789',
        timeoutMs: 300,
        retries: 1,
        retryBaseDelayMs: 5,
        httpClient,
      });
      clients.push(c);
      // The silent server never completes the handshake: only the timeout ends each attempt.
      const err = await c.createLink({ fullLink: 'https://e.com' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect(err).toMatchObject({ kind: 'timeout', details: { outcomeUnknown: false, attempts: 2 } });
      expect((err as Error).message).toContain('no answer within the 0.3 s timeout (the timeoutMs option) after 2 attempts');
      expect(connections).toBe(2);
    } finally {
      silent.close();
    }
  });

  it('a header Node refuses fails the call, and close() still returns', async () => {
    const c = new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', retries: 0, userAgent: 'smslink\r\nX-Injected: 1', httpClient });
    await expect(c.getLink({ id: 1 })).rejects.toBeInstanceOf(TransportError);
    await c.close();
    expect(sockets).toHaveLength(0);
  });
});

describe("Node's HTTP client behind send()", () => {
  let node: Transport | undefined;
  afterEach(() => node?.destroy?.());

  it('hands the client what undici does: status, header names and values, body', async () => {
    answer = (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('RETRY-AFTER', '3');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('x-Custom-HEADER', 'v');
      res.writeHead(503).end('{"busy":true}');
    };
    node = await nodeHttpTransport({ secure: false });
    const undici = await undiciTransport({ direct: true, timeoutMs: 2_000 });
    try {
      const [viaNode, viaUndici] = [await exchange(node, url), await exchange(undici, url)];
      expect(viaNode).toEqual(viaUndici);
      expect(viaNode).toMatchObject({ status: 503, text: '{"busy":true}', headers: { 'retry-after': '3', 'set-cookie': ['a=1', 'b=2'] } });
    } finally {
      await undici.close?.();
    }
  });

  it('an answer slower than the idle timeout still arrives; an idle connection is then closed', async () => {
    answer = (_req, res) => setTimeout(() => ok(res), 300);
    node = await nodeHttpTransport({ secure: false, keepAliveTimeoutMs: 100 });
    const got = await exchange(node, url);
    expect(JSON.parse(got.text)).toMatchObject({ code: 0, data: { id: '1' } });
    expect(sockets).toHaveLength(1);
    // Closed by the client once idle for 100 ms: the test would time out waiting otherwise.
    await new Promise<void>((resolve) => sockets[0].once('close', () => resolve()));
  });

  it('refuses a request for another protocol than its own', async () => {
    node = await nodeHttpTransport({ secure: false });
    await expect(exchange(node, url.replace('http:', 'https:'))).rejects.toThrow('this client sends http: requests, not https:');
  });
});

describe.each(['node', 'undici'] as const)('closing a client over %s', (httpClient) => {
  it('close() lets a request in flight finish', async () => {
    let served = 0;
    answer = (_req, res) => {
      served += 1;
      setTimeout(() => ok(res), 100);
    };
    const c = new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', httpClient });
    const inFlight = c.getLink({ id: 1 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const closing = c.close();
    await expect(inFlight).resolves.toMatchObject({ id: 1 });
    await closing;
    expect(served).toBe(1);
  });

  it('close() called twice returns both times', async () => {
    answer = (_req, res) => setTimeout(() => ok(res), 50);
    const c = new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', httpClient });
    const inFlight = c.getLink({ id: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([c.close(), c.close(), inFlight]);
  });
});

describe("a caller's own dispatcher", () => {
  it('carries the requests, with the retry policy, and close() leaves it open', async () => {
    const { Agent } = await import('undici');
    const agent = new Agent();
    let n = 0;
    answer = (_req, res) => (n++ === 0 ? res.writeHead(503).end('busy') : ok(res));
    try {
      const c = new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', retryBaseDelayMs: 5, dispatcher: agent });
      await expect(c.getLink({ id: 1 })).resolves.toMatchObject({ id: 1, code: 'abcd' });
      expect(n).toBe(2);
      await c.close();
      // Still the caller's: it sends the next request.
      await expect(new SmsLinkClient({ baseUrl: url, apiKey: 'HttpKey0123456789', dispatcher: agent }).getLink({ id: 1 })).resolves.toMatchObject({ id: 1 });
    } finally {
      await agent.close();
    }
  });
});
