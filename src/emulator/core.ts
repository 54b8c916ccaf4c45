// The emulator without its way in: options checked, seed checked, database
// open and seeded, keys and accounts made, faults set, and (for a server)
// the inspector and control API. startEmulator adds a socket to it,
// openEmulatorInProcess a dispatcher.

import { corsOrigin, makeGate } from './inspector/access.js';
import { Activity } from './inspector/activity.js';
import { KeyRing } from './service/api-keys.js';
import { ShiftedClock, systemClock, type Clock } from './control/clock.js';
import { Bench } from './control/controls.js';
import { Database } from './store/database.js';
import { CURRENCY_CODE, DEFAULTS, type Limits } from './defaults.js';
import type { EmulatorSettings } from './service/handler.js';
import { inspectorRouter } from './inspector/routes.js';
import { checkSeed, EMPTY_SEED, type Seed, type SeedData } from './control/seed.js';
import { quoted } from '../output/text.js';
import { unknownName } from '../output/words.js';
import { requestSink } from './request-log.js';
import { buildRoutes, type ServerParts, type ServiceHooks } from './server.js';
import { knownTimeZone, TimeZone } from './service/time-zone.js';
import { parseFaults } from './control/faults.js';

export interface EmulatorOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port; default 8080; 0 picks a free one. */
  port?: number;
  /** Database file, or ':memory:' (the default). */
  db?: string;
  /** Accepted API keys, each its own account; default ['sandbox'] (or the seed's keys). */
  apiKeys?: string[];
  /** Base of short links; default the emulator's own base URL. */
  shortBase?: string;
  /** The message lifecycle runs this many times faster; default 1. */
  timeScale?: number;
  /** Account time zone (IANA name); default 'UTC'. */
  tz?: string;
  /** Sends await moderation (status 1) before they go out. */
  moderation?: boolean;
  /** Registered sender IDs accepted in `from`. */
  senders?: string[];
  /** Regular expression; links whose fullLink matches are created blocked. */
  blockPattern?: string;
  /** Price of one segment (segUserBuy); default 0.01. */
  price?: number;
  /** Each account's balance before its first message (User/GetOwnBalance); every message takes segNum x price off. Default 100. */
  balance?: number;
  /** ISO 4217 code of the balance; default 'KZT'. */
  currency?: string;
  /** Clock for tests; default the system clock. */
  clock?: Clock;
  /** Hooks around each /service/ operation (fault injection). */
  hooks?: ServiceHooks;
  /** Where unexpected errors are reported; default nowhere. */
  log?: (line: string) => void;
  /** Gets one line per request answered (time, operation, result, ms, key masked): serve's stdout; default nowhere. */
  requestLog?: (line: string) => void;
  /** Tighter or looser header size and time limits (tests of slow clients). */
  limits?: Partial<Limits>;
  /** Probability (0..1) that a /service/ request gets a fault; default 0. */
  faultRate?: number;
  /** Faults to draw from: `latency:MIN-MAXms`, reset, 500, 502, 503, code30, truncated, stall; default all but stall. */
  faults?: string | string[];
  /** Seed of the fault draw; the same seed and requests give the same faults. Default 1. */
  faultSeed?: number;
  /**
   * What the emulator starts with and returns to on reset(): keys, senders,
   * links, campaigns, messages (docs/emulator-reference.md, "Seed files"). The database is emptied
   * first. A number is the fault seed, as before faultSeed (deprecated).
   */
  seed?: SeedData | number;
  /** The web inspector at / and /_emulator/ (and its request log); default on. */
  inspector?: boolean;
  /** Needed by the inspector and control API (header or cookie); without one they answer loopback only. */
  controlToken?: string;
  /** Origins (`http://localhost:3000`) whose web pages may call /service/ from a browser (CORS); pages of other sites are refused. */
  cors?: string[];
}

export interface Core {
  parts: ServerParts;
  db: Database;
  bench: Bench;
  activity: Activity | null;
}

/** Every option, so that a name outside them is refused: a slip (`apiKey` for apiKeys) would be dropped unsaid, and the emulator start without it. */
const OPTION_NAMES: Record<keyof EmulatorOptions, true> = {
  host: true, port: true, db: true, apiKeys: true, shortBase: true, timeScale: true, tz: true, moderation: true, senders: true,
  blockPattern: true, price: true, balance: true, currency: true, clock: true, hooks: true, log: true, requestLog: true,
  limits: true, faultRate: true, faults: true, faultSeed: true, seed: true, inspector: true, controlToken: true, cors: true,
};

