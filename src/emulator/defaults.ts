// Defaults and limits of the emulator, in a module of their own so that the
// sandbox helpers can name them without loading the server.

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  db: ':memory:',
  apiKeys: ['sandbox'],
  timeScale: 1,
  tz: 'UTC',
  price: 0.01,
  /** What each account has before its first message (User/GetOwnBalance), in `currency`. */
  balance: 100,
  currency: 'KZT',
} as const;

/** Where `smslink serve` listens without --host and --port, and the sandbox's short links point. */
export const DEFAULT_URL = `http://${DEFAULTS.host}:${DEFAULTS.port}`;

/** A currency as the balance names it: an ISO 4217 code. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** Header size and time limits against slow or oversized requests. */
export const LIMITS: Limits = {
  maxHeaderSize: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  /** How often connections are checked against the two timeouts above. */
  checkIntervalMs: 1_000,
  /** How long close() waits for requests in flight before cutting connections. */
  closeGraceMs: 5_000,
};

export interface Limits {
  maxHeaderSize: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  checkIntervalMs: number;
  closeGraceMs: number;
}
