// The stateful emulator of the service: `smslink serve`, `--sandbox` and the
// test suites all start it through startEmulator(). It keeps its state in
// SQLite, runs the message lifecycle on a clock and really redirects short
// links (README "Emulator").

import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Send } from '../client/send.js';
import type { FaultState } from './control/controls.js';
import { openCore, type EmulatorOptions } from './core.js';
import { inProcessSend } from './in-process.js';
import { requestListener } from './server.js';
import type { SeedCounts } from './control/seed-apply.js';
import type { Database } from './store/database.js';
import { DEFAULT_URL, DEFAULTS, LIMITS } from './defaults.js';
import type { FaultKind } from './control/faults.js';
import { inboxOf, type Inbox } from './control/inbox.js';

export { ManualClock, systemClock, type Clock } from './control/clock.js';
export type { ServiceHooks, ServiceExchange } from './server.js';
export { TEST_NUMBERS, DEFAULT_VALIDITY_MIN } from './service/lifecycle.js';
export { DEFAULT_SENDER } from './service/message.js';
export { MAX_BODY_BYTES } from './server.js';
export { DEFAULTS, LIMITS, CURRENCY_CODE, type Limits } from './defaults.js';
export { parseFaults, DEFAULT_FAULTS, FAULT_KINDS, type Fault, type FaultKind } from './control/faults.js';
export { sandboxDbPath, sandboxOptions, resetSandbox, localTimeZone, SANDBOX_KEY, SANDBOX_FILE } from './sandbox.js';

export type { EmulatorOptions } from './core.js';
export type { FaultState } from './control/controls.js';
export type { SeedCounts } from './control/seed-apply.js';
export { InboxTimeoutError, type Inbox, type InboxFilter, type InboxMessage, type InboxStep } from './control/inbox.js';
export { checkSeed, SeedError, type SeedData, type SeedLinkData, type SeedCampaignData, type SeedMessageData } from './control/seed.js';
export { readSeedFile, writeStarterSeed, DEFAULT_SEED_FILE, STARTER_YAML } from './control/seed-file.js';
export { isLoopback } from './inspector/access.js';
export { knownTimeZone } from './service/time-zone.js';

/** The running emulator; `messages()` and `waitForMessage()` (Inbox) read what the app sent. */
export interface RunningEmulator extends Inbox {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  /** Accepted API keys. */
  keys: string[];
  /** The web inspector's URL (the root), or null with `inspector: false`. */
  inspectorUrl: string | null;
  /** Stops accepting, lets requests in flight finish, closes the database; the methods below (and the inbox's) then reject: `reset: the emulator is closed`. */
  close(): Promise<void>;
  /** Faults injected so far, by kind (all zero without faultRate). */
  faultCounts(): Readonly<Record<FaultKind, number>>;
  /** Back to the seed (or empty): the database is emptied and seeded again, the clock's advance undone. */
  reset(): Promise<SeedCounts>;
  /** Moves the emulator's clock `seconds` ahead; messages whose next status comes due get it. */
  advance(seconds: number): Promise<void>;
  /** Every message on its way gets its final status now, without moving the clock; resolves to how many changed. */
  deliver(): Promise<number>;
  /** Switches faults on (rate > 0, drawn from `kinds`) or off (rate 0) while running. */
  setFaults(rate: number, kinds?: string | string[]): Promise<FaultState>;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { parts, db, bench, activity } = openCore(opts, true);
  const dispose = () => {
    activity?.close();
    bench.dispose();
  };
  let server: Server;
  try {
    const limits = { ...LIMITS, ...opts.limits };
    // Loaded here: the emulator in this process (--sandbox) does without it.
    const { createServer } = await import('node:http');
    // headersTimeout counts from the connection for its first request, so a
    // connection that sends nothing is answered 408 and closed like a slow one
    // (Node 20, 22, 24); a timer of our own beside it would only race it.
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
    return {
      url,
      port,
      keys: [...bench.keys],
      inspectorUrl: activity ? `${url}/` : null,
      close: closer(server, db, limits.closeGraceMs, dispose),
      faultCounts: () => bench.faults().counts,
      reset: async () => (bench.whileOpen('reset'), bench.reset()),
      advance: async (seconds) => void (bench.whileOpen('advance'), bench.advance(seconds)),
      deliver: async () => (bench.whileOpen('deliver'), bench.deliver()),
      setFaults: async (rate, kinds) => (bench.whileOpen('setFaults'), bench.setFaults(rate, kinds)),
      ...inboxOf({ settings: parts.settings, bench }),
    };
  } catch (err) {
    dispose();
    db.close();
    throw err;
  }
}

/** Options of the emulator in this process: those of startEmulator but the socket's and the faults'. */
export type InProcessOptions = Omit<EmulatorOptions, 'host' | 'port' | 'limits' | 'hooks' | 'faultRate' | 'faults' | 'seed' | 'faultSeed' | 'inspector' | 'controlToken' | 'cors' | 'requestLog'>;

/** The emulator in this process; `messages()` and `waitForMessage()` (Inbox) read what the app sent through `send`. */
export interface InProcessEmulator extends Inbox {
  /** The base URL to give a client along with `send`: the address `smslink serve` takes by default; nothing listens on it for this emulator. */
  url: string;
  /** Accepted API keys. */
  keys: string[];
  /** Give it to a client (SmsLinkClient's `send`): its requests are answered here, without a socket. */
  send: Send;
  /** Answers the requests already made, then closes the database. */
  close(): Promise<void>;
}

/**
 * The emulator in this process, reached through a send() instead of a
 * socket (`--sandbox`): a one-request command spends no time on a server, a
 * connection or HTTP parsing. Host, port, limits and faults, which belong to
 * a socket, are not taken (a fault rate is refused); `serve` and the tests
 * use startEmulator.
 */
export function openEmulatorInProcess(opts: InProcessOptions = {}): InProcessEmulator {
  const given = opts as EmulatorOptions;
  if ((given.faultRate ?? 0) !== 0 || given.hooks) throw new RangeError('faults need a socket: use startEmulator');
  const url = DEFAULT_URL;
  const { parts, db, bench } = openCore({ ...opts, shortBase: opts.shortBase ?? url }, false);
  const local = inProcessSend(parts, { settings: parts.settings, bench, log: parts.log });
  let closing: Promise<void> | undefined;
  return {
    url,
    keys: [...bench.keys],
    send: local.send,
    ...inboxOf({ settings: parts.settings, bench }),
    close: () => {
      // Readers waiting for a message are answered before the database closes.
      bench.dispose();
      return (closing ??= local.close().then(() => db.close()));
    },
  };
}

function closer(server: Server, db: Database, graceMs: number, beforeClose: () => void): () => Promise<void> {
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
        db.close();
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
}
