// SmsLinkClient: one typed method per operation of the catalog, made from
// the catalog's entries. A call checks its input against the contract,
// builds the form request, sends it over the client's connection
// (transport.ts) with retries (exchange.ts), and normalises the data.

import { OPERATIONS } from '../catalog/index.js';
import type { LINK_OPERATIONS } from '../catalog/link.js';
import type { MESSAGE_OPERATIONS } from '../catalog/message.js';
import type { USER_OPERATIONS } from '../catalog/user.js';
import type { InputOf, OperationSpec, ResultOf, Shape } from '../catalog/types.js';
import { validateInput } from '../catalog/validate.js';
import { userAgent } from '../version.js';
import { checkSettings, isLoopbackHost } from './base-url.js';
import { dataOrThrow, type Envelope } from './envelope.js';
import { ApiError, ConfigError, OPTION_NAMES, TransportError, ValidationError, type SettingNames } from './errors.js';
import { Exchanges } from './exchange.js';
import { normalize } from './normalize.js';
import { buildRequest, encodeParams, type PreparedRequest } from './request.js';
import type { RetryInfo } from './retry.js';
import type { HttpClient, ProxyEnv, Send } from './send.js';
import { Connection } from './transport.js';
import type { DispatchTarget } from './undici.js';
import { registerSecret } from '../secrets.js';
import { quoted } from '../output/text.js';

export { checkSettings, isLoopbackHost };

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
  /** Per-request time limit, connection included (each attempt). Default 30 000 ms; 1 to 2^31-1 (another value throws ConfigError). */
  timeoutMs?: number;
  /** Retries of safe operations (and of unsafe ones the service provably did not carry out). Default 3; a whole number, 0 or more. */
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
  /** Aborts requests in flight (Ctrl-C) and refuses later calls; the TransportError's cause is the signal's reason. */
  signal?: AbortSignal;
  /** @internal What errors call the settings they point to: these options by default, the CLI's flags for the CLI. */
  settingNames?: SettingNames;
}

/** Options of one call, the last argument of every method (`client.getLink({ id }, { signal })`): they hold for that call alone. */
export interface CallOptions {
  /** Ends this call (its request in flight, its wait before a retry); the client's own signal still ends every call. The TransportError's cause is the signal's reason. */
  signal?: AbortSignal;
  /** This call's limit per attempt instead of the client's timeoutMs, with its rule (another value rejects with ConfigError; nothing is sent). */
  timeoutMs?: number;
  /** This call's retries instead of the client's, with its rule. */
  retries?: number;
}

/** The longest a timer waits: a longer delay (or NaN, or a negative one) fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The options that are numbers with a rule: the client's, and those of a call (CallOptions). */
type Limits = Pick<SmsLinkClientOptions, 'timeoutMs' | 'retries' | 'retryBaseDelayMs' | 'retryMaxDelayMs'>;

const LIMIT_RULES: Array<[keyof Limits, (n: number) => boolean, string]> = [
  ['timeoutMs', (n) => n >= 1 && n <= MAX_TIMER_MS, `a number of milliseconds from 1 to ${MAX_TIMER_MS}`],
  ['retries', (n) => Number.isInteger(n) && n >= 0, 'a whole number, 0 or more'],
  ['retryBaseDelayMs', (n) => n >= 0 && n <= MAX_TIMER_MS, `a number of milliseconds from 0 to ${MAX_TIMER_MS}`],
  ['retryMaxDelayMs', (n) => n >= 0 && n <= MAX_TIMER_MS, `a number of milliseconds from 0 to ${MAX_TIMER_MS}`],
];

/**
 * Throws ConfigError naming the option and its rule when a time limit or a
 * retry count could not mean what it says: a timeout of 0, NaN (a
 * `Number()` of a setting left unset) or beyond a timer's range ends every
 * attempt at once, and a fraction of a retry or a negative one is no count.
 * The client's options and a call's alike.
 */
function checkLimits(o: Limits): void {
  for (const [name, ok, rule] of LIMIT_RULES) {
    const v = o[name];
    if (v === undefined || (typeof v === 'number' && ok(v))) continue;
    throw new ConfigError(`${name} must be ${rule} (got ${quoted(v)})`, 'usage');
  }
}

/** The operations the client has a method for, each a literal type. */
type Operation = (typeof LINK_OPERATIONS)[number] | (typeof MESSAGE_OPERATIONS)[number] | (typeof USER_OPERATIONS)[number];

