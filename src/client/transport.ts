// Sends one prepared request over undici and reports either the answer or a
// TransportError. One dispatcher (keep-alive pool) serves every request of a
// client; undici is imported on first use so commands that send nothing never
// load it.

import type { Dispatcher } from 'undici';
import { TransportError } from './errors.js';
import type { PreparedRequest } from './request.js';

export interface TransportOptions {
  timeoutMs: number;
  userAgent: string;
  /** Secret to scrub from any message that leaves this module. */
  secret: string;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

export interface DispatcherOptions {
  /** Explicit proxy URL (--proxy); otherwise HTTPS_PROXY/HTTP_PROXY/NO_PROXY are honoured. */
  proxy?: string;
  /** Extra CA certificates (PEM) trusted besides the system ones. */
  ca?: string | Buffer;
  timeoutMs?: number;
}

/** Creates the run's dispatcher. Certificate verification is always on. */
export async function createDispatcher(opts: DispatcherOptions = {}): Promise<Dispatcher> {
  const undici = await import('undici');
  const connect = {
    timeout: opts.timeoutMs ?? 30_000,
    ...(opts.ca ? { ca: opts.ca } : {}),
  };
  const common = { connect, keepAliveTimeout: 4_000, connections: 64 };
  if (opts.proxy) return new undici.ProxyAgent({ uri: opts.proxy, ...common, requestTls: connect, proxyTls: connect });
  return new undici.EnvHttpProxyAgent(common);
}

/** Connection failures that happen before a single byte of the request left this machine. */
const NOTHING_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ENETUNREACH', 'EHOSTUNREACH']);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return undefined;
}

export function scrub(text: string, secret: string): string {
  if (!secret) return text;
  let out = text.split(secret).join('***');
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.split(encoded).join('***');
  return out;
}

export async function send(dispatcher: Dispatcher, req: PreparedRequest, opts: TransportOptions): Promise<RawResponse> {
  const { request } = await import('undici');
  const started = performance.now();
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timer.signal, opts.signal]) : timer.signal;
  const seconds = `${Math.round(opts.timeoutMs / 100) / 10} s`;
  try {
    const res = await request(req.url, {
      method: req.method,
      dispatcher,
      signal,
      headers: {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        accept: 'application/json',
        'user-agent': opts.userAgent,
      },
      body: req.body,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - started };
  } catch (err) {
    const code = errorCode(err);
    const nothingSent = code !== undefined && NOTHING_SENT.has(code);
    if (opts.signal?.aborted) {
      throw new TransportError(req.operation, 'aborted', `${req.operation}: interrupted`, { outcomeUnknown: true });
    }
    if (timer.signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      throw new TransportError(req.operation, 'timeout', `${req.operation}: no answer within the ${seconds} timeout (--timeout)`, {
        outcomeUnknown: !nothingSent,
      });
    }
    const host = new URL(req.url).host;
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : code ? `connection failed (${code})` : 'connection failed';
    const detail = err instanceof Error && !code ? `: ${scrub(err.message, opts.secret)}` : '';
    throw new TransportError(req.operation, 'connection', `${req.operation}: ${reason} by ${host}${detail}`, {
      outcomeUnknown: !nothingSent,
    });
  } finally {
    clearTimeout(timeout);
  }
}
