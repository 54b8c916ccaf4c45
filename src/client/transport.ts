// Sends prepared requests through a dispatcher (undici's dispatch() API):
// one keep-alive agent serves every request of a client (or a dispatcher
// given to the client, such as the sandbox's emulator in this process), with
// the retry interceptor (retry.ts) composed onto it twice, once for safe and
// once for unsafe operations. The agent is Node's own HTTP client behind that
// API (node-http.ts), or undici's for proxies and for many requests (bulk
// runs); each is imported on first use, so commands that send nothing load
// neither. Only dispatch() is used, with a handler that collects the (small)
// answer.
//
// undici is CommonJS: its default export (module.exports) is what both Node
// and the bundled bin provide (scripts/bundle.mjs swaps in
// scripts/undici-cli.js, a smaller entry of the same shape), so only the
// default export and the public Dispatcher API are used here.

import type { Dispatcher } from 'undici';
import { TransportError } from './errors.js';
import type { PreparedRequest } from './request.js';
import { isCertificateError, retryInterceptor, type ReadAnswer, type ReadAnswerHandler, type RetryOptions } from './retry.js';
import { redact } from '../secrets.js';

export interface ProxyEnv {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export interface DispatcherOptions {
  /** Explicit proxy URL (--proxy); otherwise HTTPS_PROXY/HTTP_PROXY/NO_PROXY are honoured. */
  proxy?: string;
  /** Proxy variables to use instead of process.env. */
  proxyEnv?: ProxyEnv;
  /** Connect directly, never through a proxy (loopback hosts: the key must not travel to a proxy in clear). */
  direct?: boolean;
  /** Extra CA certificates (PEM) trusted besides Node's bundled roots. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  timeoutMs: number;
  /** The base URL's protocol is https:. */
  secure: boolean;
  /** The HTTP client of a connection without a proxy (SmsLinkClientOptions.httpClient). */
  httpClient: HttpClient;
}

/**
 * Node's own HTTP client starts in a few milliseconds (its parser is native,
 * its code in Node's own cache). A first request through undici costs more:
 * ~15 ms when measured before its code was in the bin's compile cache, ~2-3
 * ms since, nearly all of it reading, compiling and first running its
 * WebAssembly parser. Then undici spends ~10% less CPU per request (a
 * bulk run of 10,000 rows: 2.7 s of CPU against 3.0 s). Proxies need undici.
 */
export type HttpClient = 'node' | 'undici';

/** A dispatcher the client created, and so closes. */
export type OwnedDispatcher = DispatchTarget & { close(): Promise<void>; destroy(err: Error): Promise<void> };

/** Whether a request would go through a proxy: --proxy, or a proxy variable (NO_PROXY is undici's to apply). */
function mayUseProxy(opts: DispatcherOptions): boolean {
  if (opts.direct) return false;
  if (opts.proxy) return true;
  const env = opts.proxyEnv ?? {
    httpProxy: process.env.HTTP_PROXY ?? process.env.http_proxy,
    httpsProxy: process.env.HTTPS_PROXY ?? process.env.https_proxy,
  };
  return Boolean(opts.secure ? env.httpsProxy || env.httpProxy : env.httpProxy);
}

/** Trusted CAs: Node's bundled roots plus the given PEMs (TLS `ca` replaces the defaults, so they are listed). */
async function trustedCas(extra: string | Buffer | ReadonlyArray<string | Buffer>): Promise<Array<string | Buffer>> {
  const tls = await import('node:tls');
  return [...tls.rootCertificates, ...(Array.isArray(extra) ? extra : [extra as string | Buffer])];
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The text parsed as JSON, when the retry interceptor already did (undefined otherwise). */
  json?: unknown;
  ms: number;
}

/** Creates the run's agent. Certificate verification is always on. */
export async function createAgent(opts: DispatcherOptions): Promise<OwnedDispatcher> {
  const cas = opts.ca ? await trustedCas(opts.ca) : undefined;
  if (opts.httpClient === 'node' && !mayUseProxy(opts)) {
    const { createNodeHttpDispatcher } = await import('./node-http.js');
    return createNodeHttpDispatcher({ secure: opts.secure, ca: cas, connectTimeoutMs: opts.timeoutMs });
  }
  const { default: undici } = await import('undici');
  const tls = cas ? { ca: cas } : {};
  const connect = { timeout: opts.timeoutMs, ...tls };
  const common = {
    connect,
    keepAliveTimeout: 4_000,
    // Node's default (http.maxHeaderSize), given so that undici need not load node:http to read it.
    maxHeaderSize: 16 * 1024,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  };
  if (opts.direct) return new undici.Agent(common);
  if (opts.proxy) return new undici.ProxyAgent({ uri: opts.proxy, ...common, requestTls: tls, proxyTls: tls });
  const env = opts.proxyEnv;
  // Empty strings (not undefined) keep undici from falling back to process.env.
  const proxied = { ...common, requestTls: tls, proxyTls: tls };
  return new undici.EnvHttpProxyAgent(env ? { ...proxied, httpProxy: env.httpProxy ?? '', httpsProxy: env.httpsProxy ?? '', noProxy: env.noProxy ?? '' } : proxied);
}

/** What the transport needs of a dispatcher: any undici Dispatcher has it. */
export type DispatchTarget = Pick<Dispatcher, 'dispatch'>;

export class Transport {
  readonly #safe: Dispatcher['dispatch'];
  readonly #unsafe: Dispatcher['dispatch'];
  /** The last request URL split for undici: a bulk run sends thousands of requests to one. */
  #target = { url: '', origin: '', path: '' };
  /** The same headers on every request (undici reads them, never changes them). */
  readonly #headers: Record<string, string>;