/** One method per operation, named by its catalog entry's `method`; an input with nothing required may be left out. The call's options come last. */
export type OperationMethods = {
  [Op in Operation as Op['method']]: Partial<InputOf<Op>> extends InputOf<Op>
    ? (input?: InputOf<Op>, options?: CallOptions) => Promise<ResultOf<Op>>
    : (input: InputOf<Op>, options?: CallOptions) => Promise<ResultOf<Op>>;
};

// The methods of OperationMethods, declared here and made below from the catalog.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface SmsLinkClient extends OperationMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class SmsLinkClient {
  readonly #opts: SmsLinkClientOptions;
  /** The same headers on every request. */
  readonly #headers: Record<string, string>;
  readonly #connection: Connection;
  readonly #exchanges: Exchanges;
  readonly #names: SettingNames;
  /** checkSettings() passed once: the settings never change, and a bulk run prepares thousands of requests. */
  #settingsChecked = false;

  constructor(options: SmsLinkClientOptions) {
    const o = (this.#opts = { timeoutMs: 30_000, retries: 3, ...options });
    this.#names = o.settingNames ?? OPTION_NAMES;
    checkLimits(o);
    this.#headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json', 'user-agent': o.userAgent ?? userAgent() };
    this.#connection = new Connection({ ...o, timeoutMs: o.timeoutMs!, httpClient: o.httpClient ?? 'node', isDirect: (url) => isLoopbackHost(url.hostname) });
    const policy = { retries: o.retries!, baseDelayMs: o.retryBaseDelayMs ?? 250, maxDelayMs: o.retryMaxDelayMs ?? 8_000, attemptTimeoutMs: o.timeoutMs!, onRetry: o.onRetry };
    this.#exchanges = new Exchanges(policy, o.signal);
    registerSecret(options.apiKey);
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  /** Validates input and builds the request without sending it (--dry-run). */
  prepare(op: OperationSpec, input: object): PreparedRequest {
    // From JavaScript: null, a string or a list read as an object gave a TypeError of our own code, or `0 is not a parameter`.
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      const issue = { key: 'input', wire: 'input', value: input, rule: `must be an object of its parameters (got ${quoted(input)})`, code: 1 };
      throw new ValidationError(`${op.module}/${op.operation}`, [issue]);
    }
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
  async call<R>(op: OperationSpec<unknown, R>, input: object, options?: CallOptions): Promise<R> {
    // async: a broken rule rejects the promise, like every other failure of a call.
    return this.perform(op, this.prepare(op, input), options);
  }

  /** Sends a request made by prepare() and returns the operation's result. */
  async perform<R>(op: OperationSpec<unknown, R>, req: PreparedRequest, options?: CallOptions): Promise<R> {
    const env = await this.execute(req, op.idempotent, options);
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
    checkSettings(this.#opts.baseUrl, this.#opts.apiKey, this.#opts.allowInsecureHttp, this.#names);
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
  async execute(req: PreparedRequest, idempotent: boolean, options: CallOptions = {}): Promise<Envelope> {
    checkLimits(options);
    const send = await this.#connection.send();
    // Date.now(), not performance.now(): the first use of `performance` loads perf_hooks.
    const started = Date.now();
    const request = { url: req.url, method: req.method, headers: this.#headers, body: req.body };
    const { signal, timeoutMs = this.#opts.timeoutMs!, retries } = options;
    const call = { operation: req.operation, url: req.url, idempotent, timeoutMs, proxy: this.#connection.proxy, names: this.#names, signal, retries };
    const report = this.#opts.onRequest;
    const event = { operation: req.operation, method: req.method, url: req.redactedUrl };
    try {
      const { status, env } = await this.#connection.track(this.#exchanges.exchange(send, request, call));
      report?.({ ...event, fields: req.fields, status, ms: Date.now() - started, code: env.code });
      return env;
    } catch (err) {
      report?.({ ...event, fields: req.fields, error: err instanceof TransportError ? err.message : undefined });
      throw err;
    }
  }

  /** Waits for the requests in flight, then closes the keep-alive connections of this client. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  /**
   * Drops the keep-alive connections now, without waiting for their sockets
   * to close: for a process that exits next (the CLI), where close() would
   * hold up the exit for an event-loop turn or two. With a request in flight
   * this is close(), which lets it finish first.
   */
  release(): Promise<void> {
    return this.#connection.release();
  }
}

for (const op of OPERATIONS) {
  Object.defineProperty(SmsLinkClient.prototype, op.method, {
    value(this: SmsLinkClient, input: object = {}, options?: CallOptions) {
      return this.call(op, input, options);
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
