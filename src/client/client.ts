// SmsLinkClient: one typed method per operation of the catalog. Every call
// checks its input against the contract, builds the form request, sends it
// over one keep-alive dispatcher, parses the envelope and normalises the data.

import { linkCampaign, linkCreate, linkDelete, linkGet, linkList, linkStats, linkUpdate } from '../catalog/link.js';
import { messageList, messageSend, messageStatus } from '../catalog/message.js';
import type {
  CampaignLink,
  CreateLinkInput,
  CreateLinkResult,
  DeleteLinksInput,
  DeleteLinksResult,
  GetCampaignLinksInput,
  GetLinkInput,
  GetLinkStatsInput,
  GetMessageStatusInput,
  Link,
  LinkStatsResult,
  ListLinksInput,
  ListMessagesInput,
  Message,
  MessageStatusRecord,
  OperationSpec,
  Page,
  SendMessageInput,
  SendMessageResult,
  UpdateLinkInput,
  UpdateLinkResult,
} from '../catalog/types.js';
import { validateInput } from '../catalog/validate.js';
import { userAgent } from '../version.js';
import { dataOrThrow, parseEnvelope, type Envelope } from './envelope.js';
import { ApiError, ConfigError, TransportError, ValidationError } from './errors.js';
import { normalize } from './normalize.js';
import { arrayFormatOf, buildRequest, encodeForm, toWireParams, type PreparedRequest } from './request.js';
import { createAgent, Transport, type DispatchTarget, type HttpClient, type OwnedDispatcher, type ProxyEnv } from './transport.js';
import { redact, registerSecret } from '../secrets.js';
import type { RetryInfo } from './retry.js';

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
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`base URL "${baseUrl}" is not a valid URL`, 'usage');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`base URL must use https:// (got ${url.protocol}//)`, 'usage');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecureHttp) {
    throw new ConfigError(
      `refusing to send the API key over plain http:// to ${url.host}; use https://, or pass --allow-insecure-http if you really mean it`,
      'usage',
    );
  }
  return url;
}

export class SmsLinkClient {
  readonly #opts: SmsLinkClientOptions;
  #transport: Promise<Transport> | undefined;
  /** The transport once created: later requests need not wait a turn for it. */
  #ready: Transport | undefined;
  /** The agent this client created (a given dispatcher is the caller's to close). */
  #agent: OwnedDispatcher | undefined;
  /** checkSettings() passed once: the settings never change, and a bulk run prepares thousands of requests. */
  #settingsChecked = false;
  /** Requests sent and not yet answered (a retry waiting for its turn included). */
  #inFlight = 0;

  constructor(options: SmsLinkClientOptions) {
    this.#opts = { timeoutMs: 30_000, retries: 3, ...options };
    registerSecret(options.apiKey);
  }

  get baseUrl(): string {
    return this.#opts.baseUrl;
  }

