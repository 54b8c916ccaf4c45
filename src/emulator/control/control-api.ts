// The test-control API, JSON under /_emulator/ (never under /service/):
//   GET  /_emulator/messages?to=&text=&since=&limit=   the messages sent, newest first,
//        with status, times, segments, price, country and operator (the truth reports are held to)
//   POST /_emulator/reset                       back to the seed (or empty)
//   POST /_emulator/clock   {"advance": SECONDS | "pending"}
//   POST /_emulator/deliver                     every message on its way gets its
//                                               final status now; the clock stays
//   POST /_emulator/faults  {"rate": P, "kinds": [...]}
// GET of clock and faults tells the present state. Bodies are JSON (or a
// form, from the inspector without its script), refused as they arrive once
// past 64 KiB (413) or nested past 8 levels (400); a bad value is HTTP 400
// with {"error": "<field>: <rule>"}. Numbers are decimal.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizePhone, parseDate, parseDateTime } from '../../catalog/rules.js';
import type { Bench } from './controls.js';
import { MAX_ADVANCE_S } from './controls.js';
import type { EmulatorSettings } from '../service/handler.js';
import { count } from '../../output/words.js';
import { messages, type MessageView } from '../inspector/inspect.js';
import { wallOf } from '../service/time-zone.js';
import { numberInfo } from '../service/numbers.js';

const MAX_BODY = 64 * 1024;
/** The bodies are flat ({"rate": 0.1, "kinds": ["503"]}): deeper nesting is no request of this API. */
const MAX_DEPTH = 8;
const MESSAGE_LIMIT = 1000;
/** A number as a person writes it: digits, maybe a fraction; not 0x10, 1e3, Infinity or " 5". */
const DECIMAL = /^\d{1,15}(\.\d{1,15})?$/;

export interface ControlDeps {
  settings: EmulatorSettings;
  bench: Bench;
  /** Where unexpected failures are reported. */
  log: (line: string) => void;
}

class BadRequest extends Error {
  /** `cut`: answered before the body was read to its end; the connection is closed after the answer. */
  constructor(
    message: string,
    readonly status = 400,
    readonly cut = false,
  ) {
    super(message);
  }
}

/** The client went away while its body was being read: nothing to answer. */
class Gone extends Error {}

/** A value as an error message shows it: JSON, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value ?? null) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The nesting of JSON text fed to it in pieces, outside its strings: false once past MAX_DEPTH. */
function depthGauge(): (chunk: Buffer) => boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  return (chunk) => {
    for (const byte of chunk) {
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === 0x5c) escaped = true;
        else if (byte === 0x22) inString = false;
      } else if (byte === 0x22) inString = true;
      else if (byte === 0x7b || byte === 0x5b) {
        if (++depth > MAX_DEPTH) return false;
      } else if (byte === 0x7d || byte === 0x5d) depth--;
    }
    return true;
  };
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = `${JSON.stringify(value)}\n`;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/**
 * The body as an object: JSON, or a form (a repeated field becomes a list).
 * One too large or too deep is refused as soon as that shows, not read to its end.
 */
function readBody(req: IncomingMessage): Promise<{ value: Record<string, unknown>; form: boolean }> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new BadRequest(`body: larger than ${MAX_BODY} bytes`, 413, true);
    if (Number(req.headers['content-length']) > MAX_BODY) return reject(tooLarge());
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const form = type === 'application/x-www-form-urlencoded';
    const withinDepth = form ? null : depthGauge();
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    const stop = (err: Error) => {
      over = true;
      req.removeListener('data', take);
      req.pause();
      reject(err);
    };
    const take = (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) return stop(tooLarge());
      if (withinDepth && !withinDepth(c)) return stop(new BadRequest(`body: nested deeper than ${MAX_DEPTH} levels; this API takes a flat JSON object`, 400, true));
      chunks.push(c);
    };
    req.on('data', take);
    req.on('error', () => !over && stop(new Gone()));
    req.on('end', () => {
      if (over) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (form) {
        const value: Record<string, unknown> = {};
        for (const [k, v] of new URLSearchParams(text)) value[k] = k === 'kinds' ? [...((value[k] as string[]) ?? []), v] : v;
        return resolve({ value, form: true });
      }
      if (text.trim() === '') return resolve({ value: {}, form: false });
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return reject(new BadRequest('body: must be a JSON object; this is not JSON'));
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject(new BadRequest('body: must be a JSON object'));
      resolve({ value: value as Record<string, unknown>, form: false });
    });
  });
}

/** A number given as JSON or as decimal text (a form); undefined when it is neither. */
function decimal(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : undefined;
}

/** `since` as the API's `YYYY-MM-DD HH:MM:SS` (or a day) in the emulator's zone, or ISO 8601 with a zone. */
function sinceOf(s: EmulatorSettings, value: string): number {
  const parts = parseDateTime(value) ?? parseDate(value);
  if (parts) return s.tz.fromWall(wallOf(parts));
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new BadRequest(`since: invalid value "${value.slice(0, 40)}": must be YYYY-MM-DD HH:MM:SS (in ${s.tz.name}) or an ISO 8601 time`);
  return ms;
}

