// A forwarding server on 127.0.0.1:0 in front of another (the emulator): every
// request goes on unchanged and its answer comes back unchanged, and each
// /service/ request is recorded with its form decoded, so a test can tell
// which pages a command asked for.

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Tapped {
  /** `Module/Operation` as sent (`Message/List`). */
  op: string;
  /** The form body, decoded: `pagination[currentPage]` -> `3`. */
  form: Record<string, string>;
  /** The HTTP status answered, once the answer has been passed on in full. */
  status?: number;
}

export interface Tap {
  url: string;
  requests: Tapped[];
  close(): Promise<void>;
}

export async function startTap(target: string): Promise<Tap> {
  const up = new URL(target);
  const requests: Tapped[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const seen: Tapped | undefined = path.startsWith('/service/')
        ? { op: path.slice('/service/'.length).split('?')[0], form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))) }
        : undefined;
      if (seen) requests.push(seen);
      const forward = httpRequest({ host: up.hostname, port: up.port, path, method: req.method, headers: { ...req.headers, host: up.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => {
          if (seen) seen.status = answer.statusCode;
        });
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
