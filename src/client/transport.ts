// The client's connections: which transport a client opens (Node's http/https,
// or undici for proxies and on request), and its lifecycle: opened on the
// first request, closed once the requests in flight are answered, or dropped
// at once when the process is about to exit.

import type { DispatchTarget } from './undici.js';
import type { Send, Transport, TransportOptions } from './send.js';

/** Whether a request would go through a proxy: --proxy, or a proxy variable (NO_PROXY is undici's to apply). */
function mayUseProxy(o: TransportOptions): boolean {
  if (o.direct) return false;
  if (o.proxy) return true;
  const env = o.proxyEnv ?? { httpProxy: process.env.HTTP_PROXY ?? process.env.http_proxy, httpsProxy: process.env.HTTPS_PROXY ?? process.env.https_proxy };
  return Boolean(o.baseUrl.protocol === 'https:' ? env.httpsProxy || env.httpProxy : env.httpProxy);
}

/** The transport a client creates for itself: Node's http/https, or undici for proxies and on request. */
export async function openTransport(o: TransportOptions): Promise<Transport> {
  // TLS `ca` replaces Node's roots, so they are listed with the extra ones.
  const ca = o.ca ? [...(await import('node:tls')).rootCertificates, ...(Array.isArray(o.ca) ? o.ca : [o.ca as string | Buffer])] : undefined;
  if (o.httpClient === 'node' && !mayUseProxy(o)) {
    const { nodeHttpTransport } = await import('./node-http.js');
    return nodeHttpTransport({ secure: o.baseUrl.protocol === 'https:', ca });
  }
  const { undiciTransport } = await import('./undici.js');
  return undiciTransport({ ...o, ca });
}

/** How a client reaches the service: a send of its own, a caller's dispatcher, or a transport it opens itself. */
export interface ConnectionOptions extends Omit<TransportOptions, 'baseUrl' | 'direct'> {
  baseUrl: string;
  send?: Send;
  dispatcher?: DispatchTarget;
  /** Loopback hosts are reached directly (isLoopbackHost). */
  isDirect(url: URL): boolean;
}

/** One client's transport, opened on first use; tracks the requests in flight so that close() can wait for them. */
export class Connection {
  #transport: Promise<Transport> | undefined;
  /** The transport once open: later requests need not wait a turn for it. */
  #ready: Transport | undefined;
  /** Requests sent and not yet answered (a retry waiting for its turn included). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** host:port of the --proxy every request goes through, to name it when it cannot be reached. */
  proxy: string | undefined;

  constructor(private readonly opts: ConnectionOptions) {}

  /** The send of the open transport (opening it first). */
  async send(): Promise<Send> {
    return (this.#ready ?? (await this.#open())).send;
  }

  /** Runs `work` as a request in flight: close() waits for it. */
  async track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    try {
      return await work;
    } finally {
      this.#inFlight.delete(work);
    }
  }

  /** Waits for the requests in flight, then closes the keep-alive connections. */
  async close(): Promise<void> {
    if (!this.#transport) return;
    const transport = await this.#transport;
    await Promise.allSettled(this.#inFlight);
    if (this.#transport === undefined) return;
    this.#transport = undefined;
    this.#ready = undefined;
    await transport.close?.();
  }

  /** Drops the keep-alive connections now (close() when a request is in flight). */
  async release(): Promise<void> {
    if (!this.#transport) return;
    const transport = await this.#transport;
    if (this.#inFlight.size > 0) return this.close();
    this.#transport = undefined;
    this.#ready = undefined;
    transport.destroy?.();
  }

  #open(): Promise<Transport> {
    this.#transport ??= (async () => {
      const o = this.opts;
      if (o.send) return (this.#ready = { send: o.send });
      if (o.dispatcher) {
        const { dispatchSend } = await import('./undici.js');
        return (this.#ready = { send: dispatchSend(o.dispatcher) });
      }
      const baseUrl = new URL(o.baseUrl);
      const options = { ...o, baseUrl, direct: o.isDirect(baseUrl), httpClient: o.httpClient };
      this.proxy = o.proxy && !options.direct ? new URL(o.proxy).host : undefined;
      return (this.#ready = await openTransport(options));
    })();
    return this.#transport;
  }
}