function messageJson(d: ControlDeps, m: MessageView) {
  const f = (ms: number | null) => (ms === null ? null : d.settings.tz.format(ms));
  return {
    id: m.id,
    account: d.bench.accounts.indexOf(m.accountId) + 1,
    campaignId: m.campaignId,
    from: m.from,
    to: m.to,
    text: m.text,
    status: m.status,
    segments: m.segments,
    encoding: m.encoding,
    // Per segment and in all (segUserBuy × segNum), as a delivery report counts cost.
    segUserBuy: m.segPrice,
    price: m.price,
    ...numberInfo(m.to),
    createdAt: f(m.createdAt),
    startSendTs: f(m.startSendTs),
    statusUpdateTs: f(m.statusUpdateTs),
    timeline: m.timeline.filter((t) => !t.pending).map((t) => ({ status: t.status, at: f(t.at) })),
  };
}

function listMessages(d: ControlDeps, query: string) {
  const q = new URLSearchParams(query);
  const limitText = q.get('limit');
  const limit = limitText === null ? 100 : /^\d{1,6}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MESSAGE_LIMIT)) throw new BadRequest(`limit: invalid value ${shown(limitText)}: must be a whole number from 1 to ${MESSAGE_LIMIT}`);
  const to = q.get('to');
  const digits = to === null ? undefined : normalizePhone(to);
  if (digits !== undefined && digits !== '' && !/^\d+$/.test(digits)) throw new BadRequest(`to: invalid value ${shown(to)}: must be digits (part of a number)`);
  const since = q.get('since');
  const found = messages(d.settings, { to: digits || undefined, text: q.get('text') || undefined, since: since ? sinceOf(d.settings, since) : undefined, limit });
  return { messages: found.items.map((m) => messageJson(d, m)), total: found.total };
}

function clockState(d: ControlDeps) {
  return { now: d.settings.tz.format(d.settings.clock.now()), timeZone: d.settings.tz.name, pendingSeconds: d.bench.pendingSeconds() };
}

function advance(d: ControlDeps, body: Record<string, unknown>) {
  const given = body.advance;
  const seconds = given === 'pending' ? d.bench.pendingSeconds() : decimal(given);
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_ADVANCE_S) {
    throw new BadRequest(`advance: invalid value ${shown(given)}: must be a number of seconds from 0 to ${MAX_ADVANCE_S}, in decimal, or "pending"`);
  }
  d.bench.advance(seconds);
  return { ...clockState(d), advanced: seconds, message: `The clock moved ${seconds} s ahead: ${d.settings.tz.format(d.settings.clock.now())}` };
}

function faults(d: ControlDeps, body: Record<string, unknown>) {
  const rate = decimal(body.rate);
  if (rate === undefined || !(rate >= 0 && rate <= 1)) throw new BadRequest(`rate: invalid value ${shown(body.rate)}: must be a probability from 0 to 1, in decimal`);
  const kinds = body.kinds;
  if (kinds !== undefined && typeof kinds !== 'string' && !(Array.isArray(kinds) && kinds.every((k) => typeof k === 'string'))) {
    throw new BadRequest('kinds: must be a list of faults, such as ["503", "reset", "latency:50-500ms"]');
  }
  if (Array.isArray(kinds) && kinds.length === 0 && rate > 0) throw new BadRequest('kinds: needs at least one fault');
  try {
    const state = d.bench.setFaults(rate, kinds as string | string[] | undefined);
    return { ...state, message: rate > 0 ? `Faults on: ${Math.round(rate * 1000) / 10}% of /service/ requests` : 'Faults off' };
  } catch (err) {
    throw new BadRequest(`kinds: ${(err as Error).message}`);
  }
}

/** Answers a request of the control API (`route` is the path after /_emulator/); false when it is not one. */
export function controlApi(d: ControlDeps, req: IncomingMessage, res: ServerResponse, route: string, query: string): boolean {
  const method = req.method ?? 'GET';
  const reads: Record<string, () => unknown> = { messages: () => listMessages(d, query), clock: () => clockState(d), faults: () => d.bench.faults() };
  const writes: Record<string, (body: Record<string, unknown>) => unknown> = {
    reset: () => {
      const made = d.bench.reset();
      return { ...made, message: `Reset: ${made.links} links, ${made.messages} messages from the seed` };
    },
    clock: (body) => advance(d, body),
    deliver: () => {
      const delivered = d.bench.deliver();
      return { ...clockState(d), delivered, message: `Delivered ${count(delivered, 'message')} on their way; the clock stays at ${d.settings.tz.format(d.settings.clock.now())}` };
    },
    faults: (body) => faults(d, body),
  };
  if (!(route in reads) && !(route in writes)) return false;
  const fail = (err: unknown) => {
    if (err instanceof Gone) return;
    if (err instanceof BadRequest) return sendJson(res, err.status, { error: err.message }, err.cut ? { connection: 'close' } : {});
    d.log(`emulator: /_emulator/${route}: ${(err as Error)?.stack ?? String(err)}`);
    if (!res.headersSent) sendJson(res, 500, { error: 'the emulator failed to do this' });
  };
  if ((method === 'GET' || method === 'HEAD') && route in reads) {
    try {
      sendJson(res, 200, reads[route]());
    } catch (err) {
      fail(err);
    }
    return true;
  }
  if (method === 'POST' && route in writes) {
    readBody(req)
      .then(({ value, form }) => {
        const answer = writes[route](value);
        // A form sent without the inspector's script: back to the controls page.
        if (form) {
          res.writeHead(303, { location: '/_emulator/controls', 'content-length': 0 });
          res.end();
        } else sendJson(res, 200, answer);
      })
      .catch(fail);
    return true;
  }
  sendJson(res, 405, { error: `${method} is not used here: ${route in writes ? 'POST' : 'GET'} /_emulator/${route}` }, { allow: route in writes && route in reads ? 'GET, POST' : route in writes ? 'POST' : 'GET' });
  return true;
}