  constructor(
    dispatcher: DispatchTarget,
    readonly policy: RetryOptions,
    userAgent: string,
    /** host:port of the explicit proxy every request goes through, to name it when it cannot be reached. */
    private readonly proxy?: string,
  ) {
    // What Dispatcher.compose() does, without needing a Dispatcher: the handlers here are of undici's current API.
    const dispatch: Dispatcher['dispatch'] = (opts, handler) => dispatcher.dispatch(opts, handler);
    this.#safe = retryInterceptor(true, policy)(dispatch);
    this.#unsafe = retryInterceptor(false, policy)(dispatch);
    this.#headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json', 'user-agent': userAgent };
  }

  async send(req: PreparedRequest, idempotent: boolean, signal?: AbortSignal): Promise<RawResponse> {
    if (this.#target.url !== req.url) {
      const url = new URL(req.url);
      this.#target = { url: req.url, origin: url.origin, path: `${url.pathname}${url.search}` };
    }
    const { origin, path } = this.#target;
    // Date.now(), not performance.now(): the first use of `performance` loads perf_hooks (~10 modules).
    const started = Date.now();
    try {
      const dispatch = idempotent ? this.#safe : this.#unsafe;
      const answer = await new Promise<RawResponse>((resolve, reject) => {
        const handler = new Collector(signal, resolve, reject);
        try {
          dispatch({ origin, path, method: req.method, headers: this.#headers, body: req.body }, handler);
        } catch (err) {
          handler.onResponseError(null, err as Error);
        }
      });
      answer.ms = Date.now() - started;
      return answer;
    } catch (err) {
      throw this.#describe(req, err, idempotent, signal);
    }
  }

  #describe(req: PreparedRequest, err: unknown, idempotent: boolean, signal?: AbortSignal): TransportError {
    const e = err as Error & { code?: string; cause?: { code?: string }; nothingSent?: boolean; attempts?: number };
    const code = e?.code ?? e?.cause?.code;
    const attempts = e?.attempts ?? 1;
    const outcomeUnknown = !idempotent && e?.nothingSent !== true;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    if (signal?.aborted) {
      return new TransportError(req.operation, 'aborted', `${req.operation}: interrupted`, { outcomeUnknown, attempts });
    }
    if (code === 'SMSLINK_ATTEMPT_TIMEOUT' || /TIMEOUT/.test(code ?? '')) {
      const seconds = `${Math.round(this.policy.attemptTimeoutMs / 100) / 10} s`;
      return new TransportError(req.operation, 'timeout', `${req.operation}: no answer within the ${seconds} timeout (--timeout)${tries}`, {
        outcomeUnknown,
        attempts,
      });
    }
    const host = new URL(req.url).host;
    if (isCertificateError(code)) {
      return new TransportError(
        req.operation,
        'connection',
        `${req.operation}: the TLS certificate of ${host} could not be verified (${code}); if it is signed by a private CA, pass --ca-file or set NODE_EXTRA_CA_CERTS`,
        { outcomeUnknown: false, attempts },
      );
    }
    if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && !this.proxy) {
      const why = code === 'EAI_AGAIN' ? ' (the DNS lookup failed for now: EAI_AGAIN)' : '';
      return new TransportError(req.operation, 'connection', `${req.operation}: could not resolve host ${new URL(req.url).hostname}${why}${tries}`, { outcomeUnknown: false, attempts });
    }
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : code ? `connection failed (${code})` : 'connection failed';
    const detail = e instanceof Error && !code ? `: ${redact(e.message)}` : '';
    // Through a proxy, a socket error is the proxy's: a target it cannot reach comes back as its HTTP answer.
    const by = this.proxy && code ? `the proxy ${this.proxy} (--proxy), on the way to ${host}` : host;
    return new TransportError(req.operation, 'connection', `${req.operation}: ${reason} by ${by}${detail}${tries}`, { outcomeUnknown, attempts });
  }
}

/**
 * Collects one answer for send(): the retry interceptor below it buffers
 * every attempt and hands over only the final one, whole (and a 2xx one
 * already decoded and parsed, onAnswerRead). What dispatcher.request() would
 * add (a response stream, headers turned back into raw buffers and parsed
 * again) took about 7% of the CPU time of a bulk run. The caller's signal
 * aborts the request in flight, or before it starts.
 */
class Collector implements ReadAnswerHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #status = 0;
  #headers: RawResponse['headers'] = {};
  #chunks: Buffer[] = [];
  #settled = false;
  #read: ReadAnswer | undefined;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (answer: RawResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    if (!signal) return;
    this.#onAbort = () => this.#controller?.abort(signal.reason);
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason);
  }

  onAnswerRead(answer: ReadAnswer): void {
    this.#read = answer;
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: RawResponse['headers']): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    // Text that parsed as JSON has no byte order mark to take off.
    if (this.#read?.json !== undefined) return this.resolve({ status: this.#status, headers: this.#headers, text: this.#read.text, json: this.#read.json, ms: 0 });
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    // As undici's body.text(): UTF-8, a byte order mark skipped.
    const bom = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
    this.resolve({ status: this.#status, headers: this.#headers, text: body.toString('utf8', bom ? 3 : 0), ms: 0 });
  }

  onResponseError(_c: Dispatcher.DispatchController | null, err: Error): void {
    if (this.#settle()) this.reject(err);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    if (this.#onAbort) this.signal!.removeEventListener('abort', this.#onAbort);
    return true;
  }
}
