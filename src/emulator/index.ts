// The stateful emulator of the service: `smslink serve`, `--sandbox` and the
// test suites all start it through startEmulator(). It keeps its state in
// SQLite, runs the message lifecycle on a clock and really redirects short
// links (README "Emulator").

import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { KeyRing } from './auth.js';
import { systemClock, type Clock } from './clock.js';
import type { Settings } from './context.js';
import { InProcessDispatcher } from './in-process.js';
import { buildRoutes, requestListener, type ServerParts, type ServiceHooks } from './server.js';
import { Store } from './store.js';
import { TimeZone } from './time.js';
import { DEFAULTS, LIMITS, type Limits } from './defaults.js';
import { faultInjector, FAULT_KINDS, type FaultInjector, type FaultKind } from './faults.js';

export { ManualClock, systemClock, type Clock } from './clock.js';
export type { ServiceHooks, ServiceExchange } from './server.js';
export { TEST_NUMBERS, DEFAULT_VALIDITY_MIN } from './lifecycle.js';
export { DEFAULT_SENDER } from './messages.js';
export { MAX_BODY_BYTES } from './server.js';
export { DEFAULTS, LIMITS, type Limits } from './defaults.js';
export { parseFaults, DEFAULT_FAULTS, FAULT_KINDS, type Fault, type FaultKind } from './faults.js';
export { sandboxDbPath, sandboxOptions, resetSandbox, localTimeZone, SANDBOX_KEY, SANDBOX_FILE } from './sandbox.js';

export interface EmulatorOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port; default 8080; 0 picks a free one. */
  port?: number;
  /** Database file, or ':memory:' (the default). */
  db?: string;
  /** Accepted API keys, each its own account; default ['sandbox']. */
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
  /** Clock for tests; default the system clock. */
  clock?: Clock;
  /** Hooks around each /service/ operation (fault injection). */
  hooks?: ServiceHooks;
  /** Where unexpected errors are reported; default nowhere. */
  log?: (line: string) => void;
  /** Tighter or looser header size and time limits (tests of slow clients). */
  limits?: Partial<Limits>;
  /** Probability (0..1) that a /service/ request gets a fault; default 0. */
  faultRate?: number;
  /** Faults to draw from: `latency:MIN-MAXms`, reset, 500, 502, 503, code30, truncated, stall; default all but stall. */
  faults?: string | string[];
  /** Seed of the fault draw; the same seed and requests give the same faults. Default 1. */
  seed?: number;
}

export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  /** Accepted API keys. */
  keys: string[];
  /** Stops accepting, lets requests in flight finish, closes the database. */
  close(): Promise<void>;
  /** Faults injected so far, by kind (all zero without faultRate). */
  faultCounts(): Readonly<Record<FaultKind, number>>;
}

