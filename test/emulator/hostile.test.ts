import { once } from 'node:events';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/catalog/index.js';
import { MAX_BODY_BYTES } from '../../src/emulator/index.js';
import { MAX_PARAMS } from '../../src/emulator/service/wire.js';
import { serviceQuery, startTestEmulator, type RawAnswer, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
const errors: string[] = [];
let keep: { id: string; code: string };
beforeAll(async () => {
  emu = await startTestEmulator({ log: (line) => errors.push(line), limits: { headersTimeoutMs: 500, requestTimeoutMs: 1000, checkIntervalMs: 100 } });
  keep = (await emu.call('Link/Create', { data: { fullLink: 'https://example.com/keep' } })).data as { id: string; code: string };
});
afterAll(async () => {
  await emu.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const q = () => serviceQuery(emu.key);
const envelopeOf = (res: RawAnswer) => {
  expect(res.status).toBe(200);
  const env = JSON.parse(res.text);
  expect(Object.keys(env).sort()).toEqual(['code', 'data', 'message']);
  return env as { code: number; data: unknown; message: string };
};

/** Writes `request` on a connection of its own; everything the server sent, once it closes. */
async function exchange(request: string): Promise<string> {
  const socket = connect(emu.port, '127.0.0.1');
  socket.on('error', () => {});
  let got = '';
  socket.on('data', (d) => (got += d.toString()));
  const closed = once(socket, 'close');
  socket.write(request);
  await closed;
  return got;
}

/** After every test: no 500, no unexpected error logged, and the server still serves. */
async function stillServing() {
  expect(errors).toEqual([]);
  expect((await emu.call('Link/Get', { id: keep.id })).code).toBe(0);
}

describe('malformed input', () => {
  it('answers malformed and truncated bodies with an envelope', async () => {
    const bodies = [
      'data[fullLink',
      'data[fullLink]=https%3A%2F%2F',
      'data[fullLink]=https%3A%2F%2Fexample.com%2',
      '%',
      '&&&===&=&',
      '[]=1&[x]=2',
      'data[[fullLink]]=x',
      'data]fullLink[=x',
      'data=1&data[fullLink]=https://example.com',
      'data[fullLink][]=https://example.com&data[fullLink][]=https://example.org',
    ];
    for (const body of bodies) {
      const env = envelopeOf(await emu.raw('POST', `/service/Link/Create?${q()}`, body, form));
      expect([0, 1, 11], body).toContain(env.code);
    }
    // Names nested past the decoder's depth are refused by name (src/emulator/service/wire.ts).
    for (const body of ['data[fullLink][x][y][z][w]=1', `data${'[a]'.repeat(500)}=1`]) {
      const env = envelopeOf(await emu.raw('POST', `/service/Link/Create?${q()}`, body, form));
      expect(env, body.slice(0, 40)).toMatchObject({ code: 12, message: expect.stringContaining('nest at most 3 brackets deep') });
    }
    await stillServing();
  });

  it('refuses bodies over 1 MiB with 413, with or without a declared length', async () => {
    const big = `data[comment]=${'a'.repeat(MAX_BODY_BYTES)}`;
    const declared = await emu.raw('POST', `/service/Link/Create?${q()}`, big, form);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).code).toBe(1);
    // A stream body goes out chunked, without a content-length.
    const chunked = await emu.raw('POST', `/service/Link/Create?${q()}`, Readable.from([Buffer.from(big)]), form);
    expect(chunked.status).toBe(413);
    const justUnder = await emu.raw('POST', `/service/Link/Create?${q()}`, `data[fullLink]=https://example.com/x&pad=${'a'.repeat(MAX_BODY_BYTES - 60)}`, form);
    expect(JSON.parse(justUnder.text).code).toBe(0);
    await stillServing();
  });

  it('refuses invalid UTF-8, raw or percent-encoded, and NUL characters with code 1', async () => {
    const raw = Buffer.concat([Buffer.from('data[fullLink]=https://example.com/&data[comment]='), Buffer.from([0xff, 0xfe, 0xc3])]);
    expect(envelopeOf(await emu.raw('POST', `/service/Link/Create?${q()}`, raw, form))).toMatchObject({ code: 1, data: { body: [expect.any(String)] } });
    expect(envelopeOf(await emu.raw('POST', `/service/Link/Create?${q()}`, 'data[fullLink]=https://example.com/&data[comment]=%C3%28', form))).toMatchObject({
      code: 1,
      data: { comment: [expect.stringContaining('UTF-8')] },
    });
    expect(envelopeOf(await emu.raw('POST', `/service/Message/SendSmsMessage?${q()}`, 'recipient=77011234567&text=a%00b', form))).toMatchObject({
      code: 1,
      data: { text: [expect.stringContaining('NUL')] },
    });
    // Valid raw UTF-8 is fine.
    const ok = envelopeOf(await emu.raw('POST', `/service/Link/Create?${q()}`, Buffer.from('data[fullLink]=https://example.com/&data[comment]=привет'), form));
    expect(ok.code).toBe(0);
    await stillServing();
  });

  it('refuses more parameters than the decoder takes with code 12, and takes lists up to it', async () => {
    const indexed = (n: number) => Array.from({ length: n }, (_, i) => `ids[${i}]=${i + 1_000_000}`).join('&');
    for (const body of [indexed(20_000), `ids[]=1${'&'.repeat(MAX_PARAMS)}`, 'x=1&'.repeat(200_000)]) {
      const env = envelopeOf(await emu.raw('POST', `/service/Link/Delete?${q()}`, body, form));
      expect(env).toEqual({ code: 12, data: { request: [`a request carries at most ${MAX_PARAMS} parameters`] }, message: `a request carries at most ${MAX_PARAMS} parameters` });
    }
    const del = envelopeOf(await emu.raw('POST', `/service/Link/Delete?${q()}`, indexed(MAX_PARAMS - 3), form));
    expect(del.code).toBe(0);
    expect((del.data as { notProcessed: string[] }).notProcessed).toHaveLength(MAX_PARAMS - 3);
    expect(envelopeOf(await emu.raw('POST', `/service/Message/GetSMSStatus?${q()}`, indexed(101), form)).code).toBe(12);
    expect(envelopeOf(await emu.raw('POST', `/service/Link/GetStats?${q()}&type=daily`, indexed(6), form)).code).toBe(12);
    const commaIds = `ids=${Array.from({ length: 50_000 }, (_, i) => i + 1).join(',')}`;
    expect(envelopeOf(await emu.raw('POST', `/service/Message/GetSMSStatus?${q()}`, commaIds, form)).code).toBe(12);
    expect(envelopeOf(await emu.raw('POST', `/service/Link/Delete?${q()}`, 'ids[999999999]=777777777&ids[5]=888888888', form)).code).toBe(0);
    await stillServing();
  });

  it('treats quotes and SQL in every field of every operation as plain text', async () => {
    const nasty = ["'; DROP TABLE links; --", '" OR 1=1 --', "%' OR '1'='1", '\\', "1' UNION SELECT * FROM accounts --", 'ids)); DELETE FROM messages; --'];
    for (const op of OPERATIONS) {
      for (const value of nasty) {
        const body = op.params.map((p) => `${encodeURIComponent(p.wire === 'sort' ? 'sort[code]' : p.wire)}=${encodeURIComponent(value)}`).join('&');
        const env = envelopeOf(await emu.raw('POST', `/service/${op.module}/${op.operation}?${q()}`, body, form));
        expect([0, 1, 2, 11, 12], `${op.id} ${value}`).toContain(env.code);
      }
    }
    // Values that are valid and still full of SQL are stored and read back verbatim.
    const comment = "Robert'); DROP TABLE links;--";
    const made = (await emu.call('Link/Create', { data: { fullLink: "https://example.com/?q='OR'1'='1", comment } })).data as { id: string };
    expect((await emu.call('Link/Get', { id: made.id })).data).toMatchObject({ comment, fullLink: "https://example.com/?q='OR'1'='1" });
    expect(((await emu.call('Link/List', { criteria: { query: "'); DROP" } })).data as { totalItemCount: string }).totalItemCount).toBe('1');
    const sent = (await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: "'; DELETE FROM messages; --" })).data as { messageId: string };
    expect(((await emu.call('Message/List', { criteria: { text: "'; DELETE FROM messages; --" } })).data as { items: Array<{ id: string }> }).items[0].id).toBe(sent.messageId);
    await stillServing();
  });

  it('survives absurd numbers, dates and paths', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['Link/Get', { id: '99999999999999999999' }],
      ['Link/Get', { id: '1e3' }],
      ['Link/Get', { id: '-1' }],
      ['Link/List', { pagination: { pageSize: 100, currentPage: '999999999999999' } }],
      ['Link/GetStats', { ids: [keep.id], type: 'monthly', criteria: { dateFrom: '0001-01-01 00:00:00' } }],
      ['Link/GetStats', { ids: [keep.id], type: 'minute', criteria: { dateTo: '9999-12-31 23:59:59' } }],
      ['Link/Create', { data: { fullLink: 'https://example.com', expirationDate: '9999-12-31' } }],
      ['Message/SendSmsMessage', { recipient: '77011234567', text: 'x', params: { validity: '1e3' } }],
      ['Message/List', { criteria: { campaignCreateTsFrom: '0001-01-01 00:00:00', statusUpdateTsTo: '9999-12-31 23:59:59' } }],
    ];
    for (const [path, params] of cases) {
      const env = await emu.call(path, params);
      expect([0, 1, 2, 12], `${path} ${JSON.stringify(params)}`).toContain(env.code);
    }
    expect(envelopeOf(await emu.raw('GET', `/service/${'x'.repeat(8000)}/y?${q()}`)).code).toBe(4);
    expect((await emu.raw('GET', `/${'a'.repeat(8000)}`)).status).toBe(404);
    for (const method of ['PUT', 'PATCH', 'OPTIONS']) expect((await emu.raw(method, `/service/Link/List?${q()}`)).status).toBe(405);
    await stillServing();
  });
});

