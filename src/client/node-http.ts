// send() over Node's own http/https on one keep-alive agent, for a command
// that sends a request or a few: Node's parser is native, where undici's
// first answer compiles its WebAssembly one. Bulk runs and proxies use undici.ts.

import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import { Body, notSent, type HttpRequest, type HttpResponse, type Transport } from './send.js';

/**
 * For the one protocol of the base URL (`secure`: https), trusting `ca` (its
 * roots included) instead of Node's list; idle connections close after
 * `keepAliveTimeoutMs`, below the usual 5 s of servers, as undici's default.
 * A request is written only once its connection is up (TLS included): one
 * that fails or is aborted before then sent nothing.
 */
export async function nodeHttpTransport(opts: { secure: boolean; ca?: Array<string | Buffer>; keepAliveTimeoutMs?: number }): Promise<Transport> {
  const mod = opts.secure ? await import('node:https') : await import('node:http');
  // rejectUnauthorized is given, not left to its default, so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn the check off.
  const tls = { rejectUnauthorized: true, ...(opts.ca ? { ca: opts.ca } : {}) };
  const agent: Agent = new mod.Agent({ keepAlive: true, timeout: opts.keepAliveTimeoutMs ?? 4_000, ...tls });
  const request = mod.request as (options: RequestOptions) => ClientRequest;
  const protocol = opts.secure ? 'https:' : 'http:';
  /** Sockets whose connection is up: a reused keep-alive socket needs no wait. */
  const connected = new WeakSet<Socket>();

  const send = (req: HttpRequest, signal: AbortSignal) =>
    new Promise<HttpResponse>((resolve, reject) => {
      let written = false;
      let res: IncomingMessage | undefined;
      const fail = (err: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(written ? err : notSent(err));
      };
      // An answer read whole keeps its connection, already handed back to the agent.
      const onAbort = () => (res?.complete ? fail(signal.reason as Error) : r.destroy(signal.reason as Error));
      if (signal.aborted) return reject(notSent(signal.reason));
      const url = new URL(req.url);
      if (url.protocol !== protocol) return reject(notSent(new Error(`this client sends ${protocol} requests, not ${url.protocol}`)));
      const body = req.body ?? '';
      let r: ClientRequest;
      try {
        r = request({
          agent,
          protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || undefined,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers: { ...req.headers, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength },
        });
      } catch (err) {
        // A header http.request() refuses: nothing was sent.
        return reject(notSent(err));
      }
      signal.addEventListener('abort', onAbort, { once: true });
      r.on('error', fail);
      const write = () => {
        written = true;
        r.end(body);
      };
      r.once('socket', (socket: Socket) => {
        if (connected.has(socket)) return write();
        socket.once(opts.secure ? 'secureConnect' : 'connect', () => {
          connected.add(socket);
          write();
        });
      });
      r.once('response', (answer: IncomingMessage) => {
        res = answer;
        const collected = new Body();
        answer.on('data', (chunk: Buffer) => {
          const tooLarge = collected.push(chunk);
          if (tooLarge) r.destroy(tooLarge);
        });
        answer.once('end', () => {
          if (signal.aborted) return fail(signal.reason as Error);
          signal.removeEventListener('abort', onAbort);
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text: collected.text() });
        });
        // A connection lost before the answer ended is an error (ECONNRESET), never a short answer.
        answer.on('error', fail);
      });
    });

  return { send, close: async () => agent.destroy(), destroy: () => agent.destroy() };
}
