// Sends prepared requests over undici. One keep-alive agent serves every
// request of a client; the retry interceptor (retry.ts) is composed onto it
// twice, once for safe and once for unsafe operations, sharing the same
// connections. undici is imported on first use, so commands that send
// nothing never load it.
//
// undici is CommonJS: its default export (module.exports) is what both Node
// and the bundled bin provide (scripts/bundle.mjs swaps in
// scripts/undici-cli.js, a smaller entry of the same shape), so only the
// default export and the public Dispatcher API (dispatcher.dispatch) are used
// here.

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
export async function createAgent(opts: DispatcherOptions): Promise<Dispatcher> {
  const { default: undici } = await import('undici');
  const tls = opts.ca ? { ca: await trustedCas(opts.ca) } : {};
  const connect = { timeout: opts.timeoutMs, ...tls };
  const common = {
    connect,
    keepAliveTimeout: 4_000,
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

type Controller = Dispatcher.DispatchController;

/**
 * Receives the answer of one request. The retry interceptor hands on only
 * the final attempt, already buffered (and a 2xx one already decoded and
 * parsed), so this just collects it: what dispatcher.request() would add (a
 * response stream, headers turned back into raw buffers and parsed again)
 * took about 7% of the CPU time of a bulk run. Aborts on the signal like
 * request() does: at once when the request has started, else as soon as it
 * starts.
 */
class AnswerHandler implements ReadAnswerHandler {
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #read: ReadAnswer | undefined;
  #controller: Controller | null = null;
  readonly #onAbort = () => this.#controller?.abort(this.signal!.reason ?? new Error('aborted'));

  constructor(
    private readonly resolve: (answer: Omit<RawResponse, 'ms'>) => void,
    private readonly reject: (err: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    if (this.signal?.aborted) this.#onAbort();
  }

  onAnswerRead(answer: ReadAnswer): void {
    this.#read = answer;
  }

  onResponseStart(_c: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.signal?.removeEventListener('abort', this.#onAbort);
    const answer = { status: this.#status, headers: this.#headers };
    // Text that parsed as JSON has no byte order mark to take off.
    if (this.#read?.json !== undefined) return this.resolve({ ...answer, text: this.#read.text, json: this.#read.json });
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    // A UTF-8 byte order mark is not part of the text (as undici's body.text() reads it).
    const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    this.resolve({ ...answer, text: body.toString('utf8', start) });
  }

  onResponseError(_c: Controller, err: Error): void {
    this.signal?.removeEventListener('abort', this.#onAbort);
    this.reject(err);
  }
}

export class Transport {
  readonly #safe: Dispatcher;
  readonly #unsafe: Dispatcher;
  /** The last request URL split for undici: a bulk run sends thousands of requests to one. */
  #target = { url: '', origin: '', path: '' };

  constructor(
    readonly agent: Dispatcher,
    readonly policy: RetryOptions,
    private readonly userAgent: string,
  ) {
    this.#safe = agent.compose(retryInterceptor(true, policy));
    this.#unsafe = agent.compose(retryInterceptor(false, policy));
  }

  async send(req: PreparedRequest, idempotent: boolean, signal?: AbortSignal): Promise<RawResponse> {
    if (this.#target.url !== req.url) {
      const url = new URL(req.url);
      this.#target = { url: req.url, origin: url.origin, path: `${url.pathname}${url.search}` };
    }
    const { origin, path } = this.#target;
    const started = performance.now();
    try {
      const dispatcher = idempotent ? this.#safe : this.#unsafe;
      const answer = await new Promise<Omit<RawResponse, 'ms'>>((resolve, reject) => {
        const options: Dispatcher.DispatchOptions = {
          origin,
          path,
          method: req.method,
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
            accept: 'application/json',
            'user-agent': this.userAgent,
          },
          body: req.body,
        };
        dispatcher.dispatch(options, new AnswerHandler(resolve, reject, signal));
      });
      return { ...answer, ms: performance.now() - started };
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
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : code ? `connection failed (${code})` : 'connection failed';
    const detail = e instanceof Error && !code ? `: ${redact(e.message)}` : '';
    return new TransportError(req.operation, 'connection', `${req.operation}: ${reason} by ${host}${detail}${tries}`, { outcomeUnknown, attempts });
  }
}
