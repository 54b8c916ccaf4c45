// The HTTP side: reads requests with bounded size, routes /service/<module>/
// <operation> through a Map to the handler named by the catalog id, checks
// output/api/apiKey and the catalog's parameter rules, and writes the
// {code, data, message} envelope (HTTP 200 for API-level errors). Anything else
// is a short-link visit. No request gets a 500: unexpected failures answer
// code 3 (or 10 when the database stayed locked) and the server keeps going.
// Hooks run before and after each /service/ operation (fault injection).
// Paths starting /_ (which no short-link code can) and / belong to the
// inspector and the control API (`pages`); each request answered is handed
// to `record` (request-log.ts: the inspector's log, serve's lines), nothing
// more on the request path.

import { isAscii } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS } from '../catalog/index.js';
import type { OperationSpec } from '../catalog/types.js';
import { validateInput, type Issue } from '../catalog/validate.js';
import type { LogEntry } from './inspector/activity.js';
import type { KeyRing } from './service/api-keys.js';
import { fail, RawJson, type Answer, type Handler, type EmulatorSettings } from './service/handler.js';
import { LINK_HANDLERS } from './service/link.js';
import { MESSAGE_HANDLERS } from './service/message.js';
import { CODE_PATH, visit } from './service/redirect.js';
import { FormLimitError, fromWire, parseRequest, type FormObject } from './service/wire.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
const SERVICE_PREFIX = '/service/';

export interface Route {
  op: OperationSpec;
  handler: Handler;
}

const HANDLERS: Record<string, Handler> = { ...LINK_HANDLERS, ...MESSAGE_HANDLERS };

/** `module/operation` in lower case -> route; handlers and catalog operations pair up one to one, by catalog id. */
export function buildRoutes(): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const op of OPERATIONS) {
    const handler = HANDLERS[op.id];
    if (!handler) throw new Error(`no emulator handler for catalog operation ${op.id}`);
    routes.set(`${op.module}/${op.operation}`.toLowerCase(), { op, handler });
  }
  const stray = Object.keys(HANDLERS).filter((id) => !OPERATIONS.some((op) => op.id === id));
  if (stray.length) throw new Error(`emulator handlers without a catalog operation: ${stray.join(', ')}`);
  return routes;
}

/** What a hook sees of a /service/ request. */
export interface ServiceExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** `module/operation` as the caller spelled it. */
  path: string;
  /** The fault a hook injected, for the request log. */
  fault?: string;
}

/**
 * Points where fault injection (issue 5) plugs in. `before` runs once the
 * request is read and before anything is carried out; `after` runs once the
 * operation is done, with the answer about to be sent. Either returns true
 * when it has dealt with the response itself (answered, delayed, dropped).
 */
export interface ServiceHooks {
  before?(x: ServiceExchange): boolean | Promise<boolean>;
  after?(x: ServiceExchange, answer: { status: number; body: string }): boolean | Promise<boolean>;
}

/** Answers a request for / or a path starting /_ when it is one of its own; false lets it through to the short links. */
export type PageRouter = (req: IncomingMessage, res: ServerResponse, path: string, query: string) => boolean;

export interface ServerParts {
  settings: EmulatorSettings;
  /** Replaced on reset, when the accounts are made again. */
  keys: KeyRing;
  routes: Map<string, Route>;
  /** Replaced when faults are switched on or off while running. */
  hooks: ServiceHooks | null;
  log: (line: string) => void;
  /** Takes each request answered (request-log.ts); null when nothing is kept or printed. */
  record: ((entry: LogEntry) => void) | null;
  /** The inspector and the control API; null in the emulator without a socket. */
  pages: PageRouter | null;
}

/** An answer ready to send: status, body and headers beyond the JSON content type and length. */
export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

function writeJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

const writeReply = (res: ServerResponse, r: Reply) => writeJson(res, r.status, r.body, r.headers);

function envelope(a: Answer): string {
  if (a.data instanceof RawJson) return `{"code":${a.code},"data":${a.data.text},"message":${JSON.stringify(a.message)}}`;
  return JSON.stringify({ code: a.code, data: a.data, message: a.message });
}

