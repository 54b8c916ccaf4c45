// SmsLinkClient: one typed method per operation of the catalog, made from
// the catalog's entries. Every call checks its input against the contract,
// builds the form request, sends it (send.ts) with retries, parses the
// envelope and normalises the data.

import { OPERATIONS } from '../catalog/index.js';
import type { LINK_OPERATIONS } from '../catalog/link.js';
import type { MESSAGE_OPERATIONS } from '../catalog/message.js';
import type { USER_OPERATIONS } from '../catalog/user.js';
import type { InputOf, OperationSpec, ResultOf, Shape } from '../catalog/types.js';
import { validateInput } from '../catalog/validate.js';
import { userAgent } from '../version.js';
import { dataOrThrow, parseEnvelope, type Envelope } from './envelope.js';
import { ApiError, ConfigError, describeFailure, TransportError, ValidationError } from './errors.js';
import { normalize } from './normalize.js';
import { buildRequest, encodeParams, type PreparedRequest } from './request.js';
import { answerOutcome, describeOutcome, failureOutcome, retryDelay, type Outcome, type RetryInfo, type RetryOptions } from './retry.js';
import { openTransport, type HttpClient, type ProxyEnv, type Send, type Transport } from './send.js';
import type { DispatchTarget } from './undici.js';
import { redact, registerSecret } from '../secrets.js';

export interface RequestEvent {
  operation: string;
  method: string;
  /** URL with the API key replaced by ***. */
  url: string;
  fields: Array<[string, string]>;
  status?: number;
  ms?: number;
  code?: number;
  error?: string;
}

export interface SmsLinkClientOptions {
  /** Base URL of the service (regional host), e.g. https://api.example.com. A path prefix is kept. */
  baseUrl: string;
  apiKey: string;
  /** Per-request time limit, connection included (each attempt). Default 30 000 ms. */
  timeoutMs?: number;
  /** Retries of safe operations (and of unsafe ones the service provably did not carry out). Default 3. */
  retries?: number;
  /** Backoff: first ceiling and cap in ms (full jitter). Defaults 250 and 8 000. */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Called before each retry (for --verbose). */
  onRetry?: (info: RetryInfo) => void;
  /** Allow sending the key over plain http:// to a host that is not loopback. Default false. */
  allowInsecureHttp?: boolean;
  /** Proxy URL; HTTPS_PROXY/HTTP_PROXY/NO_PROXY are honoured when absent. */
  proxy?: string;
  /** Proxy variables to honour instead of those in process.env. */
  proxyEnv?: ProxyEnv;
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /**
   * The HTTP client for a connection without a proxy: 'node' (node:http, the default) starts fastest,
   * for a few requests; 'undici' spends less CPU per request, for many (bulk runs). Proxies always use undici.
   */
  httpClient?: HttpClient;
  /** Use this dispatcher (any undici Dispatcher, or anything with its dispatch()) instead of creating an agent; close() leaves it open. */
  dispatcher?: DispatchTarget;
  /** Send every request with this function instead (such as the in-process emulator's `send`); close() leaves it alone. */
  send?: Send;
  userAgent?: string;
  /** Clock for rules relative to now (deferred sends). */
  now?: () => Date;
  /** Called after each request with its redacted description (for --verbose). */
  onRequest?: (event: RequestEvent) => void;
  /** Aborts requests in flight (Ctrl-C). */
  signal?: AbortSignal;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

/** Checks the base URL and key; throws ConfigError when they cannot be used safely. */
export function checkSettings(baseUrl: string, apiKey: string, allowInsecureHttp = false): URL {
  if (!baseUrl) throw new ConfigError('no base URL is set');
  if (!apiKey) throw new ConfigError('no API key is set');
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url) throw new ConfigError(`base URL "${baseUrl}" is not a valid URL`, 'usage');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`base URL must use https:// (got ${url.protocol}//)`, 'usage');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    const why = `refusing to send the API key over plain http:// to ${url.host}; use https://, or pass --allow-insecure-http if you really mean it`;
    throw new ConfigError(why, 'usage');
  }
  return url;
}

/** The operations the client has a method for, each a literal type. */
type Operation = (typeof LINK_OPERATIONS)[number] | (typeof MESSAGE_OPERATIONS)[number] | (typeof USER_OPERATIONS)[number];

/** One method per operation, named by its catalog entry's `method`; an input with nothing required may be left out. */
export type OperationMethods = {
  [Op in Operation as Op['method']]: Partial<InputOf<Op>> extends InputOf<Op> ? (input?: InputOf<Op>) => Promise<ResultOf<Op>> : (input: InputOf<Op>) => Promise<ResultOf<Op>>;
};