describe('slow and oversized requests', () => {
  it('refuses oversized headers with 431', async () => {
    const res = await emu.raw('GET', `/service/Link/List?${q()}`, undefined, { 'x-junk': 'a'.repeat(20_000) });
    expect(res.status).toBe(431);
    await stillServing();
  });

  it('drops a client that never finishes its headers, and serves others meanwhile', async () => {
    const socket = connect(emu.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('GET /service/Link/List HTTP/1.1\r\nHost: localhost\r\n');
    const closed = new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      socket.on('close', () => resolve(got));
    });
    await stillServing();
    // Told why, as a silent connection is (one closer, Node's headersTimeout: never a bare drop).
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes 200 connections that send nothing within the headers timeout, and answers a request meanwhile', async () => {
    const opened = Date.now();
    const sockets = Array.from({ length: 200 }, () => {
      const socket = connect(emu.port, '127.0.0.1');
      socket.on('error', () => {});
      return socket;
    });
    // Each socket reads what the server sends before closing: a socket that
    // leaves bytes unread never sees the end of the stream, so never 'close'.
    const closed = sockets.map(
      (socket) =>
        new Promise<{ ms: number; got: string }>((resolve) => {
          let got = '';
          socket.on('data', (d) => (got += d.toString()));
          socket.on('close', () => resolve({ ms: Date.now() - opened, got }));
        }),
    );
    await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
    await stillServing();
    const answers = await Promise.all(closed);
    // Every one is told why, as Node's headersTimeout answers (not dropped without a word).
    expect(new Set(answers.map((a) => a.got))).toEqual(new Set(['HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n']));
    // The timeout is 500 ms here (10 s by default): none is closed before it (a lower bound a busy
    // machine cannot break: it only closes them later). That all are closed is the test ending at all.
    expect(Math.min(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(400);
  }, 30_000);

  it('keeps a keep-alive connection that sent a request, until its keep-alive timeout', async () => {
    const start = Date.now();
    const got = await exchange(`GET /service/Link/Get?${q()}&id=${keep.id} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    // Answered, and closed by the keep-alive timeout (5 s), not by the headers timeout of a silent connection (500 ms).
    expect(got).toMatch(/^HTTP\/1\.1 200/);
    expect(Date.now() - start).toBeGreaterThanOrEqual(4_000);
  }, 30_000);

  it('drops a client that sends its body too slowly', async () => {
    const socket = connect(emu.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`POST /service/Link/List?${q()} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nid=`);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const timer = setInterval(() => socket.writable && socket.write('1'), 200);
    await closed;
    clearInterval(timer);
    await stillServing();
  });
});

describe('generated input', () => {
  const paths = [...OPERATIONS.map((op) => `${op.module}/${op.operation}`), 'Link/Nope', 'Nope/Get', '', 'link//get', '../etc/passwd'];
  const wireNames = [...new Set(OPERATIONS.flatMap((op) => op.params.map((p) => p.wire))), 'ids[]', 'ids[0]', 'sort[code]', 'data[x]', 'output', 'apiKey'];
  const key = fc.oneof(fc.constantFrom(...wireNames), fc.string({ maxLength: 12 }), fc.constantFrom('a[', 'a]', '[', 'a[b][c][d][e]', '__proto__', 'constructor[prototype]'));
  const value = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.integer().map(String), fc.constantFrom('', '%', '%FF', '%00', '2025-01-01 00:00:00', 'https://example.com'));

  // Paths: the real operations and their near misses, plus arbitrary segments.
  // A segment of `.` or `..` is left out: the HTTP client resolves it before
  // sending (`/service/..` goes out as `/`, the inspector), so it would test
  // another path. The server's answer to a literal one is tested below.
  const segment = fc
    .string({ maxLength: 16 })
    .map((s) => encodeURIComponent(s))
    .filter((s) => s !== '.' && s !== '..');
  const path = fc.oneof(fc.constantFrom(...paths), fc.tuple(segment, segment).map(([a, b]) => `${a}/${b}`), segment);
  const encodePairs = (pairs: Array<[string, string]>, encodeKeys: boolean) =>
    pairs.map(([k, v]) => `${encodeKeys ? encodeURIComponent(k) : k.replace(/[&=#?\s]/g, '')}=${/%/.test(v) ? v : encodeURIComponent(v)}`).join('&');

  it('answers every generated path, query and body with an envelope or a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.constantFrom('GET', 'POST'),
        fc.array(fc.tuple(key, value), { maxLength: 8 }),
        fc.array(fc.tuple(key, value), { maxLength: 3 }),
        fc.boolean(),
        async (path, method, pairs, queryPairs, encodeKeys) => {
          const body = encodePairs(pairs, encodeKeys);
          const query = encodePairs(queryPairs, true);
          const target = `/service/${path}?${q()}${query ? `&${query}` : ''}${method === 'GET' && body ? `&${body}` : ''}`;
          const res = await emu.raw(method, target, method === 'POST' ? body : undefined, method === 'POST' ? form : {});
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) envelopeOf(res);
        },
      ),
      { numRuns: 3000 },
    );
    await stillServing();
    // 3,000 requests over a socket: 4 s alone, past the 20 s of a test of a few requests when the
    // machine is shared (seen, with two busy processes beside the suite). A bound on a hang only.
  }, 180_000);

  it('answers literal dot segments under /service/ as the unknown paths they are', async () => {
    for (const path of ['/service/..', '/service/.', '/service/../etc/passwd', '/service/Link/..', '/service/./Link/Get', '/service/%2e%2e/%2E']) {
      const [head, body] = (await exchange(`GET ${path}?${q()} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)).split('\r\n\r\n');
      // Unknown module or method, in the service's envelope: the path is not resolved to another one.
      expect(head, path).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(body), path).toMatchObject({ code: expect.toBeOneOf([4, 5]), data: null });
    }
    await stillServing();
  });
});
