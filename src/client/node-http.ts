// A dispatcher over Node's own HTTP client: undici's dispatch() with handlers
// of its current API (what the retry interceptor and the transport use), on
// one node:http or node:https keep-alive agent. A run that sends a request or
// a few goes through it: Node's HTTP parser is native, where undici's is
// WebAssembly compiled on the first answer, and node:http comes with Node's
// own code cache, so one request costs less than through undici (~2-3 ms in
// the bundled bin, whose compile cache holds undici's code; see HttpClient in
// transport.ts). Bulk runs and proxies use undici.

import type { Agent as HttpAgent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';

type Handler = Dispatcher.DispatchHandler;
type Headers = Record<string, string | string[] | undefined>;

export interface NodeHttpOptions {
  /** https: or http: (the one protocol of the base URL). */
  secure: boolean;
  /** Trusted CA certificates (https only; replaces Node's list, so it includes the roots). */
  ca?: Array<string | Buffer>;
  /** Time allowed to connect (name lookup and TLS handshake included); as undici's connect timeout. */
  connectTimeoutMs: number;
  /** Idle keep-alive connections are closed after this (below the usual 5 s of servers, as undici's default). */
  keepAliveTimeoutMs?: number;
}

/** What a handler may do with its request: abort it, or pause the answer. */
class Exchange implements Dispatcher.DispatchController {
  #reason: Error | null = null;
  #paused = false;
  req: ClientRequest | null = null;
  res: IncomingMessage | null = null;

  get aborted(): boolean {
    return this.#reason !== null;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason ?? new Error('the request was aborted');
    // An answer read whole is reported aborted when it ends; its connection, already handed back
    // to the agent, is left alone (destroying it then would raise an error nobody listens to).
    if (!this.res?.complete) this.req?.destroy(this.#reason);
  }
  pause(): void {
    this.#paused = true;
    this.res?.pause();
  }
  resume(): void {
    this.#paused = false;
    this.res?.resume();
  }
}

/**
 * Requests go out as undici's would: the handler's onRequestStart comes once
 * the connection is up (TLS included), right before anything is written, so
 * a request aborted there, or one whose connection failed or timed out, sent
 * nothing. Every dispatch ends in exactly one onResponseEnd or onResponseError.
 */
export class NodeHttpDispatcher implements Pick<Dispatcher, 'dispatch'> {
  /** Sockets whose connection is up (a reused keep-alive socket needs no wait). */
  readonly #connected = new WeakSet<Socket>();
  readonly #protocol: string;
  #closing: Promise<void> | null = null;
  #inFlight = 0;
  /** Called when the last request in flight settles (close() waits for it). */
  #drained: (() => void) | null = null;

  constructor(
    private readonly request: (options: RequestOptions) => ClientRequest,
    private readonly agent: HttpAgent,
    secure: boolean,
    private readonly connectTimeoutMs: number,
  ) {
    this.#protocol = secure ? 'https:' : 'http:';
  }

  dispatch(opts: Dispatcher.DispatchOptions, handler: Handler): boolean {
    const exchange = new Exchange();
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(connectTimer);
      if (--this.#inFlight === 0) this.#drained?.();
      return true;
    };
    const fail = (err: Error): void => {
      if (settle()) handler.onResponseError?.(exchange, exchange.reason ?? err);
    };
    this.#inFlight += 1;
    try {
      if (this.#closing) throw Object.assign(new Error('the client is closed'), { code: 'UND_ERR_CLOSED' });
      const origin = new URL(String(opts.origin));
      if (origin.protocol !== this.#protocol) throw new Error(`this dispatcher sends ${this.#protocol} requests, not ${origin.protocol}`);
      const body = opts.body === undefined || opts.body === null ? undefined : (opts.body as string | Uint8Array);
      const headers: Record<string, string | number> = { ...(opts.headers as Record<string, string>) };
      headers['content-length'] = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
      const req = this.request({
        agent: this.agent,
        protocol: this.#protocol,
        hostname: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port || undefined,
        method: opts.method,
        path: opts.path,
        headers,
      });
      exchange.req = req;
      req.on('error', fail);
      // Until the connection is up the handler has no controller: this bounds the lookup, connect and handshake.
      connectTimer = setTimeout(() => {
        req.destroy(Object.assign(new Error(`could not connect within ${this.connectTimeoutMs} ms`), { code: 'SMSLINK_CONNECT_TIMEOUT' }));
      }, this.connectTimeoutMs);
      const start = (): void => {
        clearTimeout(connectTimer);
        if (settled) return;
        handler.onRequestStart?.(exchange, {});
        if (exchange.aborted) return;
        req.end(body);
      };
      req.once('socket', (socket: Socket) => {
        if (this.#connected.has(socket)) return start();
        socket.once(this.#protocol === 'https:' ? 'secureConnect' : 'connect', () => {
          this.#connected.add(socket);
          start();
        });
      });
      req.once('response', (res: IncomingMessage) => {
        exchange.res = res;
        if (exchange.paused) res.pause();
        handler.onResponseStart?.(exchange, res.statusCode ?? 0, res.headers as Headers, res.statusMessage ?? '');
        res.on('data', (chunk: Buffer) => {
          if (!exchange.aborted) handler.onResponseData?.(exchange, chunk);
        });
        res.once('end', () => {
          if (exchange.aborted) return fail(exchange.reason!);
          if (settle()) handler.onResponseEnd?.(exchange, res.trailers as Headers);
        });
        // A connection lost before the answer ended is an error of the answer (ECONNRESET), never a short answer.
        res.on('error', fail);
      });
    } catch (err) {
      // A closed dispatcher, another protocol, or a header http.request() refuses: nothing was sent.
      process.nextTick(fail, err as Error);
      return false;
    }
    return true;
  }

  /** Refuses new requests, lets those in flight finish, then closes every connection. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      this.agent.destroy();
    })();
    return this.#closing;
  }

  /** Closes every connection now. */
  destroy(_err?: Error): Promise<void> {
    this.#closing ??= Promise.resolve();
    this.agent.destroy();
    return Promise.resolve();
  }
}

/** A dispatcher for one protocol, on its own keep-alive agent. */
export async function createNodeHttpDispatcher(opts: NodeHttpOptions): Promise<NodeHttpDispatcher> {
  const mod = opts.secure ? await import('node:https') : await import('node:http');
  const agent = new mod.Agent({ keepAlive: true, timeout: opts.keepAliveTimeoutMs ?? 4_000, ...(opts.ca ? { ca: opts.ca } : {}) });
  return new NodeHttpDispatcher(mod.request, agent, opts.secure, opts.connectTimeoutMs);
}
