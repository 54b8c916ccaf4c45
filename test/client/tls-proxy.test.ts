// TLS verification is always on, --ca-file adds a private CA, and proxies
// from HTTP_PROXY/NO_PROXY or --proxy carry the requests. The library's
// errors name its options (ca, proxy) where the CLI's name its flags.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createHttpsServer } from 'node:https';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmsLinkClient, TransportError } from '../../src/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
const KEY = 'TlsProxyKey0123456789abcdefABCDEF01234567';
const envelope = JSON.stringify({ code: 0, data: { id: '1', code: 'abcd', shortLink: 'https://localhost/abcd' }, message: '' });

let https: Server;
let httpsUrl: string;
let target: RecordingServer;
let proxy: ForwardProxy;
let proxyUrl: string;
let proxied: string[];

beforeAll(async () => {
  https = createHttpsServer({ key: readFileSync(fixture('server.key')), cert: readFileSync(fixture('server.pem')) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(envelope);
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  httpsUrl = `https://localhost:${(https.address() as AddressInfo).port}`;
  target = await startRecordingServer();

  proxy = await startForwardProxy();
  proxyUrl = proxy.url;
  proxied = proxy.proxied;
});

afterAll(async () => {
  https.closeAllConnections();
  https.close();
  proxy.close();
  await target.close();
});

describe('TLS', () => {
  it('refuses a certificate it cannot verify, without retrying, and says how to trust a private CA', async () => {
    const r = await runCli(['link', 'get', '1', '--verbose'], { env: { SMSLINK_BASE_URL: httpsUrl, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/TLS certificate of localhost:\d+ could not be verified .*--ca-file/);
    expect(r.stderr).not.toContain('retry');
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn the check off, for a single request (node:http), a bulk run and a proxy (undici)', async () => {
    // Node reads the variable at each TLS connection, in this process too: set for this test only.
    const saved = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const env = { SMSLINK_BASE_URL: httpsUrl, SMSLINK_API_KEY: KEY };
    try {
      const single = await runCli(['link', 'get', '1', '--retries', '0'], { env });
      expect(single.code).toBe(3);
      expect(single.stderr).toMatch(/could not be verified/);
      const dir = tempDir();
      const csv = join(dir, 'links.csv');
      writeFileSync(csv, 'fullLink\nhttps://example.com/a\n');
      const bulk = await runCli(['link', 'create', '--from-file', csv, '--retries', '0', '-o', 'json'], { env });
      expect(bulk.code).not.toBe(0);
      expect(bulk.stdout).not.toContain('"done"');
      expect(bulk.stdout + bulk.stderr).toMatch(/could not be verified|certificate/);
      const proxiedRun = await runCli(['link', 'get', '1', '--retries', '0', '--proxy', proxyUrl], { env: { ...env, SMSLINK_BASE_URL: `https://api.smslink.test:${new URL(httpsUrl).port}` } });
      expect(proxiedRun.code).toBe(3);
      expect(proxiedRun.stderr).toMatch(/could not be verified/);
    } finally {
      if (saved === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = saved;
    }
  });

  it('--ca-file adds the private CA', async () => {
    const r = await runCli(['link', 'get', '1', '--ca-file', fixture('ca.pem')], { env: { SMSLINK_BASE_URL: httpsUrl, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, code: 'abcd' });
  });

  it('an unreadable --ca-file is a usage error', async () => {
    const r = await runCli(['link', 'get', '1', '--ca-file', '/nonexistent/ca.pem'], { env: { SMSLINK_BASE_URL: httpsUrl, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--ca-file: cannot read "/nonexistent/ca.pem"');
  });
});

describe('proxies', () => {
  // api.smslink.test is not loopback for smslink; only the test proxy knows it is this machine.
  const remote = (url: string, scheme = 'http') => `${scheme}://api.smslink.test:${new URL(url).port}`;

  it('HTTPS_PROXY carries the request, tunnelled with CONNECT, verification still on', async () => {
    proxied.length = 0;
    const env = { SMSLINK_BASE_URL: remote(httpsUrl, 'https'), SMSLINK_API_KEY: KEY, HTTPS_PROXY: proxyUrl };
    const r = await runCli(['link', 'get', '1', '--ca-file', fixture('ca.pem')], { env });
    expect(r.code).toBe(0);
    expect(proxied).toEqual([`CONNECT api.smslink.test:${new URL(httpsUrl).port}`]);
    expect((await runCli(['link', 'get', '1'], { env })).code).toBe(3);
  });

  it('a --proxy that refuses the connection is named as the one that refused it', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const r = await runCli(['link', 'get', '1', '--proxy', `http://127.0.0.1:${closed}`, '--retries', '0'], { env: { SMSLINK_BASE_URL: remote(httpsUrl, 'https'), SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`link get: connection refused by the proxy 127.0.0.1:${closed} (--proxy), on the way to api.smslink.test:${new URL(httpsUrl).port}`);
  });

  it('HTTP_PROXY carries a plain http request', async () => {
    proxied.length = 0;
    const r = await runCli(['link', 'get', '1', '--allow-insecure-http'], { env: { SMSLINK_BASE_URL: remote(target.url), SMSLINK_API_KEY: KEY, HTTP_PROXY: proxyUrl } });
    expect(r.code).toBe(0);
    expect(proxied).toEqual([`CONNECT api.smslink.test:${new URL(target.url).port}`]);
    expect(target.requests.at(-1)!.path).toBe('/service/Link/Get');
  });

  it('NO_PROXY bypasses it', async () => {
    proxied.length = 0;
    const r = await runCli(['link', 'get', '1', '--allow-insecure-http', '--retries', '0'], {
      env: { SMSLINK_BASE_URL: remote(target.url), SMSLINK_API_KEY: KEY, HTTP_PROXY: proxyUrl, NO_PROXY: 'api.smslink.test' },
    });
    // Straight to a name only the proxy could resolve: the lookup fails, and the proxy saw nothing.
    expect(r.code).toBe(3);
    expect(proxied).toEqual([]);
  });

  it('--proxy tunnels HTTPS through CONNECT', async () => {
    proxied.length = 0;
    const r = await runCli(['link', 'get', '1', '--proxy', proxyUrl, '--ca-file', fixture('ca.pem')], {
      env: { SMSLINK_BASE_URL: remote(httpsUrl, 'https'), SMSLINK_API_KEY: KEY },
    });
    expect(r.code).toBe(0);
    expect(proxied).toEqual([`CONNECT api.smslink.test:${new URL(httpsUrl).port}`]);
  });

  it('loopback hosts are reached directly, so a key over plain http never goes to a proxy', async () => {
    proxied.length = 0;
    const r = await runCli(['link', 'get', '1', '--proxy', proxyUrl], { env: { SMSLINK_BASE_URL: target.url, SMSLINK_API_KEY: KEY, HTTP_PROXY: proxyUrl } });
    expect(r.code).toBe(0);
    expect(proxied).toEqual([]);
    expect(target.requests.at(-1)!.query.get('apiKey')).toBe(KEY);
  });
});

describe("the library's words", () => {
  /** What a call of a library client came to: its error's message, or its result's id. */
  const getLink = async (options: Partial<ConstructorParameters<typeof SmsLinkClient>[0]>) => {
    const client = new SmsLinkClient({ baseUrl: httpsUrl, apiKey: KEY, retries: 0, ...options });
    try {
      return await client.getLink({ id: 1 }).then(
        (link) => link.id,
        (err: unknown) => (err instanceof TransportError ? err.message : err),
      );
    } finally {
      await client.close();
    }
  };

  it('a certificate it cannot verify points to the ca option, which trusts the private CA', async () => {
    const refused = await getLink({});
    expect(refused).toMatch(/^Link\/Get: the TLS certificate of localhost:\d+ could not be verified \(\w+\); if it is signed by a private CA, pass the ca option or set NODE_EXTRA_CA_CERTS$/);
    expect(await getLink({ ca: readFileSync(fixture('ca.pem')) })).toBe(1);
  });

  it('a proxy that refuses the connection is named as the proxy option', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    const baseUrl = `https://api.smslink.test:${new URL(httpsUrl).port}`;
    expect(await getLink({ baseUrl, proxy: `http://127.0.0.1:${closed}` })).toBe(
      `Link/Get: connection refused by the proxy 127.0.0.1:${closed} (the proxy option), on the way to api.smslink.test:${new URL(httpsUrl).port}`,
    );
  });
});
