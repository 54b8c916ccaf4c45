// The emulator as a send() (src/client/send.ts), for `--sandbox`: the
// client's requests reach its request handling in this process, without a
// server, a socket or an HTTP parser. It answers /service/ requests as the
// HTTP server does, and the control API (`smslink inbox`); short-link
// visits, faults and the inspector need a real server.

import type { HttpRequest, HttpResponse, Send } from '../client/send.js';
import type { ControlDeps } from './control/control-api.js';
import { MAX_BODY_BYTES, readBody, replyAtOnce, servicePath, tooLarge, wrongMethod, type Reply, type ServerParts } from './server.js';

const NOT_SERVICE: Reply = {
  status: 404,
  body: 'not found: the emulator in this process answers /service/ requests and the control API only\n',
  headers: { 'content-type': 'text/plain; charset=utf-8' },
};
const CONTROL_PREFIX = '/_emulator/';

/**
 * A request of the control API, as serve's would be answered (no gate: this
 * process is the user's own); loaded only then, a --sandbox command of the
 * service does without it.
 */
async function controlReply(control: ControlDeps, req: HttpRequest, route: string, query: string, signal: AbortSignal): Promise<Reply | null> {
  const { controlAnswer, isControlRoute, parseBody } = await import('./control/control-api.js');
  if (!isControlRoute(route)) return null;
  let body = null;
  if (req.method === 'POST') {
    const type = Object.entries(req.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    try {
      body = parseBody(type, typeof req.body === 'string' ? req.body : Buffer.from(req.body ?? []).toString('utf8'));
    } catch (err) {
      body = err as Error;
    }
  }
  const r = body instanceof Error ? { status: (body as { status?: number }).status ?? 400, value: { error: body.message } } : await controlAnswer(control, req.method, route, query, body, signal);
  return { status: r.status, body: r.value === undefined ? '' : `${JSON.stringify(r.value)}\n`, headers: { 'content-type': 'application/json; charset=utf-8', ...r.headers } };
}

async function replyTo(parts: ServerParts, control: ControlDeps | null, req: HttpRequest, signal: AbortSignal): Promise<Reply> {
  const url = new URL(req.url);
  const query = url.search.slice(1);
  const route = url.pathname.startsWith(CONTROL_PREFIX) ? url.pathname.slice(CONTROL_PREFIX.length).replace(/\/+$/, '') : null;
  const answered = control && route !== null ? await controlReply(control, req, route, query, signal) : null;
  if (answered) return answered;
  const path = servicePath(url.pathname);
  if (path === null) return NOT_SERVICE;
  const refused = wrongMethod(req.method, query);
  if (refused) return refused;
  if (req.method === 'GET') return replyAtOnce(parts, path, query, '');
  const bytes = typeof req.body === 'string' ? Buffer.from(req.body) : Buffer.from(req.body ?? []);
  if (bytes.length > MAX_BODY_BYTES) return tooLarge(query);
  const type = Object.entries(req.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return replyAtOnce(parts, path, query, await readBody(type, bytes));
}

/**
 * A send() whose every request the emulator behind `parts` answers, on a
 * later turn of the event loop, as from a socket: a request aborted before
 * then is not carried out. close() refuses new requests; those made before
 * are answered first (each on the next turn, ahead of the one it waits for).
 */
export function inProcessSend(parts: ServerParts, control: ControlDeps | null = null): { send: Send; close(): Promise<void> } {
  let closed = false;
  const send = (req: HttpRequest, signal: AbortSignal) =>
    new Promise<HttpResponse>((resolve, reject) => {
      if (closed) return reject(Object.assign(new Error('the emulator is closed'), { code: 'UND_ERR_CLOSED', nothingSent: true }));
      setImmediate(() => {
        if (signal.aborted) return reject(Object.assign(new Error('aborted'), { nothingSent: true }));
        replyTo(parts, control, req, signal).then((r) => {
          const headers = { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
          resolve({ status: r.status, headers, text: r.body });
        }, reject);
      });
    });
  const close = async () => {
    closed = true;
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { send, close };
}