// The methods of OperationMethods, declared here and made below from the catalog.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface SmsLinkClient extends OperationMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class SmsLinkClient {
  readonly #opts: SmsLinkClientOptions;
  readonly #policy: RetryOptions;
  /** The same headers on every request. */
  readonly #headers: Record<string, string>;
  #transport: Promise<Transport> | undefined;
  /** The transport once open: later requests need not wait a turn for it. */
  #ready: Transport | undefined;
  /** host:port of the --proxy every request goes through, to name it when it cannot be reached. */
  #proxy: string | undefined;
  /** checkSettings() passed once: the settings never change, and a bulk run prepares thousands of requests. */
  #settingsChecked = false;
  /** Requests sent and not yet answered (a retry waiting for its turn included): close() waits for them. */
  readonly #inFlight = new Set<Promise<unknown>>();
  /**
   * The attempts in flight and the waits before a retry, each with its own
   * AbortController. One listener on the caller's signal aborts them all: a
   * listener per attempt or wait would put one on that signal per request
   * (Node warns past 10, and a bulk run at --concurrency 16 printed
   * MaxListenersExceededWarning).
   */
  readonly #attempts = new Set<AbortController>();
  #listening = false;

  constructor(options: SmsLinkClientOptions) {
    const o = (this.#opts = { timeoutMs: 30_000, retries: 3, ...options });
    this.#policy = { retries: o.retries!, baseDelayMs: o.retryBaseDelayMs ?? 250, maxDelayMs: o.retryMaxDelayMs ?? 8_000, attemptTimeoutMs: o.timeoutMs!, onRetry: o.onRetry };
    this.#headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json', 'user-agent': o.userAgent ?? userAgent() };
    registerSecret(options.apiKey);
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  /** Validates input and builds the request without sending it (--dry-run). */
  prepare(op: OperationSpec, input: object): PreparedRequest {
    const { values, issues } = validateInput(op, input as Record<string, unknown>, { now: this.#opts.now?.() ?? new Date() });
    if (issues.length) throw new ValidationError(`${op.module}/${op.operation}`, issues);
    return this.prepareChecked(op, values);
  }

  /**
   * Builds the request from values that validateInput() already returned
   * without problems (bulk runs check every row before sending it, and
   * need not check it twice). Anything else must go through prepare().
   */
  prepareChecked(op: OperationSpec, values: Record<string, unknown>): PreparedRequest {
    const name = `${op.module}/${op.operation}`;
    this.assertReady();
    return buildRequest(name, name, encodeParams(op, values), this.#opts);
  }

  /** Validates, sends and returns the result of any catalog operation (the typed methods call this). */
  async call<R>(op: OperationSpec<unknown, R>, input: object): Promise<R> {
    // async: a broken rule rejects the promise, like every other failure of a call.
    return this.perform(op, this.prepare(op, input));
  }

  /** Sends a request made by prepare() and returns the operation's result. */
  async perform<R>(op: OperationSpec<unknown, R>, req: PreparedRequest): Promise<R> {
    const env = await this.execute(req, op.idempotent);
    let data: unknown;
    try {
      data = dataOrThrow(req.operation, env, !op.idempotent);
    } catch (err) {
      if (!(err instanceof ApiError && op.resultCodes?.includes(err.code) && hasFieldOf(op.result, err.data))) throw err;
      data = err.data;
    }
    data = normalize(op.result, data);
    return (op.finish ? op.finish(data as never) : data) as R;
  }

  /** Throws ConfigError when the base URL or key is missing or unsafe; nothing is sent. */
  assertReady(): void {
    if (this.#settingsChecked) return;
    checkSettings(this.#opts.baseUrl, this.#opts.apiKey, this.#opts.allowInsecureHttp);
    this.#settingsChecked = true;
  }

  /**
   * Builds a request for any operation path with a form body as given
   * (bracket keys kept), without catalog checks: `smslink api`, and
   * operations of the service that smslink does not know yet.
   */
  prepareRaw(path: string, body: string): PreparedRequest {
    this.assertReady();
    return buildRequest(path.replace(/^\/+|\/+$/g, ''), path, body, this.#opts);
  }

  /** Sends a prepared request and parses the envelope (any code); a raw request is idempotent only when the caller knows. */
  async execute(req: PreparedRequest, idempotent: boolean): Promise<Envelope> {
    const send = (this.#ready ?? (await this.#open())).send;
    // Date.now(), not performance.now(): the first use of `performance` loads perf_hooks.
    const started = Date.now();
    const exchange = this.#exchange(send, req, idempotent);
    this.#inFlight.add(exchange);
    const report = this.#opts.onRequest;
    const event = { operation: req.operation, method: req.method, url: req.redactedUrl };
    try {
      const { status, env } = await exchange;
      report?.({ ...event, fields: req.fields, status, ms: Date.now() - started, code: env.code });
      return env;
    } catch (err) {
      report?.({ ...event, fields: req.fields, error: err instanceof TransportError ? err.message : undefined });
      throw err;
    } finally {
      this.#inFlight.delete(exchange);
    }
  }

  /**
   * The retry loop: send, classify the outcome, wait as the policy says
   * (retry.ts), send again. Each attempt has its own time limit, connection
   * included; the caller's signal ends the call at once, a wait included.
   */
  async #exchange(send: Send, req: PreparedRequest, idempotent: boolean): Promise<{ status: number; env: Envelope }> {
    const { signal, timeoutMs } = this.#opts;
    const context = { operation: req.operation, url: req.url, idempotent, attempts: 0, timeoutMs: timeoutMs!, proxy: this.#proxy };
    const request = { url: req.url, method: req.method, headers: this.#headers, body: req.body };
    for (let attempt = 1; ; attempt++) {
      context.attempts = attempt;
      const limit = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        limit.abort(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'SMSLINK_ATTEMPT_TIMEOUT' }));
      }, timeoutMs);
      if (signal && !this.#listening) {
        this.#listening = true;
        const abortAll = () => {
          for (const attempt of this.#attempts) attempt.abort(signal.reason);
        };
        signal.addEventListener('abort', abortAll, { once: true });
      }
      this.#attempts.add(limit);
      let outcome: Outcome | null;
      let failure: Error | undefined;
      let answer: { status: number; env: Envelope } | undefined;
      try {
        if (signal?.aborted) limit.abort(signal.reason);
        const res = await send(request, limit.signal);
        try {
          answer = { status: res.status, env: parseEnvelope(req.operation, res.status, redact(res.text), !idempotent) };
          outcome = answerOutcome(res.status, answer.env.code, res.headers);
        } catch (err) {
          failure = err as Error;
          // Not the envelope, or an HTTP error status: no code to go by.
          outcome = answerOutcome(res.status, null, res.headers);
        }
      } catch (err) {
        const how = failureOutcome(err, timedOut);
        failure = describeFailure(err, how, signal?.aborted === true, context);
        if (signal?.aborted) throw failure;
        outcome = how;
      } finally {
        clearTimeout(timer);
        this.#attempts.delete(limit);
      }
      const delay = outcome && retryDelay(idempotent, outcome, attempt, this.#policy);
      if (delay === null || delay === undefined) {
        if (failure) throw failure;
        return answer!;
      }
      this.#policy.onRetry?.({ operation: req.operation, attempt: attempt + 1, delayMs: delay, reason: describeOutcome(outcome!) });
      const { setTimeout: sleep } = await import('node:timers/promises');
      const wait = new AbortController();
      this.#attempts.add(wait);
      if (signal?.aborted) wait.abort();
      await sleep(delay, undefined, { signal: wait.signal }).catch(() => {});
      this.#attempts.delete(wait);
      // A retry follows only an attempt that changed nothing (or a safe one): an interrupted wait leaves no outcome unknown.
      if (signal?.aborted) throw new TransportError(req.operation, 'aborted', `${req.operation}: interrupted`, { outcomeUnknown: false, attempts: attempt });
    }
  }

  /** Waits for the requests in flight, then closes the keep-alive connections of this client. */
  async close(): Promise<void> {
    if (!this.#transport) return;
    const transport = await this.#transport;
    await Promise.allSettled(this.#inFlight);
    if (this.#transport === undefined) return;
    this.#transport = undefined;
    this.#ready = undefined;
    await transport.close?.();
  }

  /**
   * Drops the keep-alive connections now, without waiting for their sockets
   * to close: for a process that exits next (the CLI), where close() would
   * hold up the exit for an event-loop turn or two. With a request in flight
   * this is close(), which lets it finish first.
   */
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
      const o = this.#opts;
      if (o.send) return (this.#ready = { send: o.send });
      if (o.dispatcher) {
        const { dispatchSend } = await import('./undici.js');
        return (this.#ready = { send: dispatchSend(o.dispatcher) });
      }
      const baseUrl = new URL(o.baseUrl);
      const options = { baseUrl, direct: isLoopbackHost(baseUrl.hostname), timeoutMs: o.timeoutMs!, httpClient: o.httpClient ?? 'node' };
      this.#proxy = o.proxy && !options.direct ? new URL(o.proxy).host : undefined;
      return (this.#ready = await openTransport({ ...o, ...options }));
    })();
    return this.#transport;
  }
}

for (const op of OPERATIONS) {
  Object.defineProperty(SmsLinkClient.prototype, op.method, {
    value(this: SmsLinkClient, input: object = {}) {
      return this.call(op, input);
    },
    writable: true,
    configurable: true,
  });
}

/** Whether data is an object that carries one of an object shape's list fields as a list: the detail of codes 98 and 99. */
const hasFieldOf = (shape: Shape, data: unknown) =>
  typeof shape === 'object' &&
  'object' in shape &&
  typeof data === 'object' &&
  data !== null &&
  Object.keys(shape.object).some((key) => Array.isArray((data as Record<string, unknown>)[key]));
