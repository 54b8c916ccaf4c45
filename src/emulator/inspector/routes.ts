// Routes of the inspector and the control API. Everything lives under
// /_emulator/ (an underscore is never part of a short-link code, so no code
// can shadow a page), and the inspector's inbox also at /, the emulator's
// root URL. Every route but the static assets and the health checks (livez,
// readyz) passes the gate (access.ts).

import type { ServerResponse } from 'node:http';
import { refusal, TOKEN_COOKIE, tokenMatches, tokenRefusal, type Gate } from './access.js';
import type { Activity } from './activity.js';
import { CSS, SCRIPT, UPDATED_AT } from './assets.js';
import { controlApi, isControlRoute, sendJson } from '../control/control-api.js';
import type { Bench } from '../control/controls.js';
import type { EmulatorSettings } from '../service/handler.js';
import { escapeHtml, PAGE_HEADERS } from './html.js';
import { linkPage, linksPage } from './page-links.js';
import { messagesPage } from './page-messages.js';
import { accountsPage, campaignsPage, controlsPage } from './page-other.js';
import { requestsPage } from './page-requests.js';
import { accountOf, BASE, renderPage, timeOfDay, type InspectorPage, type PageContext } from './page.js';
import type { PageRouter } from '../server.js';

export interface InspectorParts {
  settings: EmulatorSettings;
  bench: Bench;
  /** The inspector's log and live pages; null with the inspector off (the control API stays). */
  activity: Activity | null;
  gate: Gate;
  log: (line: string) => void;
}

const ASSETS: Record<string, [string, string]> = {
  'assets/inspector.css': ['text/css; charset=utf-8', CSS],
  'assets/inspector.js': ['text/javascript; charset=utf-8', SCRIPT],
};

function send(res: ServerResponse, status: number, headers: Record<string, string | number>, body: string, head: boolean): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

function errorPage(res: ServerResponse, status: number, title: string, text: string, head = false): void {
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><p><a href="/">The inbox</a></p></main></body></html>\n`;
  send(res, status, PAGE_HEADERS, body, head);
}

function pageFor(route: string, ctx: PageContext, activity: Activity): InspectorPage | null | undefined {
  if (route === '' || route === 'inbox') return messagesPage(ctx);
  if (route === 'links') return linksPage(ctx);
  const one = /^links\/(\d{1,15})$/.exec(route);
  if (one) return linkPage(ctx, Number(one[1]));
  if (route === 'campaigns') return campaignsPage(ctx);
  if (route === 'accounts') return accountsPage(ctx);
  if (route === 'requests') return requestsPage(ctx, activity);
  if (route === 'controls') return controlsPage(ctx);
  return undefined;
}

/** The router server.ts hands `/` and paths under /_emulator/ to. */
export function inspectorRouter(p: InspectorParts): PageRouter {
  return (req, res, path, query) => {
    const inspector = p.activity !== null;
    if (path === '/' ? !inspector : path !== BASE && !path.startsWith(`${BASE}/`)) return false;
    const route = path === '/' ? '' : path.slice(BASE.length + 1).replace(/\/+$/, '');
    const head = req.method === 'HEAD';
    if (inspector && route in ASSETS) {
      const [type, body] = ASSETS[route];
      send(res, 200, { 'content-type': type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }, body, head);
      return true;
    }
    if (route === 'livez' || route === 'readyz') {
      health(p, res, route, req.method ?? 'GET');
      return true;
    }
    const api = isControlRoute(route);
    let no = refusal(p.gate, req);
    if (no) {
      if (!api && no.status === 401 && tokenIn(p.gate, res, path, query)) return true;
      // A ?token= that is not it (a page) or not taken there (the API): say so, rather than that none was given.
      if (no.status === 401 && new URLSearchParams(query).has('token') && !req.headers.authorization) no = tokenRefusal(api ? 'query-api' : 'query');
      if (api) sendJson(res, no.status, { error: no.message });
      else errorPage(res, no.status, 'Not allowed', no.message, head);
      return true;
    }
    if (api) return controlApi(p, req, res, route, query);
    if (!inspector) {
      sendJson(res, 404, { error: 'the inspector is off (serve --no-inspector); the control API is /_emulator/messages, messages/status, reset, clock, deliver and faults' });
      return true;
    }
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      errorPage(res, 405, 'Method not allowed', 'Inspector pages answer GET.');
      return true;
    }
    if (route === 'events') {
      p.activity!.watch(req, res);
      return true;
    }
    const q = new URLSearchParams(query);
    const ctx: PageContext = { settings: p.settings, bench: p.bench, account: accountOf(q, p.bench.keys), query: q, path: path === '/' ? '/' : path };
    let page: InspectorPage | null | undefined;
    try {
      page = pageFor(route, ctx, p.activity!);
    } catch (err) {
      p.log(`emulator: ${path.slice(0, 80)}: ${(err as Error)?.stack ?? String(err)}`);
      errorPage(res, 500, 'The inspector failed', 'This page could not be made; the emulator goes on. See the output of serve.', head);
      return true;
    }
    if (page === undefined) errorPage(res, 404, 'Not found', `The inspector has no page ${path.slice(0, 80)}.`, head);
    else if (page === null) errorPage(res, 404, 'Not found', 'No such link in this account.', head);
    else send(res, 200, ctx.query.get('partial') === '1' ? { ...PAGE_HEADERS, [UPDATED_AT]: timeOfDay(ctx, p.settings.clock.now()) } : PAGE_HEADERS, renderPage(ctx, page), head);
    return true;
  };
}

/**
 * The health checks, for a CI job or an orchestrator: livez says the process
 * answers, readyz that the database is open and requests are served (503
 * while the emulator stops). Neither needs the control token nor reads an
 * account, so they answer on any --host.
 */
function health(p: InspectorParts, res: ServerResponse, route: 'livez' | 'readyz', method: string): void {
  if (method !== 'GET' && method !== 'HEAD') {
    sendJson(res, 405, { error: `${method} is not used here: GET /_emulator/${route}` }, { allow: 'GET, HEAD' });
    return;
  }
  if (route === 'livez') return sendJson(res, 200, { status: 'live' });
  const problem = p.bench.closed ? 'the emulator is stopping' : p.settings.db.problem();
  if (problem === null) sendJson(res, 200, { status: 'ready' });
  else sendJson(res, 503, { status: 'not ready', reason: problem }, { 'retry-after': '1' });
}

/** A page opened with the right ?token=: the browser keeps it in a cookie and comes back without it in the URL. */
function tokenIn(gate: Gate, res: ServerResponse, path: string, query: string): boolean {
  const q = new URLSearchParams(query);
  const token = q.get('token') ?? undefined;
  if (!tokenMatches(gate, token)) return false;
  q.delete('token');
  const rest = q.toString();
  res.writeHead(303, {
    location: rest ? `${path}?${rest}` : path,
    'set-cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token!)}; HttpOnly; SameSite=Strict; Path=/`,
    'content-length': 0,
    'cache-control': 'no-store',
  });
  res.end();
  return true;
}
