// Starts the emulator for a test on 127.0.0.1:0 with a private in-memory
// database and a manual clock, and talks to it over real HTTP. `call` encodes
// parameters the way the client does (qs, bracket keys, values encoded).

import type { Readable } from 'node:stream';
import qs from 'qs';
import { request } from 'undici';
import { ManualClock, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export interface Envelope {
  code: number;
  data: unknown;
  message: string;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface TestEmulator {
  url: string;
  port: number;
  /** Accepted keys; the first is the default of `call`. */
  keys: string[];
  key: string;
  clock: ManualClock;
  emulator: RunningEmulator;
  /** POSTs a form body to /service/<path> with output=json, api=v1 and the key; returns the envelope. */
  call(path: string, params?: Record<string, unknown>, key?: string, options?: { arrayFormat?: 'indices' | 'brackets' }): Promise<Envelope>;
  /** Any request, nothing added: for protocol and hostile-input tests. */
  raw(method: string, pathAndQuery: string, body?: string | Buffer | Readable, headers?: Record<string, string>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export const TEST_START = Date.UTC(2025, 0, 15, 10, 0, 0);

export function serviceQuery(key: string): string {
  return `output=json&api=v1&apiKey=${encodeURIComponent(key)}`;
}

export function encodeParams(params: Record<string, unknown>, arrayFormat: 'indices' | 'brackets' = 'indices'): string {
  return qs.stringify(params, { encodeValuesOnly: true, arrayFormat, format: 'RFC3986', charset: 'utf-8' });
}

export async function startTestEmulator(opts: EmulatorOptions & { clock?: ManualClock } = {}): Promise<TestEmulator> {
  const clock = opts.clock ?? new ManualClock(TEST_START);
  const emulator = await startEmulator({ port: 0, db: ':memory:', ...opts, clock });
  const raw = async (method: string, pathAndQuery: string, body?: string | Buffer | Readable, headers: Record<string, string> = {}): Promise<RawAnswer> => {
    const res = await request(`${emulator.url}${pathAndQuery}`, { method: method as 'GET', body, headers });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  };
  return {
    url: emulator.url,
    port: emulator.port,
    keys: emulator.keys,
    key: emulator.keys[0],
    clock,
    emulator,
    async call(path, params = {}, key = emulator.keys[0], options = {}) {
      const res = await raw('POST', `/service/${path}?${serviceQuery(key)}`, encodeParams(params, options.arrayFormat), {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 200)}`);
      return JSON.parse(res.text) as Envelope;
    },
    raw,
    close: () => emulator.close(),
  };
}

/**
 * Seed links for a long list: `count` links named `<name><i>` (their code),
 * each with a comment of `commentLength` characters, so that a page weighs
 * what a test needs (a pipe filled, a reader gone before the last page).
 */
export function seedLinks(count: number, name: string, commentLength = 200): Array<{ fullLink: string; code: string; comment: string }> {
  return Array.from({ length: count }, (_, i) => ({ fullLink: `https://example.com/${name}/${i}`, code: `${name}${i}`, comment: 'x'.repeat(commentLength) }));
}

/**
 * Calls `create` until the link it made has a letter in its code, and `drop`
 * with each one that had not. Digits alone are read as an id
 * (src/cli/link/ref.ts), so a test that passes a code bare needs a code with a
 * letter; the emulator, like the service, makes about one four-character code
 * in 1,500 of digits alone.
 */
export async function withLetterInCode<T extends { code: string }>(create: () => Promise<T>, drop?: (link: T) => Promise<unknown>): Promise<T> {
  for (;;) {
    const link = await create();
    if (/\D/.test(link.code)) return link;
    await drop?.(link);
  }
}

/**
 * How long a request took, as the request log and the inspector's request list
 * say it (words.ts elapsed(): `1.2 ms`, `340 ms`, `<0.1 ms`), for a RegExp's source;
 * TOOK_HTML as the inspector's HTML escapes it.
 */
export const TOOK = String.raw`(?:<0\.1|\d+(?:\.\d)?) ms`;
export const TOOK_HTML = TOOK.replace('<', '&lt;');
