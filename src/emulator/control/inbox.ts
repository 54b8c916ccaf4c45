// The emulator's inbox as a test reads it: which messages a filter picks
// (to, text, since, limit), the record each is given, and the wait for one
// to arrive. GET /_emulator/messages (and so `smslink inbox`) and the
// library's messages() and waitForMessage() all come here, so they pick and
// show alike.

import { normalizePhone, parseDate, parseDateTime } from '../../catalog/rules.js';
import type { MessageStatus } from '../../catalog/types.js';
import { elapsed, invalidValue } from '../../output/words.js';
import { quoted } from '../../output/text.js';
import type { EmulatorSettings } from '../service/handler.js';
import { messages, type MessageFilter, type MessageView } from '../inspector/inspect.js';
import { numberInfo } from '../service/numbers.js';
import { wallOf } from '../service/time-zone.js';
import type { Bench } from './controls.js';
import { MAX_WAIT_MS, MAX_WAITERS, WaitersFull } from './waiters.js';

/** At most this many messages in one answer. */
export const MESSAGE_LIMIT = 1000;
/** How long waitForMessage() waits when not told: as long as `smslink inbox wait`. */
export const DEFAULT_WAIT_MS = 30_000;

/** What the inbox reads: the emulator's settings (database, clock, zone) and its bench (accounts, waiting readers). */
export interface InboxDeps {
  settings: EmulatorSettings;
  bench: Bench;
}

/**
 * Which messages to read; every field is optional and they combine (AND).
 * The query of GET /_emulator/messages, by the same names.
 */
export interface InboxFilter {
  /** Part of the recipient number: `+77011234567`, `7701` (a leading + and spaces are dropped). */
  to?: string;
  /** Part of the text, case as written. */
  text?: string;
  /** Sent at or after this, by the emulator's clock: a Date, `YYYY-MM-DD HH:MM:SS` in its time zone, or ISO 8601 with a zone. */
  since?: Date | string;
  /** At most this many, newest first: 1 to 1000; default 100. */
  limit?: number;
}

/** One status a message reached, and when (in the emulator's time zone). */
export interface InboxStep {
  status: MessageStatus;
  at: string;
}

/** A message the emulator holds, as GET /_emulator/messages answers it. Times are `YYYY-MM-DD HH:MM:SS` in the emulator's time zone. */
export interface InboxMessage {
  id: number;
  /** Whose: 1 for the first API key, 2 for the second... */
  account: number;
  campaignId: number;
  /** The sender ID it went out with. */
  from: string;
  /** The recipient, digits only (77011234567). */
  to: string;
  text: string;
  /** Its status now: NEW, ENQUEUD, ACCEPTD, then DELIVRD, PDLIVRD, UNDELIV, REJECTD or EXPIRED. */
  status: MessageStatus;
  segments: number;
  encoding: 'GSM-7' | 'UCS-2';
  /** Price of one segment. */
  segUserBuy: number;
  /** segUserBuy × segments. */
  price: number;
  /** Country (ISO 3166 alpha-2) and operator of the number, when the emulator's table knows them. */
  countryA2: string | null;
  operatorName: string | null;
  createdAt: string;
  startSendTs: string | null;
  statusUpdateTs: string | null;
  /** The statuses reached so far, NEW first. */
  timeline: InboxStep[];
}

/** Messages picked, newest first, and how many match in all. */
export interface InboxAnswer {
  messages: InboxMessage[];
  total: number;
}

/** Thrown by waitForMessage() when no matching message came within its timeout. */
export class InboxTimeoutError extends Error {
  override name = 'InboxTimeoutError';
  constructor(
    /** The filter as it was given. */
    readonly filter: Omit<InboxFilter, 'limit'>,
    readonly timeoutMs: number,
  ) {
    const which = `no message matching ${JSON.stringify(filter)}`;
    super(`waitForMessage: ${timeoutMs === 0 ? `${which} is there (timeoutMs 0: no wait)` : `${which} came within ${elapsed(timeoutMs)}`}`);
  }
}

/** `since` as the API's `YYYY-MM-DD HH:MM:SS` (or a day) in the emulator's zone, or ISO 8601 with a zone, or a Date. */
function sinceOf(s: EmulatorSettings, value: unknown): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError('since: invalid value: an Invalid Date; must be a Date, YYYY-MM-DD HH:MM:SS or an ISO 8601 time');
    return value.getTime();
  }
  const given = typeof value === 'string' ? value : '';
  const parts = parseDateTime(given) ?? parseDate(given);
  if (parts) return s.tz.fromWall(wallOf(parts));
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(given) ? Date.parse(given) : NaN;
  if (Number.isNaN(ms)) {
    throw new RangeError(invalidValue('since', value, `must be YYYY-MM-DD HH:MM:SS (in ${s.tz.name}) or an ISO 8601 time`));
  }
  return ms;
}

/**
 * The one check of a filter, for the control API's query (strings; an empty
 * one is no filter) and the library's (typed) alike. Throws RangeError
 * naming the field and its rule.
 */
export function inboxFilter(s: EmulatorSettings, given: { to?: unknown; text?: unknown; since?: unknown; limit?: unknown }): MessageFilter {
  const { limit: limitGiven, to, text, since } = given;
  const limit = limitGiven === undefined ? 100 : typeof limitGiven === 'number' ? limitGiven : typeof limitGiven === 'string' && /^\d{1,6}$/.test(limitGiven) ? Number(limitGiven) : NaN;
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MESSAGE_LIMIT)) throw new RangeError(invalidValue('limit', limitGiven, `must be a whole number from 1 to ${MESSAGE_LIMIT}`));
  // A number from JavaScript is digits too, but not text: "must be digits" beside 77011234567 would read as nonsense.
  if (to !== undefined && typeof to !== 'string') throw new RangeError(invalidValue('to', to, `must be a string of digits (part of a number), such as '+77011234567'`));
  const digits = to === undefined ? undefined : normalizePhone(to);
  if (digits !== undefined && digits !== '' && !/^\d+$/.test(digits)) throw new RangeError(invalidValue('to', to, `must be digits (part of a number)`));
  if (text !== undefined && typeof text !== 'string') throw new RangeError(invalidValue('text', text, `must be a string (part of the text)`));
  return { to: digits || undefined, text: text || undefined, since: since === undefined || since === '' ? undefined : sinceOf(s, since), limit };
}

