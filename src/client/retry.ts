// The retry policy, in one place, and the undici interceptor that applies it.
//
// Safe operations (reads, Update, Delete) are retried on connection errors,
// timeouts, HTTP 429/500/502/503/504, spoiled answers and service codes 30
// and 999. Link/Create and Message/SendSmsMessage are retried only when the
// service provably did nothing: code 30, or the request never left this
// machine (refused connection). Anything else is reported, never resent.
// Delays: exponential backoff with full jitter, at least Retry-After.

import type { Dispatcher } from 'undici';
import { envelopeCode } from './envelope.js';

export interface RetryOptions {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff ceiling; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per-attempt time limit, connection included. */
  attemptTimeoutMs: number;
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** `Module/Operation` from the request path (never the query: it holds the key). */
  operation: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export type Outcome =
  | { kind: 'error'; nothingSent: boolean; timeout: boolean; code?: string }
  | { kind: 'status'; status: number; retryAfterMs?: number }
  | { kind: 'envelope'; code: number; retryAfterMs?: number }
  /** A 2xx answer that is not the envelope (truncated, HTML). */
  | { kind: 'garbled' };

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const RETRY_CODES = new Set([30, 999]);
/** The rate-limit code: the call was not carried out (real-service-notes.md). */
const NOTHING_DONE_CODE = 30;

/** Certificate problems do not go away by trying again. */
export const isCertificateError = (code: string | undefined): boolean =>
  code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME_MISMATCH/.test(code);

/** Whether an outcome may be retried for an operation. */
export function isRetryable(idempotent: boolean, outcome: Outcome): boolean {
  switch (outcome.kind) {
    case 'error':
      if (isCertificateError(outcome.code)) return false;
      return idempotent || outcome.nothingSent;
    case 'status':
      return idempotent && RETRY_STATUSES.has(outcome.status);
    case 'envelope':
      return outcome.code === NOTHING_DONE_CODE || (idempotent && RETRY_CODES.has(outcome.code));
    case 'garbled':
      return idempotent;
  }
}

/** The longest Retry-After honoured; a server asking for more is reported rather than waited on. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Delay before retry number `attempt` (1 = first retry), or null to give up. */
export function retryDelay(idempotent: boolean, outcome: Outcome, attempt: number, opts: RetryOptions): number | null {
  if (attempt > opts.retries || !isRetryable(idempotent, outcome)) return null;
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor((opts.random ?? Math.random)() * ceiling);
  const after = 'retryAfterMs' in outcome ? (outcome.retryAfterMs ?? 0) : 0;
  if (after > MAX_RETRY_AFTER_MS) return null;
  // Never earlier than the server asked.
  return Math.max(jittered, after);
}

/** Retry-After as seconds or an HTTP date, in ms. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function describe(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'error':
      return outcome.timeout ? 'timeout' : `connection error${outcome.code ? ` (${outcome.code})` : ''}`;
    case 'status':
      return `HTTP ${outcome.status}`;
    case 'envelope':
      return `service code ${outcome.code}`;
    case 'garbled':
      return 'answer was not the envelope';
  }
}

/** The error an attempt ends with when it runs out of time. */
export class AttemptTimeoutError extends Error {
  readonly code = 'SMSLINK_ATTEMPT_TIMEOUT';
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

const MAX_BODY = 16 * 1024 * 1024;

type Controller = Dispatcher.DispatchController;
type Handler = Dispatcher.DispatchHandler;
type DispatchFn = Dispatcher['dispatch'];

/** A 2xx answer as the interceptor read it: its text, and that text parsed as JSON (undefined when it is not JSON). */
export interface ReadAnswer {
  text: string;
  json: unknown;
}

/**
 * A handler that may also take the final answer as the interceptor read it
 * (before onResponseStart), so the caller need not decode and parse it again.
 */
export interface ReadAnswerHandler extends Handler {
  onAnswerRead?(answer: ReadAnswer): void;
}

function readAnswer(body: Buffer): ReadAnswer {
  const text = body.toString('utf8');
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text, json: undefined };
  }
}

/**
 * Runs attempts of one request. Answers are buffered (they are small JSON
 * envelopes) so that a code 30 or a spoiled body can be retried before the
 * caller sees anything; only the final attempt reaches the caller's handler.
 * It is also the controller the caller's handler gets: one that stands for
 * whichever attempt runs, or the wait between two (a class rather than an
 * object of closures per request: a bulk run makes thousands).
 */
