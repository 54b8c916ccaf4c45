// Typed errors of the client. Each carries what went wrong in the user's
// terms; src/cli/exit.ts maps them to exit codes in one place.

import { AUTH_CODES, describeCode } from '../catalog/codes.js';
import type { Issue } from '../catalog/validate.js';
import { escapeControls } from '../output/text.js';
import { redact } from '../secrets.js';
import { isCertificateError, type Outcome } from './retry.js';

export class SmsLinkError extends Error {
  override name = 'SmsLinkError';
}

/** Input breaks a rule of the contract; nothing was sent. */
export class ValidationError extends SmsLinkError {
  override name = 'ValidationError';
  constructor(
    readonly operation: string,
    readonly issues: Issue[],
  ) {
    // A choice of parameters (`id|code|shortLink`) is said by its rule alone, which names them, as the emulator says it.
    super(`${operation}: ${issues.map((i) => (i.key.includes('|') ? i.rule : `${i.key} ${i.rule}`)).join('; ')}`);
  }
}

/** Settings are missing or unsafe (no key, no base URL, key over plain http). Nothing was sent. */
export class ConfigError extends SmsLinkError {
  override name = 'ConfigError';
  constructor(
    message: string,
    /** `usage` when the user asked for something unsafe, `config` when something is missing. */
    readonly kind: 'config' | 'usage' = 'config',
  ) {
    super(message);
  }
}

/** The service answered with a result code other than 0. */
export class ApiError extends SmsLinkError {
  override name = 'ApiError';
  readonly meaning: string;
  constructor(
    readonly operation: string,
    readonly code: number,
    readonly serviceMessage: string,
    /** Field errors from data on code 1: each field's text, or its list of texts as the live service sends them ({fullLink: ["..."]}); null otherwise. */
    readonly fields: Record<string, unknown> | null,
    readonly data: unknown,
    /** For Create/Send: the code does not say whether the link or message was made. */
    readonly outcomeUnknown = false,
  ) {
    const meaning = describeCode(code);
    const detail = serviceMessage && serviceMessage !== meaning ? `: ${serviceMessage}` : '';
    const fieldText = fields
      ? ` (${Object.entries(fields)
          .map(([k, v]) => `${k}: ${firstText(v)}`)
          .join('; ')})`
      : '';
    // The service's words (and a gateway's) are shown to people and written to logs: escapes and bidi controls escaped, so they cannot drive a terminal.
    super(escapeControls(`${operation} failed with code ${code} (${meaning})${detail}${fieldText}`));
    this.meaning = meaning;
  }
  get isNotFound(): boolean {
    return this.code === 2;
  }
  get isAuth(): boolean {
    return AUTH_CODES.has(this.code);
  }
}

/** What a field's error says, shown as one text: the text, or the first of its list (`{"fullLink": ["..."]}`, as the live service sends them). */
function firstText(v: unknown): string {
  const first = Array.isArray(v) && v.length > 0 ? v[0] : v;
  return typeof first === 'string' ? first : JSON.stringify(first);
}

export type TransportKind = 'timeout' | 'connection' | 'http' | 'protocol' | 'aborted';

/** No usable answer: refused, reset, timed out, HTTP error status, or a body that is not the envelope. */
export class TransportError extends SmsLinkError {
  override name = 'TransportError';
  constructor(
    readonly operation: string,
    readonly kind: TransportKind,
    message: string,
    readonly details: {
      status?: number;
      bodyStart?: string;
      /** The request may have been carried out: for Create/Send the outcome is unknown. */
      outcomeUnknown?: boolean;
      attempts?: number;
    } = {},
  ) {
    super(escapeControls(message));
  }
  get status(): number | undefined {
    return this.details.status;
  }
  get outcomeUnknown(): boolean {
    return this.details.outcomeUnknown ?? false;
  }
}

/**
 * What the client's errors call each setting that would change them, in its
 * caller's words: a library user sets options (OPTION_NAMES, the default),
 * a person at the command line passes flags (src/cli/core/connect.ts).
 */
export interface SettingNames {
  timeoutMs: string;
  allowInsecureHttp: string;
  ca: string;
  proxy: string;
}

export const OPTION_NAMES: SettingNames = {
  timeoutMs: 'the timeoutMs option',
  allowInsecureHttp: 'the allowInsecureHttp option',
  ca: 'the ca option',
  proxy: 'the proxy option',
};

/**
 * A call the caller's signal ended: its reason (`abort(reason)`, the
 * TimeoutError of AbortSignal.timeout()) is the error's `cause`, as fetch
 * gives it, so an app tells its own shutdown from its own deadline.
 */
export function interrupted(operation: string, signal: AbortSignal, details: { outcomeUnknown: boolean; attempts: number }): TransportError {
  const err = new TransportError(operation, 'aborted', `${operation}: interrupted`, details);
  // Not enumerable, as Error's own cause: JSON.stringify of the error stays as it was.
  Object.defineProperty(err, 'cause', { value: signal.reason, configurable: true, writable: true, enumerable: false });
  return err;
}

/**
 * A failed send in the user's terms: interrupted, timed out, a certificate, a
 * name, a connection. `proxy`: host:port of the proxy option requests go
 * through. `aborted`: the caller's signal, once it has ended the call.
 * `names`: what the caller calls the settings the message points to.
 */
export function describeFailure(
  err: unknown,
  how: Outcome & { kind: 'error' },
  aborted: AbortSignal | undefined,
  c: { operation: string; url: string; idempotent: boolean; attempts: number; timeoutMs: number; proxy?: string; names: SettingNames },
): TransportError {
  const { operation, attempts, names } = c;
  const code = how.code;
  const outcomeUnknown = !c.idempotent && !how.nothingSent;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (aborted) return interrupted(operation, aborted, { outcomeUnknown, attempts });
  if (how.timeout) {
    const seconds = `${Math.round(c.timeoutMs / 100) / 10} s`;
    return new TransportError(operation, 'timeout', `${operation}: no answer within the ${seconds} timeout (${names.timeoutMs})${tries}`, { outcomeUnknown, attempts });
  }
  const url = new URL(c.url);
  if (isCertificateError(code)) {
    const why = `the TLS certificate of ${url.host} could not be verified (${code}); if it is signed by a private CA, pass ${names.ca} or set NODE_EXTRA_CA_CERTS`;
    return new TransportError(operation, 'connection', `${operation}: ${why}`, { outcomeUnknown: false, attempts });
  }
  if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && !c.proxy) {
    const why = code === 'EAI_AGAIN' ? ' (the DNS lookup failed for now: EAI_AGAIN)' : '';
    return new TransportError(operation, 'connection', `${operation}: could not resolve host ${url.hostname}${why}${tries}`, { outcomeUnknown: false, attempts });
  }
  const reason = code === 'ECONNREFUSED' ? 'connection refused' : code ? `connection failed (${code})` : 'connection failed';
  const detail = err instanceof Error && !code ? `: ${redact(err.message)}` : '';
  // Through a proxy, a socket error is the proxy's: a target it cannot reach comes back as its HTTP answer.
  const by = c.proxy && code ? `the proxy ${c.proxy} (${names.proxy}), on the way to ${url.host}` : url.host;
  return new TransportError(operation, 'connection', `${operation}: ${reason} by ${by}${detail}${tries}`, { outcomeUnknown, attempts });
}
