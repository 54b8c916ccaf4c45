// The emulator's HTTP side. A /service/ request goes readServiceRequest
// (method, body within its limit: a form, JSON or multipart, service/body.ts)
// -> replyAtOnce, or replyThroughHooks while faults are on -> answerOf (never
// throws: code 3, or 10 for a locked database) -> carryOut (key, operation,
// input rules, the handler). / and /_... go to the inspector, others to short links.

import { isAscii } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS } from '../catalog/index.js';
import type { OperationSpec } from '../catalog/types.js';
import { validateInput } from '../catalog/validate.js';
import { corsHeaders, serviceRefusal, visitRefusal, type Gate } from './inspector/access.js';
import type { LogEntry } from './inspector/activity.js';
import type { KeyRing } from './service/api-keys.js';
import { answerIssues, requestRefused } from './service/answers.js';
import { BodyError, bodyKind, formOf, multipartForm } from './service/body.js';
import { fail, type Answer, type Handler, type EmulatorSettings } from './service/handler.js';
import { ALIASES, unrouted } from './service/live-modules.js';
import { CONTENT_TYPE, outputOf, render, type Output } from './service/output.js';
import { LINK_HANDLERS } from './service/link.js';
import { MESSAGE_HANDLERS } from './service/message.js';
import { USER_HANDLERS } from './service/user.js';
import { CODE_PATH, htmlPage, visit } from './service/redirect.js';
import { FormLimitError, fromWire, parseRequest, type FormObject } from './service/wire.js';

export const MAX_BODY_BYTES = 1024 * 1024;
const SERVICE_PREFIX = '/service/';

export interface Route {
  /** `Module/Operation` as errors name it: the catalog's, or the second name it was called by (Campaign/GetLinks). */
  name: string;
  op: OperationSpec;
  handler: Handler;
}

const HANDLERS: Record<string, Handler> = { ...LINK_HANDLERS, ...MESSAGE_HANDLERS, ...USER_HANDLERS };

/** `module/operation` in lower case -> route; handlers and catalog operations pair up one to one, by catalog id. */
export function buildRoutes(): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const op of OPERATIONS) {
    const handler = HANDLERS[op.id];
    if (!handler) throw new Error(`no emulator handler for catalog operation ${op.id}`);
    routes.set(`${op.module}/${op.operation}`.toLowerCase(), { name: `${op.module}/${op.operation}`, op, handler });
  }
  for (const [path, { name, id }] of Object.entries(ALIASES)) {
    const op = OPERATIONS.find((o) => o.id === id)!;
    routes.set(path, { name, op, handler: HANDLERS[id] });
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
  /** The format the answer is written in. */
  output: Output;
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
  after?(x: ServiceExchange, answer: { status: number; body: string; type: string }): boolean | Promise<boolean>;
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
  /** Who may call through a browser (access.ts); null in the emulator without a socket. */
  gate: Gate | null;
}

/** An answer ready to send: status, body and headers beyond the content length (a content type among them). */
export interface Reply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