function messageJson(d: InboxDeps, m: MessageView): InboxMessage {
  const f = (ms: number | null) => (ms === null ? null : d.settings.tz.format(ms));
  return {
    id: m.id,
    account: d.bench.accounts.indexOf(m.accountId) + 1,
    campaignId: m.campaignId,
    from: m.from,
    to: m.to,
    text: m.text,
    status: m.status as MessageStatus,
    segments: m.segments,
    encoding: m.encoding,
    // Per segment and in all (segUserBuy × segNum), as a delivery report counts cost.
    segUserBuy: m.segPrice,
    price: m.price,
    ...numberInfo(m.to),
    createdAt: f(m.createdAt)!,
    startSendTs: f(m.startSendTs),
    statusUpdateTs: f(m.statusUpdateTs),
    timeline: m.timeline.filter((t) => !t.pending).map((t) => ({ status: t.status as MessageStatus, at: f(t.at)! })),
  };
}

/** The messages `filter` picks, newest first, as the control API answers them. */
export function readInbox(d: InboxDeps, filter: MessageFilter): InboxAnswer {
  const found = messages(d.settings, filter);
  return { messages: found.items.map((m) => messageJson(d, m)), total: found.total };
}

/**
 * What `filter` picks, at once when it picks any; else held until a message
 * it picks is stored (the database tells, no polling of our own), `ms` runs
 * out, the signal aborts or the emulator closes: `timedOut` says which.
 * Rejects with WaitersFull when MAX_WAITERS wait already.
 */
export async function waitForInbox(d: InboxDeps, filter: MessageFilter, ms: number, signal?: AbortSignal): Promise<InboxAnswer & { timedOut: boolean }> {
  const found = () => {
    const answer = readInbox(d, filter);
    return answer.total > 0 ? { ...answer, timedOut: false } : undefined;
  };
  const none = () => found() ?? { messages: [], total: 0, timedOut: true };
  const now = found();
  if (now || ms === 0) return now ?? none();
  return d.bench.waiters.wait(found, ms, none, signal);
}

/** Reading the inbox from the library: RunningEmulator's and InProcessEmulator's. */
export interface Inbox {
  /**
   * The messages the emulator holds (every account's) that `filter` picks,
   * newest first, as GET /_emulator/messages lists them; [] when none.
   * Throws RangeError for a bad filter, naming the field.
   */
  messages(filter?: InboxFilter): Promise<InboxMessage[]>;
  /**
   * The newest message `filter` picks: at once when there is one already,
   * else as soon as one is stored. Rejects with InboxTimeoutError after
   * `timeoutMs` (0 to 300000, default 30000), and with the signal's reason
   * when `signal` aborts.
   */
  waitForMessage(filter?: Omit<InboxFilter, 'limit'>, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<InboxMessage>;
}

const FILTER_FIELDS = ['to', 'text', 'since', 'limit'];

/** A library caller's filter checked: an object of known fields (a field misspelt would pick every message). */
function libraryFilter(d: InboxDeps, method: string, filter: unknown, fields: string[]): MessageFilter {
  d.bench.whileOpen(method);
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw new TypeError(`${method}: the filter must be an object such as { to: '+77011234567' } (got ${quoted(filter)})`);
  const unknown = Object.keys(filter).find((k) => !fields.includes(k));
  if (unknown !== undefined) throw new RangeError(`${method}: ${quoted(unknown)} is not a filter; it takes ${fields.join(', ')}`);
  return inboxFilter(d.settings, filter as InboxFilter);
}

/** The library's methods over the inbox of one emulator. */
export function inboxOf(d: InboxDeps): Inbox {
  return {
    messages: async (filter = {}) => readInbox(d, libraryFilter(d, 'messages', filter, FILTER_FIELDS)).messages,
    waitForMessage: async (filter = {}, options = {}) => {
      const { timeoutMs = DEFAULT_WAIT_MS, signal } = options;
      if (!(typeof timeoutMs === 'number' && timeoutMs >= 0 && timeoutMs <= MAX_WAIT_MS)) {
        throw new RangeError(invalidValue('timeoutMs', timeoutMs, `must be a number of milliseconds from 0 to ${MAX_WAIT_MS}`));
      }
      const picked = { ...libraryFilter(d, 'waitForMessage', filter, FILTER_FIELDS.filter((f) => f !== 'limit')), limit: 1 };
      signal?.throwIfAborted();
      let answer: InboxAnswer;
      try {
        answer = await waitForInbox(d, picked, timeoutMs, signal);
      } catch (err) {
        if (err instanceof WaitersFull) {
          d.bench.whileOpen('waitForMessage');
          throw new Error(`waitForMessage: ${MAX_WAITERS} waits are under way already (the control API's included); wait for some to end`);
        }
        throw err;
      }
      if (answer.messages[0]) return answer.messages[0];
      signal?.throwIfAborted();
      if (d.bench.closed) throw new Error(`waitForMessage: the emulator closed before a message matching ${JSON.stringify(filter)} came`);
      throw new InboxTimeoutError(filter, timeoutMs);
    },
  };
}