class RetryingHandler implements Handler, Controller {
  #attempt = 0;
  #target: Controller | null = null;
  #requestStarted = false;
  #forwardedStart = false;
  #done = false;
  #userAbort: Error | null = null;
  #timedOut = false;
  #attemptTimer: NodeJS.Timeout | undefined;
  #waitTimer: NodeJS.Timeout | undefined;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #statusMessage = '';
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    private readonly dispatch: DispatchFn,
    private readonly opts: Dispatcher.DispatchOptions,
    private readonly handler: ReadAnswerHandler,
    private readonly idempotent: boolean,
    private readonly policy: RetryOptions,
  ) {}

  get aborted(): boolean {
    return this.#userAbort !== null || (this.#target?.aborted ?? false);
  }

  get paused(): boolean {
    return this.#target?.paused ?? false;
  }

  get reason(): Error | null {
    return this.#userAbort ?? this.#target?.reason ?? null;
  }

  abort(reason: Error): void {
    this.#userAbort = reason;
    if (this.#target && !this.#target.aborted) this.#target.abort(reason);
    else this.#finishWithError(reason);
  }

  pause(): void {
    this.#target?.pause();
  }

  resume(): void {
    this.#target?.resume();
  }

  start(): boolean {
    this.#attempt += 1;
    this.#target = null;
    this.#requestStarted = false;
    this.#timedOut = false;
    this.#chunks = [];
    this.#size = 0;
    this.#attemptTimer = setTimeout(() => {
      this.#timedOut = true;
      this.#target?.abort(new AttemptTimeoutError(this.policy.attemptTimeoutMs));
    }, this.policy.attemptTimeoutMs);
    return this.dispatch(this.opts, this);
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.#target = controller;
    // Aborting here happens before undici writes the request: still nothing sent.
    if (this.#userAbort) return controller.abort(this.#userAbort);
    if (this.#timedOut) return controller.abort(new AttemptTimeoutError(this.policy.attemptTimeoutMs));
    this.#requestStarted = true;
    if (!this.#forwardedStart) {
      this.#forwardedStart = true;
      this.handler.onRequestStart?.(this, context);
    }
  }

  onResponseStart(_c: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    this.#status = statusCode;
    this.#headers = headers;
    this.#statusMessage = statusMessage ?? '';
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > MAX_BODY) return controller.abort(new Error(`answer larger than ${MAX_BODY} bytes`));
    this.#chunks.push(chunk);
  }

  onResponseEnd(_c: Controller, trailers: Record<string, string | string[] | undefined>): void {
    clearTimeout(this.#attemptTimer);
    const body = Buffer.concat(this.#chunks);
    const retryAfterMs = parseRetryAfter(this.#headers['retry-after']);
    let outcome: Outcome | null = null;
    let answer: ReadAnswer | undefined;
    if (this.#status >= 200 && this.#status < 300) {
      answer = readAnswer(body);
      const code = envelopeCode(answer.json);
      outcome = code === null ? { kind: 'garbled' } : code === 0 ? null : { kind: 'envelope', code, retryAfterMs };
    } else {
      outcome = { kind: 'status', status: this.#status, retryAfterMs };
    }
    if (outcome && this.#retry(outcome)) return;
    if (this.#done) return;
    this.#done = true;
    if (!this.#forwardedStart) {
      this.#forwardedStart = true;
      this.handler.onRequestStart?.(this, {});
    }
    if (answer) this.handler.onAnswerRead?.(answer);
    this.handler.onResponseStart?.(this, this.#status, this.#headers, this.#statusMessage);
    if (body.length) this.handler.onResponseData?.(this, body);
    this.handler.onResponseEnd?.(this, trailers);
  }

  onResponseError(_c: Controller, err: Error): void {
    clearTimeout(this.#attemptTimer);
    if (this.#userAbort) return this.#finishWithError(this.#userAbort);
    const code = (err as { code?: string }).code;
    const error = this.#timedOut && !(err instanceof AttemptTimeoutError) ? new AttemptTimeoutError(this.policy.attemptTimeoutMs) : err;
    const outcome: Outcome = {
      kind: 'error',
      // The request was never handed to a socket, or the connection was refused: nothing reached the service.
      nothingSent: !this.#requestStarted || code === 'ECONNREFUSED',
      timeout: error instanceof AttemptTimeoutError || /TIMEOUT/.test(code ?? ''),
      code,
    };
    Object.assign(error, { nothingSent: outcome.nothingSent, attempts: this.#attempt });
    if (this.#retry(outcome)) return;
    this.#finishWithError(error);
  }

  #retry(outcome: Outcome): boolean {
    const delay = retryDelay(this.idempotent, outcome, this.#attempt, this.policy);
    if (delay === null) return false;
    const operation = /\/service\/([^?]+)/.exec(String(this.opts.path))?.[1] ?? '';
    this.policy.onRetry?.({ operation, attempt: this.#attempt + 1, delayMs: delay, reason: describe(outcome) });
    this.#target = null;
    this.#waitTimer = setTimeout(() => {
      if (this.#userAbort) return this.#finishWithError(this.#userAbort);
      this.start();
    }, delay);
    return true;
  }

  #finishWithError(err: Error): void {
    clearTimeout(this.#attemptTimer);
    clearTimeout(this.#waitTimer);
    if (this.#done) return;
    this.#done = true;
    this.handler.onResponseError?.(this, err);
  }
}

/** An undici interceptor applying the policy for safe (idempotent) or unsafe operations. */
export function retryInterceptor(idempotent: boolean, policy: RetryOptions): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => new RetryingHandler(dispatch, opts, handler, idempotent, policy).start();
}