/** The answer for validation problems: missing (11) and constraint (12) codes win over plain validation (1). */
export function answerIssues(op: OperationSpec, issues: Array<Pick<Issue, 'key' | 'wire' | 'rule' | 'code'>>): Answer {
  const first = issues.find((i) => i.code !== 1) ?? issues[0];
  const chosen = issues.filter((i) => i.code === first.code);
  const data: Record<string, string> = {};
  for (const i of chosen) data[i.key] ??= i.rule;
  // A choice between parameters (`id|code|shortLink`) is named by its rule alone.
  const message = chosen.map((i) => (i.wire.includes('|') ? i.rule : `${i.wire} ${i.rule}`)).join('; ');
  return fail(first.code, `${op.module}/${op.operation}: ${message}`, data);
}

/** The body as text; null when it is not valid UTF-8. */
export function decodeBody(buf: Buffer): string | null {
  if (buf.length === 0) return '';
  if (isAscii(buf)) return buf.toString('latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return null;
  }
}

const reply = (a: Answer, status = 200, headers?: Record<string, string>): Reply => ({ status, body: envelope(a), headers });

/** The answer to a /service/ request sent with another method than GET or POST; null for those two. */
export function wrongMethod(method: string): Reply | null {
  return method === 'GET' || method === 'POST' ? null : reply(fail(5, `method ${method} is not used here: send POST (or GET)`), 405, { allow: 'GET, POST' });
}

export const TOO_LARGE: Reply = reply(fail(1, `request body larger than ${MAX_BODY_BYTES} bytes`), 413, { connection: 'close' });
export const NOT_UTF8: Reply = reply(fail(1, 'the request body is not valid UTF-8', { body: 'is not valid UTF-8' }));

/** `Module/Operation` as spelled in a /service/ path; null for any other path. */
export function servicePath(path: string): string | null {
  return path.startsWith(SERVICE_PREFIX) ? path.slice(SERVICE_PREFIX.length).replace(/\/+$/, '') : null;
}

/**
 * The reply to a /service/ request read in full, when no hook takes part:
 * synchronous, no promise per request. Never throws: a failure is code 3.
 */
export function serviceReply(parts: ServerParts, path: string, query: string, body: string): Reply {
  const started = performance.now();
  try {
    const { params, refused } = decodeRequest(query, body);
    const answer = refused ?? guarded(parts, path, params);
    const r = reply(answer);
    parts.record?.({ at: parts.settings.clock.now(), op: path, visit: false, key: params.apiKey, code: answer.code, status: 200, fault: null, ms: performance.now() - started, query, body, answer: r.body });
    return r;
  } catch (err) {
    parts.log(`emulator: ${path.slice(0, 100)}: ${(err as Error)?.stack ?? String(err)}`);
    return reply(fail(3, 'unknown application error'));
  }
}

/** Carries out one /service/ request whose parameters are decoded. */
export function service(parts: ServerParts, spelled: string, params: FormObject): Answer {
  // output and api are optional on the live service, json and v1 when absent or empty (real-service-notes.md).
  const output = params.output || 'json';
  if (typeof output !== 'string' || output.toLowerCase() !== 'json') {
    return fail(6, 'unsupported output format: this service answers output=json');
  }
  const accountId = parts.keys.account(params.apiKey);
  if (accountId === null) return fail(8, 'failed.api.auth', []);
  if ((params.api || 'v1') !== 'v1') return fail(5, 'unknown API version: send api=v1');
  const path = spelled.toLowerCase();
  const route = parts.routes.get(path);
  if (!route) {
    const known = [...parts.routes.keys()].some((k) => k.startsWith(`${path.split('/')[0]}/`));
    const shown = spelled.slice(0, 100);
    return known ? fail(5, `unknown method: ${shown}`) : fail(4, `unknown module: ${shown.split('/')[0]}`);
  }
  const { op, handler } = route;
  const { input, problems } = fromWire(op, params);
  if (problems.length) return answerIssues(op, problems.map((p) => ({ key: p.key, wire: p.key, rule: p.rule, code: 1 })));
  const s = parts.settings;
  const now = s.clock.now();
  const { values, issues } = validateInput(op, input, { now: new Date(now), toInstant: s.tz.toInstant, live: true });
  if (issues.length) return answerIssues(op, issues);
  return handler({ settings: s, accountId, now, values });
}

