// Short links really work: GET or HEAD /<code> answers 302 to the full link
// when the link is active, approved and not expired; otherwise 404 (410 once
// expired) with a short page that says why. Every visit of a known code is a
// click; only visits that were sent on count as redirects.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorSettings } from './handler.js';
import { withScheme } from '../../catalog/rules.js';
import { escapeHtml } from '../inspector/html.js';

/** A path that may name a short link: /<code>. */
export const CODE_PATH = /^\/([0-9A-Za-z]{1,64})\/?$/;

/** A short HTML page: what a visit that cannot go on answers. */
export function htmlPage(res: ServerResponse, status: number, title: string, text: string, head: boolean): void {
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body><h1>${escapeHtml(
    title,
  )}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(head ? undefined : body);
}

/** Where a full link sends the browser: `www.` links get http://, everything is made ASCII-safe for the header. */
export function locationOf(fullLink: string): string | null {
  try {
    return new URL(withScheme(fullLink)).href;
  } catch {
    return null;
  }
}

/** Answers a request that is not for /service/. */
export function visit(s: EmulatorSettings, req: IncomingMessage, res: ServerResponse, path: string): void {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    res.setHeader('allow', 'GET, HEAD');
    htmlPage(res, 405, 'Method not allowed', 'Short links answer GET and HEAD.', false);
    return;
  }
  if (path === '/') {
    htmlPage(res, 200, 'smslink emulator', 'This is the smslink emulator. The API is under /service/<Module>/<Operation>; short links are /<code>.', head);
    return;
  }
  const m = CODE_PATH.exec(path);
  const link = m ? s.db.linkForVisit(m[1]) : undefined;
  if (!link) {
    htmlPage(res, 404, 'Short link not found', `There is no short link ${path.slice(0, 80)} here.`, head);
    return;
  }
  const now = s.clock.now();
  const location = locationOf(link.full_link);
  let refusal: [number, string, string] | null = null;
  if (link.expires_ts !== null && now >= link.expires_ts) refusal = [410, 'Short link expired', `This short link expired at the end of ${link.expiration_date}.`];
  else if (link.moderator_status !== 1) refusal = [404, 'Short link blocked', `This short link was blocked by the moderator. ${link.moderator_comment ?? ''}`.trim()];
  else if (link.status !== 1) refusal = [404, 'Short link inactive', 'This short link has been switched off by its owner.'];
  else if (location === null) refusal = [404, 'Short link broken', 'The address this short link points to cannot be used.'];
  s.db.recordVisit(link.id, now, refusal === null);
  if (refusal) {
    htmlPage(res, refusal[0], refusal[1], refusal[2], head);
    return;
  }
  res.writeHead(302, { location: location!, 'content-length': 0, 'cache-control': 'no-store' });
  res.end();
}
