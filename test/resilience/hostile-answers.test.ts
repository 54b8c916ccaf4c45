// Answers no service should give (nested 10,000 deep, odd types, wide) end a
// command with a clear message and a documented exit code, never a crash:
// the envelope refuses what is too deep (src/json-depth.ts), and a property
// test feeds random answers through every output format.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

const KEY = 'HostileKey0123456789abcdefABCDEF012345678';
let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

const cli = (args: string[], tty = false) => runCli([...args, '--retries', '0'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY }, tty });
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
/** What a crash looks like on stderr: the catch-all message, an error class, a stack frame. */
const CRASH = /unexpected error|RangeError|TypeError|\n\s+at /;

describe('an answer nested too deep', () => {
  it.each([
    ['a record (table)', ['link', 'get', '1'], true, (d: string) => `{"code":0,"data":{"id":"1","comment":${d}},"message":""}`],
    ['a record (-o json)', ['link', 'get', '1', '-o', 'json'], false, (d: string) => `{"code":0,"data":{"id":"1","comment":${d}},"message":""}`],
    ['a list (-o csv)', ['link', 'list', '-o', 'csv'], false, (d: string) => `{"code":0,"data":{"items":[${d}],"totalItemCount":1},"message":""}`],
    ['an error answer', ['link', 'get', '1'], true, (d: string) => `{"code":3,"data":${d},"message":"boom"}`],
    ['smslink api', ['api', 'Link/Get', 'id=1'], false, (d: string) => `{"code":0,"data":${d},"message":""}`],
  ])('in %s is a transport error: exit 3, a clear message, no stack trace', async (_what, args, tty, body) => {
    server.respond(() => ({ body: body(deep(10_000)) }));
    try {
      const r = await cli(args, tty);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('the answer is nested more than 64 levels deep, which no answer of the service is');
      expect(r.stderr).not.toMatch(CRASH);
      expect(r.stdout).toBe('');
    } finally {
      server.respond(undefined);
    }
  });

  it('an answer 64 levels deep is still shown', async () => {
    server.respond(() => ({ body: `{"code":0,"data":{"id":"1","comment":${deep(62)}},"message":""}` }));
    try {
      const r = await cli(['link', 'get', '1', '-o', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ id: 1, comment: JSON.parse(deep(62)) });
    } finally {
      server.respond(undefined);
    }
  });
});

describe('random answers through every output format', () => {
  // Deep (to the limit and past it), wide, and of every JSON type, where the catalog expects numbers and strings.
  const value = fc.oneof(
    { depthSize: 'large', maxDepth: 80 },
    fc.jsonValue({ maxDepth: 6 }),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 300 }),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 60 }),
    fc.integer({ min: 1, max: 200 }).map((n) => JSON.parse(deep(n)) as unknown),
    fc.constantFrom(null, true, 0, -1, 1e308, '', '\u0000\u001b[31m', 'x'.repeat(5000)),
  );
  const record = fc.oneof(value, fc.dictionary(fc.constantFrom('id', 'code', 'shortLink', 'fullLink', 'status', 'clickCnt', 'createTs', 'expirationDate', 'comment', 'extra'), value));
  const answer = fc.oneof(
    record.map((data) => ({ code: 0, data, message: '' })),
    fc.array(record, { maxLength: 20 }).map((items) => ({ code: 0, data: { items, totalItemCount: items.length }, message: '' })),
    fc.tuple(fc.integer({ min: -5, max: 1000 }), value, value).map(([code, data, message]) => ({ code, data, message })),
    value,
  );
  const runs: Array<[string, string[], boolean]> = [
    ['record view', ['link', 'get', '1'], true],
    ['table', ['link', 'list'], true],
    ['json', ['link', 'list', '-o', 'json'], false],
    ['ndjson', ['link', 'list', '-o', 'ndjson'], false],
    ['csv', ['link', 'get', '1', '-o', 'csv'], false],
    ['tsv', ['link', 'list', '-o', 'tsv'], false],
    ['-q', ['link', 'list', '-q'], false],
  ];

  it.each(runs)('%s: no crash, a documented exit code', async (_what, args, tty) => {
    await fc.assert(
      fc.asyncProperty(answer, async (body) => {
        server.respond(() => ({ body: JSON.stringify(body) }));
        const r = await cli(args, tty);
        expect(r.stderr).not.toMatch(CRASH);
        expect([0, 1, 3, 4, 6]).toContain(r.code);
      }),
      { numRuns: 100 },
    );
    server.respond(undefined);
  }, 120_000);
});
