// send() over undici: bulk runs (it spends less CPU per request than Node's
// client once its start is paid), proxies (HTTP_PROXY, HTTPS_PROXY,
// NO_PROXY, --proxy) and a dispatcher a caller gives the client. Only
// undici's dispatch() is used: a handler collects the (small) answer, and
// knows whether the request was written (onRequestStart comes right before).

import { Body, notSent, type HttpRequest, type HttpResponse, type Send, type Transport, type TransportOptions } from './send.js';

/**
 * What the client calls of a dispatcher: any undici Dispatcher (Agent, Pool,
 * MockAgent ...) has it. Written out, not picked from undici's types: undici
 * is bundled, not a dependency, so smslink's types must not need it installed.
 */
export interface DispatchTarget {
  dispatch(request: DispatchRequest, handler: DispatchHandler): boolean;
}

/** The request given to dispatch(). */
export interface DispatchRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** What dispatch() calls back: its controller aborts the request. */
export interface DispatchHandler {
  onRequestStart(controller: DispatchControl): void;
  onResponseStart(controller: DispatchControl, statusCode: number, headers: Record<string, string | string[] | undefined>): void;
  onResponseData(controller: DispatchControl, chunk: Buffer): void;
  onResponseEnd(controller: DispatchControl): void;
  onResponseError(controller: DispatchControl, error: Error): void;
}

export interface DispatchControl {
  abort(reason: Error): void;
}

/** send() through any dispatcher. */
export function dispatchSend(dispatcher: DispatchTarget): Send {
  return (req: HttpRequest, signal: AbortSignal) =>
    new Promise<HttpResponse>((resolve, reject) => {
      let controller: DispatchControl | undefined;
      let written = false;
      let settled = false;
      let status = 0;
      let headers: HttpResponse['headers'] = {};
      const body = new Body();
      const settle = (err: Error | null) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (err) reject(written ? err : notSent(err));
        else resolve({ status, headers, text: body.text() });
      };
      // Before the connection is up there is nothing to abort yet: the call ends now, the request when it starts.
      const onAbort = () => (controller ? controller.abort(signal.reason as Error) : settle(signal.reason as Error));
      if (signal.aborted) return reject(notSent(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      const cut = req.url.indexOf('/', req.url.indexOf('//') + 2); // not new URL(): a bulk run sends thousands
      try {
        dispatcher.dispatch(
          { origin: req.url.slice(0, cut), path: req.url.slice(cut), method: req.method, headers: req.headers, body: req.body },
          {
            onRequestStart(c) {
              controller = c;
              if (settled) c.abort(signal.reason as Error);
              else written = true;
            },
            onResponseStart(_c, statusCode, h) {
              status = statusCode;
              headers = h;
            },
            onResponseData(c, chunk) {
              const tooLarge = body.push(chunk);
              if (tooLarge) c.abort(tooLarge);
            },
            onResponseEnd: () => settle(signal.aborted ? (signal.reason as Error) : null),
            onResponseError: (_c, err) => settle(err),
          },
        );
      } catch (err) {
        settle(err as Error);
      }
    });
}

/** An undici agent for the base URL: direct, through --proxy, or as the proxy variables say. Certificate checks stay on. */
export async function undiciTransport(opts: Pick<TransportOptions, 'direct' | 'proxy' | 'proxyEnv' | 'timeoutMs'> & { ca?: Array<string | Buffer> }): Promise<Transport> {
  const { default: undici } = await import('undici');
  // rejectUnauthorized is given, not left to its default, so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn the check off.
  const tls = { rejectUnauthorized: true, ...(opts.ca ? { ca: opts.ca } : {}) };
  // The client's timer ends each attempt, by the call's limit (which may be longer than the client's): undici's own
  // timers on the answer would end it sooner. A connection undici is still opening after the call gave up is bounded.
  const common = { connect: { timeout: opts.timeoutMs, ...tls }, keepAliveTimeout: 4_000, headersTimeout: 0, bodyTimeout: 0 };
  const proxied = { ...common, requestTls: tls, proxyTls: tls };
  const env = opts.proxyEnv;
  const agent = opts.direct
    ? new undici.Agent(common)
    : opts.proxy
      ? new undici.ProxyAgent({ uri: opts.proxy, ...proxied })
      : // Empty strings (not undefined) keep undici from falling back to process.env.
        new undici.EnvHttpProxyAgent(env ? { ...proxied, httpProxy: env.httpProxy ?? '', httpsProxy: env.httpsProxy ?? '', noProxy: env.noProxy ?? '' } : proxied);
  const released = new Error('the client was released');
  return { send: dispatchSend(agent), close: () => agent.close(), destroy: () => void agent.destroy(released).catch(() => {}) };
}
