// A forward proxy on 127.0.0.1:0 for tests of HTTP_PROXY and --proxy:
// absolute-form requests for http:// and CONNECT tunnels, each recorded
// (`GET http://...` with the key hidden, `CONNECT host:port`).

import { createServer, request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface ForwardProxy {
  url: string;
  /** What the proxy carried, in order. */
  proxied: string[];
  close(): void;
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const proxied: string[] = [];
  const proxy = createServer((req, res) => {
    proxied.push(`${req.method} ${req.url!.replace(/apiKey=[^&]+/, 'apiKey=...')}`);
    const url = new URL(req.url!);
    const upstream = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on('connect', (req, socket, head) => {
    proxied.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    // The proxy resolves the test domain to this machine.
    const up = connect(Number(port), host.endsWith('.test') ? '127.0.0.1' : host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    proxied,
    close() {
      proxy.closeAllConnections();
      proxy.close();
    },
  };
}