  /** Creates a short link (Link/Create). Not retried when the outcome is unknown. */
  createLink(input: CreateLinkInput): Promise<CreateLinkResult> {
    return this.call(linkCreate, input);
  }
  /** Reads one link by id, code or shortLink (Link/Get). */
  getLink(input: GetLinkInput): Promise<Link> {
    return this.call(linkGet, input);
  }
  /** Lists links with criteria, paging and sort (Link/List). */
  listLinks(input: ListLinksInput = {}): Promise<Page<Link>> {
    return this.call(linkList, input);
  }
  /**
   * Updates a link (Link/Update). Careful: per the contract, omitting
   * expirationDate makes the link valid indefinitely.
   */
  async updateLink(input: UpdateLinkInput): Promise<UpdateLinkResult> {
    const data = await this.call(linkUpdate, input) as unknown;
    return { shortLink: typeof data === 'string' && data !== '' ? data : null };
  }
  /** Deletes links (Link/Delete); ids not deleted come back in notProcessed. */
  async deleteLinks(input: DeleteLinksInput): Promise<DeleteLinksResult> {
    let r: DeleteLinksResult | null;
    try {
      r = await this.call(linkDelete, input);
    } catch (err) {
      // The live codes 98 (a bulk operation partly done, data has per-item detail) and 99 (nothing
      // processed) carry the same answer as code 0: what was and was not deleted.
      const detail = err instanceof ApiError && (err.code === 98 || err.code === 99) ? (err.data as Partial<DeleteLinksResult> | null) : null;
      if (!Array.isArray(detail?.processed) && !Array.isArray(detail?.notProcessed)) throw err;
      r = normalize(linkDelete.result, detail) as DeleteLinksResult;
    }
    return {
      processed: Array.isArray(r?.processed) ? r.processed : [],
      notProcessed: Array.isArray(r?.notProcessed) ? r.notProcessed : [],
    };
  }
  /** Click statistics of at most 5 links (Link/GetStats). */
  async getLinkStats(input: GetLinkStatsInput): Promise<LinkStatsResult> {
    const r = await this.call(linkStats, input);
    return normalizeStats(r);
  }
  /** Links of a campaign with clicks and redirects (Link/GetLinks). */
  getCampaignLinks(input: GetCampaignLinksInput): Promise<CampaignLink[]> {
    return this.call(linkCampaign, input).then((r) => (Array.isArray(r) ? r : []));
  }
  /** Sends one SMS (Message/SendSmsMessage). Not retried when the outcome is unknown. */
  sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
    return this.call(messageSend, input);
  }
  /** Delivery status of at most 100 messages (Message/GetSMSStatus); unknown ids are left out. */
  getMessageStatus(input: GetMessageStatusInput): Promise<MessageStatusRecord[]> {
    return this.call(messageStatus, input).then((r) => (Array.isArray(r) ? r : []));
  }
  /** Lists messages with criteria, paging and sort (Message/List). */
  listMessages(input: ListMessagesInput = {}): Promise<Page<Message>> {
    return this.call(messageList, input);
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
    return buildRequest(name, name, encodeForm(toWireParams(op, values), arrayFormatOf(op)), this.#opts);
  }

  /** Validates, sends and returns the normalised data of any catalog operation. */
  async call<I extends object, R>(op: OperationSpec<I, R>, input: I): Promise<R> {
    // async: a broken rule rejects the promise, like every other failure of a call.
    return this.perform(op, this.prepare(op, input));
  }

  /** Sends a request made by prepare() and returns the operation's normalised data. */
  async perform<R>(op: OperationSpec<object, R>, req: PreparedRequest): Promise<R> {
    const env = await this.execute(req, op.idempotent);
    return normalize(op.result, dataOrThrow(req.operation, env, !op.idempotent)) as R;
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

  /** Sends a raw request; returns the envelope whatever its code. Unknown operations are never retried blindly. */
  raw(path: string, body: string, options: { idempotent?: boolean } = {}): Promise<Envelope> {
    return this.execute(this.prepareRaw(path, body), options.idempotent ?? false);
  }

  /** Sends a prepared request and parses the envelope (any code). */
  async execute(req: PreparedRequest, idempotent: boolean): Promise<Envelope> {
    const transport = this.#ready ?? (await this.#getTransport());
    const onRequest = this.#opts.onRequest;
    // Only a listener (--verbose) gets an event: a bulk run sends thousands of requests without one.
    const event: RequestEvent | undefined = onRequest && {
      operation: req.operation,
      method: req.method,
      url: req.redactedUrl,
      get fields() {
        return req.fields;
      },
    };
    this.#inFlight += 1;
    try {
      const res = await transport.send(req, idempotent, this.#opts.signal);
      if (event) {
        event.status = res.status;
        event.ms = res.ms;
      }
      const text = redact(res.text);
      // The interceptor's parse holds the answer as it came: usable only when there was no secret to take out.
      const env = parseEnvelope(req.operation, res.status, text, !idempotent, text === res.text ? res.json : undefined);
      if (event) event.code = env.code;
      return env;
    } catch (err) {
      if (event && err instanceof TransportError) event.error = err.message;
      throw err;
    } finally {
      this.#inFlight -= 1;
      if (event) onRequest!(event);
    }
  }

  /** Closes the keep-alive connections of this client. */
  async close(): Promise<void> {
    if (!this.#transport) return;
    await this.#transport;
    this.#transport = undefined;
    this.#ready = undefined;
    await this.#agent?.close();
    this.#agent = undefined;
  }

  /**
   * Drops the keep-alive connections now, without waiting for their sockets
   * to close: for a process that exits next (the CLI), where close() would
   * hold up the exit for an event-loop turn or two. With a request in flight
   * this is close(), which lets it finish first.
   */
  async release(): Promise<void> {
    if (!this.#transport) return;
    await this.#transport;
    if (this.#inFlight > 0) return this.close();
    const agent = this.#agent;
    this.#transport = undefined;
    this.#ready = undefined;
    this.#agent = undefined;
    // Each socket is destroyed at once; the promise only tells when their close events have come. The
    // error reaches no request (none is in flight), but each socket's destroy() reads its stack: one
    // given as text spares V8 formatting a stack trace (undici's own error would have one), which
    // first has it reparse the bundled functions on the stack for their line numbers.
    const released = new Error('the client was released');
    released.stack = `Error: ${released.message}`;
    agent?.destroy(released).catch(() => {});
  }

  #getTransport(): Promise<Transport> {
    this.#transport ??= (async () => {
      const o = this.#opts;
      // Loopback hosts are reached directly: through a proxy the key of a plain http:// URL would travel in clear.
      const base = new URL(o.baseUrl);
      const direct = isLoopbackHost(base.hostname);
      const secure = base.protocol === 'https:';
      const dispatcher =
        o.dispatcher ?? (this.#agent = await createAgent({ proxy: o.proxy, proxyEnv: o.proxyEnv, direct, ca: o.ca, timeoutMs: o.timeoutMs!, secure, httpClient: o.httpClient ?? 'node' }));
      return (this.#ready = new Transport(
        dispatcher,
        {
          retries: o.retries!,
          baseDelayMs: o.retryBaseDelayMs ?? 250,
          maxDelayMs: o.retryMaxDelayMs ?? 8_000,
          attemptTimeoutMs: o.timeoutMs!,
          onRetry: o.onRetry,
        },
        o.userAgent ?? userAgent(),
        o.proxy && !direct && !o.dispatcher ? new URL(o.proxy).host : undefined,
      ));
    })();
    return this.#transport;
  }
}

/** Accepts both documented (totals: string) and live (totals: object) GetStats shapes. */
function normalizeStats(r: LinkStatsResult | null): LinkStatsResult {
  const items = Array.isArray(r?.items) ? r.items : [];
  let totals: LinkStatsResult['totals'] = r?.totals ?? {};
  if (typeof totals === 'string' && /^-?\d+$/.test(totals)) totals = Number(totals);
  else if (totals && typeof totals === 'object') totals = normalize({ object: {}, rest: 'int' }, totals) as Record<string, number>;
  return { items, totals };
}
