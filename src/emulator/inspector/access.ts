// Who may use the emulator through a browser. On a loopback address a
// request naming another Host is refused everywhere (DNS rebinding); /service/
// also refuses other sites' pages but the --cors origins; the inspector and
// control API refuse any other site's POST by the same test, and on any other
// address need the --control-token (a header, or a cookie from ?token= once).

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { keyDigest } from '../service/api-keys.js';

export const TOKEN_COOKIE = 'smslink_control';

export interface Gate {
  /** Whether serve binds a loopback address. */
  loopback: boolean;
  /** SHA-256 of the control token, when one is set. */
  token: Buffer | null;
  /** Origins whose pages may call /service/ (serve --cors), as a browser sends them. */
  cors: ReadonlySet<string>;
  /** The host name of --short-base: short-link visits may name it. */
  shortHost: string | null;
}

export interface Refusal {
  status: number;
  message: string;
}

/** 127.0.0.0/8, ::1 and localhost, as a bind address or a Host name. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function makeGate(host: string, token: string | undefined, more: { cors?: readonly string[]; shortBase?: string } = {}): Gate {
  const shortHost = more.shortBase && URL.canParse(more.shortBase) ? new URL(more.shortBase).hostname.replace(/^\[|\]$/g, '').toLowerCase() : null;
  return { loopback: isLoopback(host), token: token ? keyDigest(token) : null, cors: new Set(more.cors ?? []), shortHost };
}

/**
 * An origin as a browser sends it (`http://localhost:3000`), from what a user
 * typed; throws RangeError for anything else (a path, `*`, another scheme).
 */
export function corsOrigin(given: string): string {
  const url = URL.canParse(given) ? new URL(given) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    throw new RangeError(`--cors: invalid value "${given.slice(0, 100)}": must be the scheme, host and port of the web app, as its pages' Origin header gives them (e.g. http://localhost:3000)`);
  }
  return url.origin;
}

/** The host name of a Host header (`[::1]:8080` -> `::1`). */
function hostName(header: string | undefined): string {
  if (!header) return '';
  const m = /^(\[[^\]]*\]|[^:]*)/.exec(header);
  return m ? m[1] : header;
}

/** A cookie's value; null when it is not percent-encoding that decodes. */
function cookie(req: IncomingMessage, name: string): string | null | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return null;
    }
  }
  return undefined;
}

/** Whether a request names a Host a loopback emulator must not answer (DNS rebinding). None at all is no browser's. */
function foreignHost(gate: Gate, req: IncomingMessage, also: string | null = null): boolean {
  if (!gate.loopback || req.headers.host === undefined) return false;
  const name = hostName(req.headers.host).replace(/^\[|\]$/g, '').toLowerCase();
  return !isLoopback(name) && name !== also;
}

const LOOPBACK_ONLY = 'the emulator answers on loopback names only (localhost, 127.0.0.1, [::1])';

/** Whether `origin` is the page's own: the emulator's origin, by the Host the request names. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  return URL.canParse(origin) && new URL(origin).host === host;
}

const NO_ORIGINS: ReadonlySet<string> = new Set();

/**
 * Whether a request comes from a web page of another site: by its Origin
 * (neither the emulator's own nor one of `allowed`), or, when a browser sends
 * no Origin (an image, a link, some older browsers' POSTs), by Sec-Fetch-Site.
 * Another port of localhost is another site. Clients outside a browser send
 * neither header.
 */
function fromOtherSite(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return !allowed.has(origin) && !sameOrigin(origin, req.headers.host);
  const site = req.headers['sec-fetch-site'];
  return site === 'cross-site' || site === 'same-site';
}

/**
 * Why a /service/ request is refused, or null: another Host on loopback, or
 * a page of another site (fromOtherSite) but those of the --cors origins.
 */
export function serviceRefusal(gate: Gate, req: IncomingMessage): Refusal | null {
  if (foreignHost(gate, req)) return { status: 403, message: `${LOOPBACK_ONLY}: this request named the host ${JSON.stringify(hostName(req.headers.host).slice(0, 100))}` };
  if (fromOtherSite(req, gate.cors)) {
    const origin = req.headers.origin;
    const from = origin !== undefined && origin !== 'null' ? origin.slice(0, 100) : 'another site';
    return { status: 403, message: `requests from web pages of other sites are refused (this one came from ${from}); to let a web app call the emulator, start serve with --cors <its origin>` };
  }
  return null;
}

