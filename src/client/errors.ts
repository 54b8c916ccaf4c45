// Typed errors of the client. Each carries what went wrong in the user's
// terms; src/cli/exit.ts maps them to exit codes in one place.

import { AUTH_CODES, describeCode } from '../catalog/codes.js';
import type { Issue } from '../catalog/validate.js';

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
    super(`${operation}: ${issues.map((i) => `${i.key} ${i.rule}`).join('; ')}`);
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
    /** Field errors from data on code 1, e.g. {fullLink: "..."}; null otherwise. */
    readonly fields: Record<string, unknown> | null,
    readonly data: unknown,
    /** For Create/Send: the code does not say whether the link or message was made. */
    readonly outcomeUnknown = false,
  ) {
    const meaning = describeCode(code);
    const detail = serviceMessage && serviceMessage !== meaning ? `: ${serviceMessage}` : '';
    const fieldText = fields
      ? ` (${Object.entries(fields)
          .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join('; ')})`
      : '';
    super(`${operation} failed with code ${code} (${meaning})${detail}${fieldText}`);
    this.meaning = meaning;
  }
  get isNotFound(): boolean {
    return this.code === 2;
  }
  get isAuth(): boolean {
    return AUTH_CODES.has(this.code);
  }
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
    super(message);
  }
  get status(): number | undefined {
    return this.details.status;
  }
  get outcomeUnknown(): boolean {
    return this.details.outcomeUnknown ?? false;
  }
}
