// The emulator as an undici dispatcher, for `--sandbox`: the client's
// requests (retry policy, envelope and all) reach the emulator's request
// handling in this process, without a server, a socket or an HTTP parser on
// either side, which would cost a one-request command more than its answer.
// It answers /service/ requests as the HTTP server does (same checks, same
// replies); short-link visits and faults need a real server (startEmulator).

import type { Dispatcher } from 'undici';
import { MAX_BODY_BYTES, NOT_UTF8, decodeBody, serviceReply, servicePath, TOO_LARGE, wrongMethod, type Reply, type ServerParts } from './server.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const NOT_SERVICE: Reply = {
  status: 404,
  body: 'not found: the emulator in this process answers /service/ requests only\n',
  headers: { 'content-type': 'text/plain; charset=utf-8' },
};

function bodyBytes(body: Dispatcher.DispatchOptions['body']): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('the emulator in this process takes a string or byte body');
}

function replyTo(parts: ServerParts, opts: Dispatcher.DispatchOptions): Reply {
  const url = opts.path;
  const q = url.indexOf('?');
  const path = servicePath(q < 0 ? url : url.slice(0, q));
  if (path === null) return NOT_SERVICE;
  const query = q < 0 ? '' : url.slice(q + 1);
  const method = opts.method;
  const refused = wrongMethod(method);
  if (refused) return refused;
  if (method === 'GET') return serviceReply(parts, path, query, '');
  const bytes = bodyBytes(opts.body);
  if (bytes.length > MAX_BODY_BYTES) return TOO_LARGE;
  const text = decodeBody(bytes);
  return text === null ? NOT_UTF8 : serviceReply(parts, path, query, text);
}

/** What a handler may do with its request: abort it before the answer comes (pausing means nothing here). */
class Exchange implements Dispatcher.DispatchController {
  #reason: Error | null = null;
  get aborted(): boolean {
    return this.#reason !== null;
  }
  get paused(): boolean {
    return false;
  }
  get reason(): Error | null {
    return this.#reason;
  }
  abort(reason: Error): void {
    this.#reason ??= reason;
  }
  pause(): void {}
  resume(): void {}
}

/**
 * A dispatcher (undici's dispatch() with handlers of its current API) whose
 * every request is answered by the emulator behind `parts`. Answers come on
 * a later turn of the event loop, as from a socket; a request aborted before
 * then is not carried out.
 */
export class InProcessDispatcher implements Pick<Dispatcher, 'dispatch'> {
  #closed = false;

  constructor(private readonly parts: ServerParts) {}

  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const exchange = new Exchange();
    if (this.#closed) exchange.abort(Object.assign(new Error('the emulator is closed'), { code: 'UND_ERR_CLOSED' }));
    else handler.onRequestStart?.(exchange, {});
    setImmediate(() => {
      if (exchange.reason) {
        handler.onResponseError?.(exchange, exchange.reason);
        return;
      }
      let r: Reply;
      try {
        r = replyTo(this.parts, opts);
      } catch (err) {
        handler.onResponseError?.(exchange, err as Error);
        return;
      }
      const body = Buffer.from(r.body);
      handler.onResponseStart?.(exchange, r.status, { 'content-type': JSON_TYPE, 'content-length': String(body.length), ...r.headers }, '');
      handler.onResponseData?.(exchange, body);
      handler.onResponseEnd?.(exchange, {});
    });
    return true;
  }

  /**
   * Refuses new requests. Those dispatched before are answered first: each is
   * answered on the next turn (setImmediate), ahead of the turn this waits for.
   */
  close(): Promise<void> {
    this.#closed = true;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
