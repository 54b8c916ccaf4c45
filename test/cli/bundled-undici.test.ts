// The bin's undici (dist/bundle/vendor/undici.cjs, scripts/undici-cli.js and
// the stubs and patches of scripts/bundle.mjs) must answer as undici does:
// the same responses, header names included, over one keep-alive connection.
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent as UndiciAgent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchOnce } from '../helpers/dispatch.js';

const bundled = createRequire(import.meta.url)(fileURLToPath(new URL('../../dist/bundle/vendor/undici.cjs', import.meta.url))) as {
  default: { Agent: typeof UndiciAgent };
};

let server: Server;
let origin: string;
beforeAll(async () => {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    n += 1;
    const id = String(n).padStart(4, '0');
    // Well-known names in several spellings, and names undici has no entry for.
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('ETAG', `"${id}"`);
    res.setHeader('retry-after', '1');
    res.setHeader('X-Request-Number', id);
    res.setHeader('x-Custom-HEADER', 'v');
    res.end(JSON.stringify({ id }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Status, headers and body of `count` requests in a row through `agent`. */
async function answers(agent: Dispatcher, count: number) {
  const out: Array<{ status: number; headers: Record<string, unknown>; body: string }> = [];
  for (let i = 0; i < count; i++) {
    const { status, headers, text } = await dispatchOnce(agent, { origin, path: '/', method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    out.push({ status, headers, body: text });
  }
  return out;
}

describe('the bundled undici', () => {
  // 30 answers of 8 headers: before and after the header name tree is built (at the 65th name).
  it('answers as undici does, header names included', async () => {
    const mine = new bundled.default.Agent({ keepAliveTimeout: 4_000 });
    const theirs = new UndiciAgent({ keepAliveTimeout: 4_000 });
    try {
      const [a, b] = [await answers(mine, 30), await answers(theirs, 30)];
      expect(a.map((r) => ({ ...r, headers: { ...r.headers, etag: undefined, 'x-request-number': undefined }, body: undefined }))).toEqual(
        b.map((r) => ({ ...r, headers: { ...r.headers, etag: undefined, 'x-request-number': undefined }, body: undefined })),
      );
      expect(Object.keys(a[29].headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'etag', 'keep-alive', 'retry-after', 'x-custom-header', 'x-request-number']);
      expect(a.map((r) => r.headers['x-request-number'])).toEqual(a.map((r) => JSON.parse(r.body).id));
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
    }
  });
});
