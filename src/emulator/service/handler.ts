// What a handler gets: the emulator's settings and database, the caller's
// account, the moment of the request and the validated input of the catalog.

import type { Clock } from '../control/clock.js';
import type { Database } from '../store/database.js';
import type { TimeZone } from './time-zone.js';

/** The {code, data, message} envelope of real-service-notes.md. */
export interface Answer {
  code: number;
  data: unknown;
  message: string;
}

export interface EmulatorSettings {
  db: Database;
  clock: Clock;
  tz: TimeZone;
  /** Base of short links, no trailing slash. */
  shortBase: string;
  moderation: boolean;
  senders: ReadonlySet<string>;
  blockPattern: RegExp | null;
  price: number;
  /** Each account's balance before any of its messages is paid for. */
  balance: number;
  /** ISO 4217 code of the balance and prices. */
  currency: string;
  timeScale: number;
}

export interface Call {
  settings: EmulatorSettings;
  accountId: number;
  now: number;
  /** Validated and coerced input, keyed by catalog param key. */
  values: Record<string, unknown>;
}

export type Handler = (call: Call) => Answer;

export const ok = (data: unknown): Answer => ({ code: 0, data, message: '' });

/** Data already serialised to JSON (a cached answer); the envelope splices it in as is. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
export const fail = (code: number, message: string, data: unknown = null): Answer => ({ code, data, message });

/** An amount as the live service writes it: a decimal string with four places ("0.0600"); never "-0.0000". */
export const money = (n: number): string => (Math.round(n * 1e4) / 1e4 + 0).toFixed(4);

/** The live service sends numbers read from its database as strings. */
export const str = (n: number | null | undefined): string | null => (n === null || n === undefined ? null : String(n));