/** A request's parameters; one past the form's limits (wire.ts) is refused with code 12, and has none. */
function decodeRequest(query: string, body: string): { params: FormObject; refused: Answer | null } {
  try {
    return { params: parseRequest(query, body), refused: null };
  } catch (err) {
    if (err instanceof FormLimitError) return { params: {}, refused: fail(12, err.message, { request: err.message }) };
    throw err;
  }
}

function guarded(parts: ServerParts, path: string, params: FormObject): Answer {
  try {
    return service(parts, path, params);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
      return fail(10, 'save failed: the database is busy (concurrent access); try again');
    }
    parts.log(`emulator: ${path}: ${(err as Error)?.stack ?? String(err)}`);
    return fail(3, 'unknown application error');
  }
}

async function answerService(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string): Promise<void> {
  const started = performance.now();
  const exchange: ServiceExchange = { req, res, path };
  const { params, refused } = decodeRequest(query, body);
  const log = (code: number | null, answer: string | null = null) =>
    parts.record?.({ at: parts.settings.clock.now(), op: path, visit: false, key: params.apiKey, code, status: res.headersSent ? res.statusCode : 0, fault: exchange.fault ?? null, ms: performance.now() - started, query, body, answer });
  const hooks = parts.hooks;
  if (hooks?.before && (await hooks.before(exchange))) {
    log(exchange.fault === 'code30' ? 30 : null);
    return;
  }
  const answer = refused ?? guarded(parts, path, params);
  const text = envelope(answer);
  if (hooks?.after && (await hooks.after(exchange, { status: 200, body: text }))) {
    log(answer.code, text);
    return;
  }
  writeJson(res, 200, text);
  log(answer.code, text);
}

function serviceRequest(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
  const method = req.method ?? '';
  const refused = wrongMethod(method);
  if (refused) {
    writeReply(res, refused);
    return;
  }
  if (method === 'GET') {
    respond(parts, req, res, path, query, '');
    return;
  }
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    tooLarge(res);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refusedBody = false;
  req.on('data', (chunk: Buffer) => {
    if (refusedBody) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      refusedBody = true;
      chunks.length = 0;
      tooLarge(res);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refusedBody) return;
    const text = decodeBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    if (text === null) writeReply(res, NOT_UTF8);
    else respond(parts, req, res, path, query, text);
  });
}

/** Answers a /service/ request read in full: at once without hooks, else through them. */
function respond(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string): void {
  if (parts.hooks === null) {
    writeReply(res, serviceReply(parts, path, query, body));
    return;
  }
  answerService(parts, req, res, path, query, body).catch((err: unknown) => {
    parts.log(`emulator: ${path.slice(0, 100)}: ${(err as Error)?.stack ?? String(err)}`);
    if (!res.headersSent && !res.destroyed) writeJson(res, 200, envelope(fail(3, 'unknown application error')));
  });
}

function tooLarge(res: ServerResponse): void {
  if (!res.headersSent) writeReply(res, TOO_LARGE);
}

/** The node:http request listener of the emulator. */
export function requestListener(parts: ServerParts): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', () => {});
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    try {
      const operation = servicePath(path);
      if (operation !== null) serviceRequest(parts, req, res, operation, query);
      else if (parts.pages !== null && (path === '/' || path.startsWith('/_')) && parts.pages(req, res, path, query)) return;
      else {
        const started = performance.now();
        visit(parts.settings, req, res, path);
        if (parts.record && CODE_PATH.test(path)) {
          parts.record({ at: parts.settings.clock.now(), op: path.slice(0, 80), visit: true, key: undefined, code: null, status: res.statusCode, fault: null, ms: performance.now() - started, query: '', body: '', answer: null });
        }
      }
    } catch (err) {
      parts.log(`emulator: ${path.slice(0, 80)}: ${(err as Error)?.stack ?? String(err)}`);
      if (!res.headersSent) writeJson(res, 200, envelope(fail(3, 'unknown application error')));
    }
  };
}
