// The test-control API, JSON under /_emulator/ (never under /service/); each
// route, its parameters and answers: docs/emulator-reference.md "Test-control API".
// controlAnswer() answers one request whatever carried it (a socket, or the
// emulator in the CLI's process for --sandbox); controlApi() is the HTTP side,
// which refuses a body past 64 KiB or 8 levels of nesting as it arrives.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_ADVANCE_S } from './controls.js';
import { count, invalidValue } from '../../output/words.js';
import { inboxFilter, readInbox, waitForInbox, type InboxDeps } from './inbox.js';
import { FORCEABLE, type Forceable } from '../service/lifecycle.js';
import { MAX_WAIT_MS, WaitersFull } from './waiters.js';

const MAX_BODY = 64 * 1024;
/** The bodies are flat ({"rate": 0.1, "kinds": ["503"]}): deeper nesting is no request of this API. */
const MAX_DEPTH = 8;
/** A number as a person writes it: digits, maybe a fraction; not 0x10, 1e3, Infinity or " 5". */
const DECIMAL = /^\d{1,15}(\.\d{1,15})?$/;

export interface ControlDeps extends InboxDeps {
  /** Where unexpected failures are reported. */
  log: (line: string) => void;
}

class BadRequest extends Error {
  /** `cut`: answered before the body was read to its end; the connection is closed after the answer. */
  constructor(
    message: string,
    readonly status = 400,
    readonly cut = false,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A POST body read: its fields, and whether it came as a browser's form (the inspector without its
 * script), answered by going back to the controls page. A form from a script (`curl -d rate=0.2`,
 * which asks for no HTML) is answered in JSON, as any other body.
 */
export interface ControlBody {
  value: Record<string, unknown>;
  form: boolean;
}

export interface ControlReply {
  status: number;
  /** Sent as JSON; undefined for a redirect. */
  value?: unknown;
  headers?: Record<string, string>;
}

const READS = ['messages', 'clock', 'faults'];
const WRITES = ['messages/status', 'reset', 'clock', 'deliver', 'faults'];

/** Whether `route` (the path after /_emulator/) is one of the control API's. */
export function isControlRoute(route: string): boolean {
  return READS.includes(route) || WRITES.includes(route);
}

/** The client went away while its body was being read: nothing to answer. */
class Gone extends Error {}

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

/** Whether the client asks for a page (a browser's Accept names text/html; curl's is *\/*). */
const acceptsHtml = (req: IncomingMessage) => /\btext\/html\b/i.test(req.headers.accept ?? '');

/** Whether a Content-Type is a form's; any other body is read as JSON. */
const isForm = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';

/** A body read whole, as an object: a form (a repeated field becomes a list) or JSON. */
function bodyOf(form: boolean, text: string): ControlBody {
  if (form) {
    const value: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(text)) value[k] = k === 'kinds' ? [...((value[k] as string[]) ?? []), v] : v;
    return { value, form: true };
  }
  if (text.trim() === '') return { value: {}, form: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequest('body: must be a JSON object; this is not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BadRequest('body: must be a JSON object');
  return { value: value as Record<string, unknown>, form: false };
}

/** A body given whole (the emulator in the CLI's process), with the limits a socket's has. */
export function parseBody(contentType: string | undefined, text: string): ControlBody {
  const bytes = Buffer.from(text);
  if (bytes.length > MAX_BODY) throw new BadRequest(`body: larger than ${MAX_BODY} bytes`, 413);
  const form = isForm(contentType);
  if (!form && !depthGauge()(bytes)) throw new BadRequest(`body: nested deeper than ${MAX_DEPTH} levels; this API takes a flat JSON object`);
  return bodyOf(form, text);
}

/**
 * The body as an object: JSON, or a form (a repeated field becomes a list).
 * One too large or too deep is refused as soon as that shows, not read to its end.
 */
function readBody(req: IncomingMessage): Promise<ControlBody> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new BadRequest(`body: larger than ${MAX_BODY} bytes`, 413, true);
    if (Number(req.headers['content-length']) > MAX_BODY) return reject(tooLarge());
    const form = isForm(req.headers['content-type']);
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
      try {
        resolve(bodyOf(form, Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** A number given as JSON or as decimal text (a form); undefined when it is neither. */
function decimal(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : undefined;
}

const WAIT_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `wait` as milliseconds: 30s, 500ms, 2m or a bare number of seconds, at most MAX_WAIT_MS. */
function waitOf(value: string): number {
  const m = /^(\d{1,7}(?:\.\d{1,3})?)(ms|s|m)?$/.exec(value);
  const ms = m ? Math.round(Number(m[1]) * WAIT_UNITS[m[2] ?? 's']) : NaN;
  if (!(ms >= 0 && ms <= MAX_WAIT_MS)) {
    throw new BadRequest(invalidValue('wait', value, `must be a duration from 0 to ${MAX_WAIT_MS / 1000}s, such as 30s, 500ms or 2m (a bare number is seconds)`));
  }
  return ms;
}

/**
 * GET messages: those sent, newest first (inbox.ts picks and shows them).
 * With `wait`, an answer with none is held until a matching message is
 * stored or the wait runs out (`timedOut` says which); one with some is
 * given at once.
 */
function listMessages(d: ControlDeps, query: string, signal?: AbortSignal) {
  const q = new URLSearchParams(query);
  const given = (name: string) => q.get(name) ?? undefined;
  let filter;
  try {
    filter = inboxFilter(d.settings, { to: given('to'), text: given('text'), since: given('since'), limit: given('limit') });
  } catch (err) {
    if (err instanceof RangeError) throw new BadRequest(err.message);
    throw err;
  }
  const wait = q.get('wait');
  if (wait === null) return readInbox(d, filter);
  return waitForInbox(d, filter, waitOf(wait), signal).catch((err: unknown) => {
    if (err instanceof WaitersFull) throw new BadRequest('wait: too many requests are waiting already; try again in a second', 503, false, { 'retry-after': '1' });
    throw err;
  });
}

/** POST messages/status {"id", "status"}: one message given a final status now, as its lifecycle would. */
function setStatus(d: ControlDeps, body: Record<string, unknown>) {
  const idText = typeof body.id === 'number' ? String(body.id) : typeof body.id === 'string' ? body.id : '';
  const id = /^\d{1,15}$/.test(idText) ? Number(idText) : NaN;
  if (!(id >= 1)) throw new BadRequest(invalidValue('id', body.id, `must be a message id (a whole number from 1)`));
  const status = typeof body.status === 'string' ? body.status.trim().toUpperCase() : '';
  if (!(FORCEABLE as readonly string[]).includes(status)) {
    throw new BadRequest(invalidValue('status', body.status, `must be a final status: ${FORCEABLE.join(', ')}`));
  }
  const done = d.bench.setStatus(id, status as Forceable);
  if (!done) throw new BadRequest(`id: no message ${id} (GET /_emulator/messages lists them)`, 404);
  const [sms] = readInbox(d, { id, limit: 1 }).messages;
  const at = d.settings.tz.format(d.settings.clock.now());
  const message = done.changed ? `Message ${id} is ${status} from ${at} (it was ${done.previous})` : `Message ${id} was ${status} already; nothing changed`;
  return { message, changed: done.changed, previousStatus: done.previous, sms };
}

function clockState(d: ControlDeps) {
  return { now: d.settings.tz.format(d.settings.clock.now()), timeZone: d.settings.tz.name, pendingSeconds: d.bench.pendingSeconds() };
}

function advance(d: ControlDeps, body: Record<string, unknown>) {
  const given = body.advance;
  const seconds = given === 'pending' ? d.bench.pendingSeconds() : decimal(given);
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_ADVANCE_S) {
    throw new BadRequest(invalidValue('advance', given, `must be a number of seconds from 0 to ${MAX_ADVANCE_S}, in decimal, or "pending"`));
  }
  d.bench.advance(seconds);
  return { ...clockState(d), advanced: seconds, message: `The clock moved ${seconds} s ahead: ${d.settings.tz.format(d.settings.clock.now())}` };
}

function faults(d: ControlDeps, body: Record<string, unknown>) {
  const rate = decimal(body.rate);
  if (rate === undefined || !(rate >= 0 && rate <= 1)) throw new BadRequest(invalidValue('rate', body.rate, `must be a probability from 0 to 1, in decimal`));
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

/**
 * Answers one request of the control API (`route`: the path after
 * /_emulator/, one isControlRoute() takes; `body`: a POST's, read). `signal`
 * ends a wait early (the reader went away). Never rejects.
 */
export async function controlAnswer(d: ControlDeps, method: string, route: string, query: string, body: ControlBody | null, signal?: AbortSignal): Promise<ControlReply> {
  const reads: Record<string, () => unknown> = { messages: () => listMessages(d, query, signal), clock: () => clockState(d), faults: () => d.bench.faults() };
  const writes: Record<string, (body: Record<string, unknown>) => unknown> = {
    'messages/status': (b) => setStatus(d, b),
    reset: () => {
      const made = d.bench.reset();
      return { ...made, message: `Reset: ${count(made.links, 'link')}, ${count(made.messages, 'message')} from the seed` };
    },
    clock: (b) => advance(d, b),
    deliver: () => {
      const delivered = d.bench.deliver();
      return { ...clockState(d), delivered, message: `Delivered ${count(delivered, 'message')} on their way; the clock stays at ${d.settings.tz.format(d.settings.clock.now())}` };
    },
    faults: (b) => faults(d, b),
  };
  try {
    if ((method === 'GET' || method === 'HEAD') && route in reads) return { status: 200, value: await reads[route]() };
    if (method === 'POST' && route in writes) {
      const answer = writes[route](body?.value ?? {});
      // A form sent without the inspector's script: back to the controls page.
      return body?.form ? { status: 303, headers: { location: '/_emulator/controls' } } : { status: 200, value: answer };
    }
    const allow = route in writes && route in reads ? 'GET, POST' : route in writes ? 'POST' : 'GET';
    return { status: 405, value: { error: `${method} is not used here: ${route in writes ? 'POST' : 'GET'} /_emulator/${route}` }, headers: { allow } };
  } catch (err) {
    if (err instanceof BadRequest) return { status: err.status, value: { error: err.message }, headers: err.headers };
    d.log(`emulator: /_emulator/${route}: ${(err as Error)?.stack ?? String(err)}`);
    return { status: 500, value: { error: 'the emulator failed to do this' } };
  }
}

/** A POST's fields as the request log shows parameters (a form). */
function asForm(value: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    for (const item of Array.isArray(v) ? v : [v]) form.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
  }
  return form.toString();
}

/** Answers a request of the control API over HTTP; false when `route` is not one. A POST goes into the request log. */
export function controlApi(d: ControlDeps, req: IncomingMessage, res: ServerResponse, route: string, query: string): boolean {
  if (!isControlRoute(route)) return false;
  const method = req.method ?? 'GET';
  const started = performance.now();
  // A reader that goes away ends its wait: the answer would go nowhere.
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const body = method === 'POST' && WRITES.includes(route) ? readBody(req) : Promise.resolve(null);
  body
    .then(
      (read) => controlAnswer(d, method, route, query, read && { ...read, form: read.form && acceptsHtml(req) }, gone.signal).then((reply) => ({ reply, read })),
      (err: unknown) => {
        if (!(err instanceof BadRequest)) throw err;
        const headers: Record<string, string> = err.cut ? { connection: 'close' } : {};
        return { reply: { status: err.status, value: { error: err.message }, headers } as ControlReply, read: null };
      },
    )
    .then(({ reply, read }) => {
      if (res.destroyed) return;
      // A reader answered because the emulator is stopping must not keep its connection open.
      const headers = d.bench.closed ? { ...reply.headers, connection: 'close' } : reply.headers;
      if (reply.value === undefined) {
        res.writeHead(reply.status, { ...headers, 'content-length': 0 });
        res.end();
      } else sendJson(res, reply.status, reply.value, headers);
      if (method !== 'POST') return;
      d.bench.record({
        at: d.settings.clock.now(),
        op: `POST /_emulator/${route}`,
        visit: false,
        control: true,
        key: undefined,
        code: null,
        status: reply.status,
        fault: null,
        ms: performance.now() - started,
        query,
        body: read ? asForm(read.value) : '',
        answer: reply.value === undefined ? null : JSON.stringify(reply.value),
      });
    })
    .catch((err: unknown) => {
      if (err instanceof Gone) return;
      d.log(`emulator: /_emulator/${route}: ${(err as Error)?.stack ?? String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'the emulator failed to do this' });
    });
  return true;
}
