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

/** The live service sends numbers read from its database as strings. */
export const str = (n: number | null | undefined): string | null => (n === null || n === undefined ? null : String(n));
