// The one seam between the client and HTTP: send(request, signal) resolves
// with the whole answer, or rejects. Node's http/https (node-http.ts), undici
// (undici.ts) and the emulator in this process (src/emulator/in-process.ts)
// implement it; transport.ts picks one. Retries, timeouts and the envelope
// are the client's, never a send's.

export interface HttpRequest {
  /** Full URL, the API key in its query: never shown (PreparedRequest.redactedUrl is). */
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body decoded as UTF-8 (a byte order mark dropped). */
  text: string;
}

/**
 * Sends one request. A send that fails before any byte of the request left
 * this machine (no connection yet, aborted before writing) rejects with an
 * error whose `nothingSent` is true: then even Link/Create may be retried.
 * The signal aborts it (Ctrl-C, or the client's per-attempt timeout).
 */
export type Send = (request: HttpRequest, signal: AbortSignal) => Promise<HttpResponse>;

/** A send with the connections it keeps open: close() once nothing is in flight, or destroy() at once. */
export interface Transport {
  send: Send;
  close?(): Promise<void>;
  destroy?(): void;
}

/** Marks an error as one that happened before anything was sent. */
export const notSent = (err: unknown): Error => Object.assign(err instanceof Error ? err : new Error(String(err)), { nothingSent: true });

/** Answers are small JSON envelopes; anything bigger than this is refused, not buffered. */
const MAX_BODY = 16 * 1024 * 1024;

/** Collects an answer's chunks; its text as undici's body.text(): UTF-8, a byte order mark dropped. */
export class Body {
  #chunks: Buffer[] = [];
  #size = 0;

  /** Adds a chunk; an error when the answer is larger than any envelope. */
  push(chunk: Buffer): Error | undefined {
    this.#chunks.push(chunk);
    return (this.#size += chunk.length) > MAX_BODY ? new Error(`answer larger than ${MAX_BODY} bytes`) : undefined;
  }

  text(): string {
    const body = Buffer.concat(this.#chunks);
    return body.toString('utf8', body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0);
  }
}

/** Node's own HTTP client starts fastest; undici spends less CPU per request once started (bulk runs). Proxies use undici. */
export type HttpClient = 'node' | 'undici';

export interface ProxyEnv {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export interface TransportOptions {
  baseUrl: URL;
  /** Loopback hosts are reached directly: through a proxy the key of a plain http:// URL would travel in clear. */
  direct: boolean;
  /** --proxy; otherwise HTTPS_PROXY/HTTP_PROXY/NO_PROXY, from proxyEnv or process.env. */
  proxy?: string;
  proxyEnv?: ProxyEnv;
  /** Extra CA certificates, trusted besides Node's roots. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  timeoutMs: number;
  httpClient: HttpClient;
}