function writeReply(res: ServerResponse, r: Reply): void {
  res.writeHead(r.status, { 'content-length': Buffer.byteLength(r.body), ...r.headers });
  res.end(r.body);
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

const reply = (a: Answer, output: Output, status = 200, headers?: Record<string, string>): Reply => ({
  status,
  body: render(a, output),
  headers: { 'content-type': CONTENT_TYPE[output], ...headers },
});

/** The format a request whose parameters are not read (yet) is answered in: its query's `output`, else JSON. */
function outputOfQuery(query: string): Output {
  return query.includes('output=') ? (outputOf(new URLSearchParams(query).get('output') ?? undefined) ?? 'json') : 'json';
}

/** The answer to a /service/ request sent with another method than GET or POST; null for those two. */
export function wrongMethod(method: string, query: string): Reply | null {
  if (method === 'GET' || method === 'POST') return null;
  return reply(fail(5, `method ${method} is not used here: send POST (or GET)`), outputOfQuery(query), 405, { allow: 'GET, POST' });
}

/** The answer to a body over MAX_BODY_BYTES: HTTP 413, and the connection closed. */
export function tooLarge(query: string): Reply {
  return reply(requestRefused(1, `request body larger than ${MAX_BODY_BYTES} bytes`), outputOfQuery(query), 413, { connection: 'close' });
}

/**
 * A POST body as the form it carries, or the answer refusing it: not UTF-8,
 * or not what its Content-Type says (code 1), or past a limit (12).
 * Multipart bodies are read by readBody.
 */
function bodyForm(contentType: string | undefined, bytes: Buffer): string | Answer {
  const text = decodeBody(bytes);
  if (text === null) return requestRefused(1, 'the request body is not valid UTF-8');
  try {
    return formOf(contentType, text);
  } catch (err) {
    return refusalOf(err);
  }
}

function refusalOf(err: unknown): Answer {
  if (err instanceof BodyError) return requestRefused(1, err.message);
  if (err instanceof FormLimitError) return requestRefused(12, err.message);
  throw err;
}

/** A POST body of any kind as the form it carries, or the answer refusing it; a promise only for multipart bodies. */
export function readBody(contentType: string | undefined, bytes: Buffer): string | Answer | Promise<string | Answer> {
  if (bodyKind(contentType) !== 'multipart') return bodyForm(contentType, bytes);
  return multipartForm(contentType!, bytes).catch(refusalOf);
}

/** `Module/Operation` as spelled in a /service/ path; null for any other path. */
export function servicePath(path: string): string | null {
  return path.startsWith(SERVICE_PREFIX) ? path.slice(SERVICE_PREFIX.length).replace(/\/+$/, '') : null;
}

/** The answer to an `output` this service does not write: in JSON, the one format every client reads. */
const UNSUPPORTED_OUTPUT: Answer = fail(6, 'unsupported output format: this service answers output=json (the default) or output=xml');

/**
 * The reply to a /service/ request read in full (`body`: the form it
 * carried, or the answer refusing it), carried out and recorded at once (no
 * hook takes part: no promise per request); also the emulator in this
 * process's (in-process.ts). Never throws: a failure is code 3.
 */
export function replyAtOnce(parts: ServerParts, path: string, query: string, body: string | Answer): Reply {
  const started = performance.now();
  try {
    const { params, refused, output } = decodeRequest(query, body);
    const answer = refused ?? (output ? answerOf(parts, path, params) : UNSUPPORTED_OUTPUT);
    const r = reply(answer, output ?? 'json');
    parts.record?.({ at: parts.settings.clock.now(), op: path, visit: false, key: params.apiKey, code: answer.code, status: 200, fault: null, ms: performance.now() - started, query, body: typeof body === 'string' ? body : '', answer: r.body });
    return r;
  } catch (err) {
    parts.log(`emulator: ${path.slice(0, 100)}: ${(err as Error)?.stack ?? String(err)}`);
    return reply(fail(3, 'unknown application error'), outputOfQuery(query));
  }
}

/** Checks the key, API version, the operation and its input of a /service/ request whose parameters are decoded (and whose output format is known), then runs the operation's handler. */
function carryOut(parts: ServerParts, spelled: string, params: FormObject): Answer {
  // api is optional on the live service, v1 when absent or empty (real-service-notes.md).
  const accountId = parts.keys.account(params.apiKey);
  if (accountId === null) return fail(8, 'failed.api.auth', []);
  if ((params.api || 'v1') !== 'v1') return fail(5, 'unknown API version: send api=v1');
  const route = parts.routes.get(spelled.toLowerCase());
  if (!route) return unrouted(spelled, parts.routes);
  const { name, op, handler } = route;
  const { input, problems } = fromWire(op, params);
  if (problems.length) return answerIssues(name, problems.map((p) => ({ ...p, code: 1 })));
  const s = parts.settings;
  const now = s.clock.now();
  const { values, issues } = validateInput(op, input, { now: new Date(now), toInstant: s.tz.toInstant, live: true });
  if (issues.length) return answerIssues(name, issues);
  return handler({ settings: s, accountId, now, values });
}

/**
 * A request's parameters and the format to answer in (null: an `output`
 * this service does not write). A body refused, or a request past the
 * form's limits (wire.ts, code 12), has only its query's parameters, or none.
 */
function decodeRequest(query: string, body: string | Answer): { params: FormObject; refused: Answer | null; output: Output | null } {
  const refused = typeof body === 'string' ? null : body;
  try {
    const params = parseRequest(query, typeof body === 'string' ? body : '');
    const output = outputOf(params.output);
    return { params, refused, output: refused ? (output ?? 'json') : output };
  } catch (err) {
    return { params: {}, refused: refused ?? refusalOf(err), output: outputOfQuery(query) };
  }
}

/** The answer to one /service/ request whose parameters are decoded. Never throws: a database that stays locked is code 10, anything unexpected code 3. */
function answerOf(parts: ServerParts, path: string, params: FormObject): Answer {
  try {
    return carryOut(parts, path, params);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
      return fail(10, 'save failed: the database is busy (concurrent access); try again');
    }
    parts.log(`emulator: ${path}: ${(err as Error)?.stack ?? String(err)}`);
    return fail(3, 'unknown application error');
  }
}