function checkOptions(opts: EmulatorOptions): void {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) throw new TypeError(`the emulator's options must be an object such as { port: 0 } (got ${quoted(opts)})`);
  const names = Object.keys(OPTION_NAMES);
  const unknown = Object.keys(opts).find((k) => !Object.hasOwn(OPTION_NAMES, k));
  if (unknown !== undefined) throw new RangeError(`${unknownName('option', unknown, names)}; the emulator takes ${names.join(', ')}`);
  const { timeScale, price, balance, currency, port } = opts;
  if (timeScale !== undefined && !(Number.isFinite(timeScale) && timeScale > 0)) throw new RangeError(`timeScale must be a positive number (got ${quoted(timeScale)})`);
  if (price !== undefined && !(Number.isFinite(price) && price >= 0)) throw new RangeError(`price must be zero or more (got ${quoted(price)})`);
  if (balance !== undefined && !(Number.isFinite(balance) && balance >= 0)) throw new RangeError(`balance must be zero or more (got ${quoted(balance)})`);
  if (currency !== undefined && !CURRENCY_CODE.test(currency)) throw new RangeError(`currency must be an ISO 4217 code of three capital letters, e.g. KZT (got ${quoted(currency)})`);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new RangeError(`port must be a number from 0 to 65535 (got ${quoted(port)})`);
  if (opts.tz !== undefined && !knownTimeZone(opts.tz)) throw new RangeError(`tz must be an IANA time zone name, e.g. Asia/Almaty or UTC (got ${quoted(opts.tz)})`);
  if (opts.faultRate !== undefined && !(typeof opts.faultRate === 'number' && opts.faultRate >= 0 && opts.faultRate <= 1)) throw new RangeError(`faultRate must be between 0 and 1 (got ${quoted(opts.faultRate)})`);
  // Checked whatever the rate: a list given with none (or with 0) would otherwise wait for the first setFaults to be refused.
  if (opts.faults !== undefined) parseFaults(opts.faults);
  opts.cors?.forEach(corsOrigin);
  if (opts.apiKeys !== undefined && (opts.apiKeys.length === 0 || opts.apiKeys.some((k) => typeof k !== 'string' || k === ''))) {
    throw new RangeError('apiKeys must name at least one non-empty key');
  }
}

function blockPatternOf(source: string | undefined): RegExp | null {
  if (source === undefined || source === '') return null;
  try {
    return new RegExp(source);
  } catch (err) {
    throw new SyntaxError(`block pattern is not a valid regular expression: ${(err as Error).message}`);
  }
}

/** Opens the emulator; `server` adds the inspector and control API (a socket is there to reach them). */
export function openCore(opts: EmulatorOptions, server: boolean): Core {
  checkOptions(opts);
  const tz = new TimeZone(opts.tz ?? DEFAULTS.tz);
  const blockPattern = blockPatternOf(opts.blockPattern);
  const seeded = typeof opts.seed === 'object' && opts.seed !== null;
  const seed: Seed = seeded ? checkSeed(opts.seed, opts.apiKeys ?? [], opts.senders ?? []) : EMPTY_SEED;
  const faultSeed = opts.faultSeed ?? (typeof opts.seed === 'number' ? opts.seed : 1);
  const keys = [...new Set([...seed.keys, ...(opts.apiKeys ?? (seed.keys.length ? [] : DEFAULTS.apiKeys))])];
  const clock = new ShiftedClock(opts.clock ?? systemClock);
  const log = opts.log ?? (() => {});
  const db = Database.open(opts.db ?? DEFAULTS.db);
  try {
    const settings: EmulatorSettings = {
      db,
      clock,
      tz,
      // Without one, startEmulator makes it the URL it listens on.
      shortBase: opts.shortBase?.replace(/\/+$/, '') ?? '',
      moderation: opts.moderation ?? false,
      senders: new Set([...(opts.senders ?? []), ...seed.senders]),
      blockPattern,
      price: opts.price ?? DEFAULTS.price,
      balance: opts.balance ?? DEFAULTS.balance,
      currency: opts.currency ?? DEFAULTS.currency,
      timeScale: opts.timeScale ?? DEFAULTS.timeScale,
    };
    const activity = server && opts.inspector !== false ? new Activity(db, clock) : null;
    const record = requestSink(activity, server ? opts.requestLog : undefined, tz);
    const parts: ServerParts = { settings, keys: new KeyRing([], () => 0), routes: buildRoutes(), hooks: opts.hooks ?? null, log, record, pages: null, gate: null };
    const bench = new Bench({ parts, clock, keys, seed, hooks: opts.hooks ?? null, faultSeed, activity });
    // A seed is the whole state: nothing from an earlier run stays.
    if (seeded) db.reset();
    bench.open(seeded);
    if (opts.faultRate !== undefined && opts.faultRate !== 0) bench.setFaults(opts.faultRate, opts.faults);
    if (server) {
      parts.gate = makeGate(opts.host ?? DEFAULTS.host, opts.controlToken, { cors: opts.cors?.map(corsOrigin), shortBase: opts.shortBase });
      parts.pages = inspectorRouter({ settings, bench, activity, gate: parts.gate, log });
    }
    return { parts, db, bench, activity };
  } catch (err) {
    db.close();
    throw err;
  }
}
