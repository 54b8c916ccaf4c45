// Parses the service's answer: HTTP status, then the {code, data, message}
// envelope of real-service-notes.md. Anything else is a TransportError that
// carries the HTTP status and the start of the body (gateways answer HTML).

import { ApiError, TransportError } from './errors.js';
import { nestedDeeperThan } from '../json-depth.js';

export interface Envelope {
  code: number;
  data: unknown;
  message: string;
}

const BODY_START = 200;
/** The service's answers are a few levels deep; this is far more, and far less than overflows a renderer. */
const MAX_ANSWER_DEPTH = 64;

function startOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_START ? `${flat.slice(0, BODY_START)}...` : flat;
}

/** The title of an HTML page (or its first heading), as plain text; undefined for anything else. */
function htmlTitle(text: string): string | undefined {
  if (!/^\s*<(!doctype|html|head|body|title|h1)\b/i.test(text)) return undefined;
  const found = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text);
  const title = found?.[1]
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
    .replace(/\s+/g, ' ')
    .trim();
  return title || '';
}

/**
 * What a person needs of an error answer: the status line, and for a
 * gateway's HTML page its title only (`HTTP 502 Bad Gateway`), never the
 * markup; other bodies by their start.
 */
function describeStatus(status: number, text: string): string {
  // node:http only here, on an error: a command need not load it (`npm run bench -- --only sandbox`), and a --sandbox one sends nothing over HTTP.
  const reason = process.getBuiltinModule('node:http').STATUS_CODES[status];
  const line = reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
  const title = htmlTitle(text);
  if (title !== undefined) return title && !line.includes(title) && !title.includes(reason ?? '\0') ? `${line} (${title})` : line;
  return text.trim() ? `${line}: ${startOf(text)}` : line;
}

/** The code of an answer (parsed JSON) that is the envelope, or null when it is not one. */
export function envelopeCode(answer: unknown): number | null {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return null;
  const raw = (answer as { code?: unknown }).code;
  const code = Number(raw);
  return (typeof raw === 'number' || typeof raw === 'string') && Number.isInteger(code) ? code : null;
}

/** Reads the envelope from a response body; throws TransportError when it is not one. */
export function parseEnvelope(operation: string, status: number, text: string, outcomeUnknown: boolean): Envelope {
  const fail = (kind: 'http' | 'protocol', what: string) => new TransportError(operation, kind, `${operation}: ${what}`, { status, bodyStart: startOf(text), outcomeUnknown });
  if (status < 200 || status > 299) throw fail('http', `the server answered ${describeStatus(status, text)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const shown = htmlTitle(text) !== undefined ? `an HTML page (${describeStatus(status, text)})` : startOf(text) || '(empty body)';
    throw fail('protocol', `the answer is not JSON (HTTP ${status}): ${shown}`);
  }
  // Refused here, error answers included, so that no renderer or JSON.stringify overflows the stack on it.
  if (nestedDeeperThan(parsed, MAX_ANSWER_DEPTH)) throw fail('protocol', `the answer is nested more than ${MAX_ANSWER_DEPTH} levels deep, which no answer of the service is; it was not read`);
  const code = envelopeCode(parsed);
  if (code === null) throw fail('protocol', `the answer is not the service envelope: ${startOf(text)}`);
  const obj = parsed as Record<string, unknown>;
  return { code, data: obj.data ?? null, message: typeof obj.message === 'string' ? obj.message : '' };
}

/**
 * Codes after which an operation that creates something may or may not have
 * done it: unknown application error and general service error. (Code 30
 * says nothing was done; validation and constraint codes say it was refused.)
 */
const AMBIGUOUS_CODES: ReadonlySet<number> = new Set([3, 999]);

/** Throws ApiError for any code but 0. `creates`: the operation makes a link or sends a message. */
export function dataOrThrow(operation: string, env: Envelope, creates = false): unknown {
  if (env.code === 0) return env.data;
  const fields = env.code === 1 && env.data && typeof env.data === 'object' && !Array.isArray(env.data) ? (env.data as Record<string, unknown>) : null;
  throw new ApiError(operation, env.code, env.message, fields, env.data, creates && AMBIGUOUS_CODES.has(env.code));
}
