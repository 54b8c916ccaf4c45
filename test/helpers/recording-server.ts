// A small HTTP server on 127.0.0.1:0 that records every request byte for byte
// and answers in the live shapes of real-service-notes.md (numbers as
// strings). Tests can replace the answer of any operation.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { runCli } from './run-cli.js';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as is. */
  body: unknown;
}

export type Responder = (req: Recorded) => Answer | undefined;

export const LIVE_LINK = {
  id: '417863',
  status: '1',
  moderatorStatus: '1',
  clickCnt: '0',
  createTs: '2026-11-02 10:15:00',
  expirationDate: '2026-12-31',
  code: 'ddoj',
  fullLink: 'https://example.com/some/long/path',
  shortLink: 'https://sho.rt/ddoj',
  comment: 'spring',
  moderatorComment: null,
  // live-only fields pass through
  domain: 'sho.rt',
  redirectCnt: '0',
  isCustom: '0',
};

const ok = (data: unknown): Answer => ({ body: { code: 0, data, message: '' } });

/** Live-shaped answers by lower-case operation path. */
export const LIVE_ANSWERS: Record<string, (req: Recorded) => Answer> = {
  'link/create': () => ok({ id: '417863', code: 'ddoj', shortLink: 'https://sho.rt/ddoj' }),
  'link/get': () => ok(LIVE_LINK),
  'link/list': () => ok({ items: [LIVE_LINK, { ...LIVE_LINK, id: '417864', code: 'ddok', shortLink: 'https://sho.rt/ddok', status: '0', expirationDate: null, comment: null }], totalItemCount: '2' }),
  'link/update': () => ok(true),
  'link/delete': (req) => {
    const ids = [...new URLSearchParams(req.body).entries()].filter(([k]) => k.startsWith('ids')).map(([, v]) => v);
    return ok({ processed: ids.filter((id) => id !== '999'), notProcessed: ids.filter((id) => id === '999') });
  },
  'link/getstats': () =>
    ok({
      items: [
        { param: '2026-10', clicks0: '1', redirects0: '1', clicks1: 0, redirects1: 0 },
        { param: '2026-11', clicks0: '4', redirects0: '3', clicks1: '2', redirects1: '2' },
      ],
      totals: { totalClicks0: 5, totalRedirects0: 4, totalClicks1: 2, totalRedirects1: 2 },
    }),
  'link/getlinks': () =>
    ok([{ id: '5001', code: 'aB3d', fullLink: 'https://example.com/a', shortLink: 'https://sho.rt/aB3d', clickCnt: '3', redirectCnt: '2', comment: null }]),
  'message/sendsmsmessage': () => ok({ campaignId: '9001', messageId: '123456', status: 2 }),
  'message/getsmsstatus': () =>
    ok([{ id: '123456', status: 'DELIVRD', segNum: '1', startSendTs: '2026-11-02 10-15-00', statusUpdateTs: '2026-11-02 10-15-05' }]),
  'message/list': () =>
    ok({
      items: [
        {
          id: '123456',
          campaignId: '9001',
          segNum: '1',
          segUserBuy: '0.01',
          from: 'SMSLINK',
          to: '77011234567',
          text: 'Your code is 4711',
          status: 'DELIVRD',
          groups: null,
          uuid: '6f1c',
          startSendTs: '2026-11-02 10:15:00',
          statusUpdateTs: '2026-11-02 10:15:05',
        },
      ],
      totalItemCount: '1',
    }),
  'user/getownbalance': () => ok({ balance: '100.0000', currency: 'KZT' }),
};

export interface RecordingServer {
  url: string;
  requests: Recorded[];
  /** Overrides answers; return undefined to fall back to the live-shaped default. */
  respond(fn: Responder | undefined): void;
  close(): Promise<void>;
  server: Server;
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  let responder: Responder | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const rec: Recorded = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      const op = url.pathname.replace(/^.*\/service\//, '').toLowerCase();
      const answer = responder?.(rec) ?? LIVE_ANSWERS[op]?.(rec) ?? { body: { code: 5, data: null, message: 'unknown method' } };
      const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (fn) => {
      responder = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    server,
  };
}

export interface RecordingHarness {
  readonly server: RecordingServer;
  /** SMSLINK_BASE_URL and SMSLINK_API_KEY pointing at the server. */
  readonly env: Record<string, string>;
  /** Runs the CLI with that environment (extra env merged over it). */
  cli(args: string[], opts?: Parameters<typeof runCli>[1]): ReturnType<typeof runCli>;
}

/**
 * A recording server for one test file: started before its tests, emptied
 * and reset to the live-shaped answers before each, closed after.
 */
export function useRecordingServer(apiKey: string): RecordingHarness {
  let server: RecordingServer | undefined;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    server!.requests.length = 0;
    server!.respond(undefined);
  });
  const harness: RecordingHarness = {
    get server() {
      return server!;
    },
    get env() {
      return { SMSLINK_BASE_URL: server!.url, SMSLINK_API_KEY: apiKey };
    },
    cli: (args, opts = {}) => runCli(args, { ...opts, env: { ...harness.env, ...opts.env } }),
  };
  return harness;
}
