// The retry policy, in one place and pure: what is retried for which
// operation, and how long to wait; the loop that applies it is exchange.ts.
// Create and Send are retried only when the service provably did nothing;
// delays are exponential with full jitter, never sooner than Retry-After.
// docs/client.md, "Failures and retries", has the whole table.

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

/** Why an attempt is retried, in words (--verbose). */
export function describeOutcome(outcome: Outcome): string {
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

/** The outcome of an answer: null for a success (envelope code 0). */
export function answerOutcome(status: number, code: number | null, headers: Record<string, string | string[] | undefined>): Outcome | null {
  const retryAfterMs = parseRetryAfter(headers['retry-after']);
  if (status < 200 || status > 299) return { kind: 'status', status, retryAfterMs };
  if (code === null) return { kind: 'garbled' };
  return code === 0 ? null : { kind: 'envelope', code, retryAfterMs };
}

/** The outcome of a send that failed: a refused connection, or one the send marks, sent nothing. */
export function failureOutcome(err: unknown, timedOut: boolean): Outcome & { kind: 'error' } {
  const e = err as { code?: string; cause?: { code?: string }; nothingSent?: boolean } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return { kind: 'error', nothingSent: e?.nothingSent === true || code === 'ECONNREFUSED', timeout: timedOut || /TIMEOUT/.test(code ?? ''), code };
}
