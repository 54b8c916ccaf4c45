// Who may use the inspector and the control API. On a loopback address they
// need nothing, but a web page elsewhere must not drive them through the
// user's browser: a request whose Host is not a loopback name is refused
// (DNS rebinding), and so is a POST from another origin. On any other
// address they need the --control-token (a header, or a cookie the browser
// gets by opening the inspector once with ?token=), and are off without one.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { keyDigest } from '../service/api-keys.js';

export const TOKEN_COOKIE = 'smslink_control';

export interface Gate {
  /** Whether serve binds a loopback address. */
  loopback: boolean;
  /** SHA-256 of the control token, when one is set. */
  token: Buffer | null;
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

export function makeGate(host: string, token: string | undefined): Gate {
  return { loopback: isLoopback(host), token: token ? keyDigest(token) : null };
}

/** The host name of a Host header (`[::1]:8080` -> `::1`). */
function hostName(header: string | undefined): string {
  if (!header) return '';
  const m = /^(\[[^\]]*\]|[^:]*)/.exec(header);
  return m ? m[1] : header;
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/** Whether `presented` is the control token (compared by digest, in constant time). */
export function tokenMatches(gate: Gate, presented: string | undefined): boolean {
  return gate.token !== null && typeof presented === 'string' && presented !== '' && timingSafeEqual(keyDigest(presented), gate.token);
}

/** Why a request to the inspector or the control API is refused, or null when it may go on. */
export function refusal(gate: Gate, req: IncomingMessage): Refusal | null {
  if (gate.loopback && !isLoopback(hostName(req.headers.host))) {
    return { status: 403, message: 'the emulator answers its inspector and control API on loopback names only (localhost, 127.0.0.1, [::1])' };
  }
  const origin = req.headers.origin;
  if (req.method !== 'GET' && req.method !== 'HEAD' && origin !== undefined) {
    let same = false;
    try {
      same = new URL(origin).host === req.headers.host;
    } catch {
      same = false;
    }
    if (!same) return { status: 403, message: 'requests from another web site are refused' };
  }
  if (gate.token !== null) {
    const auth = req.headers.authorization;
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
    if (!tokenMatches(gate, bearer ?? cookie(req, TOKEN_COOKIE))) {
      return { status: 401, message: 'this needs the control token: send the header "Authorization: Bearer <token>", or open the inspector once with ?token=<token>' };
    }
    return null;
  }
  if (!gate.loopback) {
    return { status: 403, message: 'the inspector and control API are off: serve binds a non-loopback address without --control-token' };
  }
  return null;
}