/** Why a short-link visit is refused, or null: another Host on loopback (but --short-base's). A link clicked on another site is a visit like any. */
export function visitRefusal(gate: Gate, req: IncomingMessage): Refusal | null {
  return foreignHost(gate, req, gate.shortHost) ? { status: 403, message: `${LOOPBACK_ONLY}, and the host of --short-base` } : null;
}

/** Headers that let a --cors origin's page read the answer; null for any other request. */
export function corsHeaders(gate: Gate, req: IncomingMessage): Record<string, string> | null {
  const origin = req.headers.origin;
  if (origin === undefined || !gate.cors.has(origin)) return null;
  const headers: Record<string, string> = { 'access-control-allow-origin': origin, vary: 'Origin' };
  if (req.method === 'OPTIONS') {
    headers['access-control-allow-methods'] = 'GET, POST';
    const asked = req.headers['access-control-request-headers'];
    if (typeof asked === 'string' && /^[\w-]+(\s*,\s*[\w-]+)*$/.test(asked.trim())) headers['access-control-allow-headers'] = asked.trim();
    // Chromium asks before a public site's page may reach a loopback address.
    if (req.headers['access-control-request-private-network'] === 'true') headers['access-control-allow-private-network'] = 'true';
    headers['access-control-max-age'] = '600';
  }
  return headers;
}

/** Whether `presented` is the control token (compared by digest, in constant time). */
export function tokenMatches(gate: Gate, presented: string | undefined): boolean {
  return gate.token !== null && typeof presented === 'string' && presented !== '' && timingSafeEqual(keyDigest(presented), gate.token);
}

/**
 * The 401 of a request without the control token: none given, or the one
 * given (where, never what) is not it. A wrong one is told apart so that a
 * script with a stale or mistyped token is not told to send one.
 */
export function tokenRefusal(given: 'none' | 'not-bearer' | 'header' | 'cookie' | 'query' | 'query-api'): Refusal {
  const how = 'send the header "Authorization: Bearer <token>", or open the inspector once with ?token=<token>';
  const wrong = "is not the control token (serve's --control-token or SMSLINK_CONTROL_TOKEN)";
  const message = {
    none: `this needs the control token, and none was given: ${how}`,
    'not-bearer': `this needs the control token, and the Authorization header gives none (it must be "Bearer <token>"): ${how}`,
    header: `the token in the Authorization header ${wrong}: send that one`,
    cookie: `the token this browser kept (cookie ${TOKEN_COOKIE}) ${wrong}: open the inspector again with ?token=<token>`,
    query: `the ?token= given ${wrong}: open the inspector with that one`,
    'query-api': 'the control API takes the control token in the header "Authorization: Bearer <token>", not as ?token= (which opens the inspector)',
  }[given];
  return { status: 401, message };
}

/** Why a request to the inspector or the control API is refused, or null when it may go on. */
export function refusal(gate: Gate, req: IncomingMessage): Refusal | null {
  if (gate.loopback && !isLoopback(hostName(req.headers.host))) {
    return { status: 403, message: 'the emulator answers its inspector and control API on loopback names only (localhost, 127.0.0.1, [::1])' };
  }
  // The same test as /service/'s, but no origin is let in: --cors opens the
  // service to a web app, never the test bench, and a token does not make
  // another site's page the user's.
  if (req.method !== 'GET' && req.method !== 'HEAD' && fromOtherSite(req, NO_ORIGINS)) {
    return { status: 403, message: 'requests from another web site are refused' };
  }
  if (gate.token !== null) {
    const auth = req.headers.authorization;
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
    const kept = cookie(req, TOKEN_COOKIE);
    if (bearer === undefined && kept === null) {
      return { status: 400, message: `the cookie ${TOKEN_COOKIE} is malformed (not percent-encoded): open the inspector again with ?token=<token>, or send "Authorization: Bearer <token>"` };
    }
    if (!tokenMatches(gate, bearer ?? kept ?? undefined)) {
      if (bearer !== undefined) return tokenRefusal('header');
      if (kept !== undefined) return tokenRefusal('cookie');
      return tokenRefusal(auth === undefined ? 'none' : 'not-bearer');
    }
    return null;
  }
  if (!gate.loopback) {
    return { status: 403, message: 'the inspector and control API are off: serve binds a non-loopback address without --control-token' };
  }
  return null;
}