function checkOptions(opts: EmulatorOptions): void {
  const { timeScale, price, port } = opts;
  if (timeScale !== undefined && !(Number.isFinite(timeScale) && timeScale > 0)) throw new RangeError(`timeScale must be a positive number (got ${timeScale})`);
  if (price !== undefined && !(Number.isFinite(price) && price >= 0)) throw new RangeError(`price must be zero or more (got ${price})`);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new RangeError(`port must be 0 to 65535 (got ${port})`);
  if (opts.apiKeys !== undefined && (opts.apiKeys.length === 0 || opts.apiKeys.some((k) => typeof k !== 'string' || k === ''))) {
    throw new RangeError('apiKeys must name at least one non-empty key');
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The emulator without its way in: options checked, database open, ready to answer. */
interface Core {
  parts: ServerParts;
  store: Store;
  keys: string[];
  faults: FaultInjector | null;
}

function openCore(opts: EmulatorOptions): Core {
  checkOptions(opts);
  const tz = new TimeZone(opts.tz ?? DEFAULTS.tz);
  let blockPattern: RegExp | null = null;
  if (opts.blockPattern !== undefined && opts.blockPattern !== '') {
    try {
      blockPattern = new RegExp(opts.blockPattern);
    } catch (err) {
      throw new SyntaxError(`block pattern is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  const faults: FaultInjector | null = opts.faultRate !== undefined && opts.faultRate !== 0 ? faultInjector({ faultRate: opts.faultRate, faults: opts.faults, seed: opts.seed }) : null;
  const hooks = combineHooks(faults, opts.hooks ?? null);
  const clock = opts.clock ?? systemClock;
  const keys = [...new Set(opts.apiKeys ?? DEFAULTS.apiKeys)];
  const store = Store.open(opts.db ?? DEFAULTS.db);
  try {
    const ring = new KeyRing(keys, (digest) => store.account(digest, clock.now()));
    const settings: Settings = {
      store,
      clock,
      tz,
      // Without one, startEmulator makes it the URL it listens on.
      shortBase: opts.shortBase?.replace(/\/+$/, '') ?? '',
      moderation: opts.moderation ?? false,
      senders: new Set(opts.senders ?? []),
      blockPattern,
      price: opts.price ?? DEFAULTS.price,
      timeScale: opts.timeScale ?? DEFAULTS.timeScale,
    };
    return { parts: { settings, keys: ring, routes: buildRoutes(), hooks, log: opts.log ?? (() => {}) }, store, keys, faults };
  } catch (err) {
    faults?.dispose();
    store.close();
    throw err;
  }
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { parts, store, keys, faults } = openCore(opts);
  let server: Server;
  try {
    const limits = { ...LIMITS, ...opts.limits };
    // Loaded here: the emulator in this process (--sandbox) does without it.
    const { createServer } = await import('node:http');
    server = createServer(
      {
        maxHeaderSize: limits.maxHeaderSize,
        requestTimeout: limits.requestTimeoutMs,
        headersTimeout: limits.headersTimeoutMs,
        connectionsCheckingInterval: limits.checkIntervalMs,
        noDelay: true,
      },
      requestListener(parts),
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    const host = opts.host ?? DEFAULTS.host;
    server.listen(opts.port ?? DEFAULTS.port, host);
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
    const port = (server.address() as AddressInfo).port;
    const url = `http://${hostForUrl(host)}:${port}`;
    if (opts.shortBase === undefined) parts.settings.shortBase = url;
    const noFaults = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
    return {
      url,
      port,
      keys,
      close: closer(server, store, limits.closeGraceMs, () => faults?.dispose()),
      faultCounts: () => ({ ...(faults?.counts ?? noFaults) }),
    };
  } catch (err) {
    faults?.dispose();
    store.close();
    throw err;
  }
}

/** Options of the emulator in this process: those of startEmulator but the socket's and the faults'. */
export type InProcessOptions = Omit<EmulatorOptions, 'host' | 'port' | 'limits' | 'hooks' | 'faultRate' | 'faults' | 'seed'>;

export interface InProcessEmulator {
  /** The base URL to give a client along with `dispatcher`: the address `smslink serve` takes by default; nothing listens on it for this emulator. */
  url: string;
  /** Accepted API keys. */
  keys: string[];
  /** Give it to a client (SmsLinkClient's `dispatcher`): its requests are answered here, without a socket. */
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  /** Answers the requests already made, then closes the database. */
  close(): Promise<void>;
}

/**
 * The emulator in this process, reached through a dispatcher instead of a
 * socket (`--sandbox`): a one-request command spends no time on a server, a
 * connection or HTTP parsing. Host, port, limits and faults, which belong to
 * a socket, are not taken (a fault rate is refused); `serve` and the tests
 * use startEmulator.
 */
export function openEmulatorInProcess(opts: InProcessOptions = {}): InProcessEmulator {
  const given = opts as EmulatorOptions;
  if ((given.faultRate ?? 0) !== 0 || given.hooks) throw new RangeError('faults need a socket: use startEmulator');
  const url = `http://${DEFAULTS.host}:${DEFAULTS.port}`;
  const { parts, store, keys } = openCore({ ...opts, shortBase: opts.shortBase ?? url });
  const dispatcher = new InProcessDispatcher(parts);
  let closing: Promise<void> | undefined;
  return {
    url,
    keys,
    dispatcher,
    close: () => (closing ??= dispatcher.close().then(() => store.close())),
  };
}

/** Runs the hooks of `a`, then those of `b`, each step stopping at the first that took over. */
function combineHooks(a: ServiceHooks | null, b: ServiceHooks | null): ServiceHooks | null {
  if (!a || !b) return a ?? b;
  return {
    before: async (x) => ((await a.before?.(x)) ?? false) || ((await b.before?.(x)) ?? false),
    after: async (x, answer) => ((await a.after?.(x, answer)) ?? false) || ((await b.after?.(x, answer)) ?? false),
  };
}

function closer(server: Server, store: Store, graceMs: number, beforeClose: () => void): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve) => {
      beforeClose();
      // close() stops accepting and drops idle keep-alive connections; busy ones
      // close once their answer is written. A stuck one is cut after a grace time.
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        store.close();
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
}