/** The same as replyAtOnce, with the fault hooks before and after: each may answer, delay or drop the request itself. */
async function replyThroughHooks(parts: ServerParts, hooks: ServiceHooks, req: IncomingMessage, res: ServerResponse, path: string, query: string, body: string | Answer): Promise<void> {
  const started = performance.now();
  const { params, refused, output } = decodeRequest(query, body);
  const exchange: ServiceExchange = { req, res, path, output: output ?? 'json' };
  const log = (code: number | null, answer: string | null = null) =>
    parts.record?.({ at: parts.settings.clock.now(), op: path, visit: false, key: params.apiKey, code, status: res.headersSent ? res.statusCode : 0, fault: exchange.fault ?? null, ms: performance.now() - started, query, body: typeof body === 'string' ? body : '', answer });
  if (hooks.before && (await hooks.before(exchange))) {
    log(exchange.fault === 'code30' ? 30 : null);
    return;
  }
  const answer = refused ?? (output ? answerOf(parts, path, params) : UNSUPPORTED_OUTPUT);
  const r = reply(answer, exchange.output);
  if (hooks.after && (await hooks.after(exchange, { status: 200, body: r.body, type: r.headers['content-type'] }))) {
    log(answer.code, r.body);
    return;
  }
  writeReply(res, r);
  log(answer.code, r.body);
}

/**
 * Reads a /service/ request from its socket (the method, then a body of at
 * most MAX_BODY_BYTES) and answers it: at once without hooks, else through them.
 */
function readServiceRequest(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
  const method = req.method ?? '';
  const refused = wrongMethod(method, query);
  if (refused) {
    writeReply(res, refused);
    return;
  }
  /** `body`: the form the request carried, or the answer refusing it. */
  const answer = (body: string | Answer) => {
    const hooks = parts.hooks;
    if (hooks === null) writeReply(res, replyAtOnce(parts, path, query, body));
    else replyThroughHooks(parts, hooks, req, res, path, query, body).catch((err: unknown) => failed(parts, res, path, query, err));
  };
  if (method === 'GET') {
    answer('');
    return;
  }
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) {
    refuseLarge(res, query);
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
      refuseLarge(res, query);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refusedBody) return;
    const body = readBody(req.headers['content-type'], chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    if (!(body instanceof Promise)) answer(body);
    else body.then(answer, (err: unknown) => failed(parts, res, path, query, err));
  });
}

/** An unexpected failure: logged, and answered with code 3 when nothing was sent yet. */
function failed(parts: ServerParts, res: ServerResponse, path: string, query: string, err: unknown): void {
  parts.log(`emulator: ${path.slice(0, 100)}: ${(err as Error)?.stack ?? String(err)}`);
  if (!res.headersSent && !res.destroyed) writeReply(res, reply(fail(3, 'unknown application error'), outputOfQuery(query)));
}

function refuseLarge(res: ServerResponse, query: string): void {
  if (!res.headersSent) writeReply(res, tooLarge(query));
}

/**
 * Whether a /service/ request may go on, by the rules for browsers
 * (access.ts). It is answered here when not: refused, or the preflight of a
 * --cors origin. A --cors origin's request goes on with its CORS headers set.
 */
function admitted(parts: ServerParts, gate: Gate, req: IncomingMessage, res: ServerResponse, path: string, query: string): boolean {
  const no = serviceRefusal(gate, req);
  if (no) {
    const r = reply(fail(9, no.message), outputOfQuery(query), no.status);
    writeReply(res, r);
    // Logged as `HTTP 403`: the code 9 of an operation not modelled is another matter.
    parts.record?.({ at: parts.settings.clock.now(), op: path, visit: false, key: undefined, code: null, status: no.status, fault: null, ms: 0, query: '', body: '', answer: r.body });
    return false;
  }
  const cors = corsHeaders(gate, req);
  if (cors === null) return true;
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...cors, 'content-length': 0 });
    res.end();
    return false;
  }
  for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
  return true;
}

/** A short-link visit, or the refusal of one that names another Host. */
function visitOrRefuse(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string): void {
  const started = performance.now();
  const no = parts.gate && visitRefusal(parts.gate, req);
  if (no) htmlPage(res, no.status, 'Not allowed', no.message, req.method === 'HEAD');
  else visit(parts.settings, req, res, path);
  if (parts.record && CODE_PATH.test(path)) {
    parts.record({ at: parts.settings.clock.now(), op: path.slice(0, 80), visit: true, key: undefined, code: null, status: res.statusCode, fault: null, ms: performance.now() - started, query: '', body: '', answer: null });
  }
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
      if (operation !== null) {
        if (parts.gate === null || admitted(parts, parts.gate, req, res, operation, query)) readServiceRequest(parts, req, res, operation, query);
      } else if (parts.pages !== null && (path === '/' || path.startsWith('/_')) && parts.pages(req, res, path, query)) return;
      else visitOrRefuse(parts, req, res, path);
    } catch (err) {
      parts.log(`emulator: ${path.slice(0, 80)}: ${(err as Error)?.stack ?? String(err)}`);
      if (!res.headersSent) writeReply(res, reply(fail(3, 'unknown application error'), 'json'));
    }
  };
}
