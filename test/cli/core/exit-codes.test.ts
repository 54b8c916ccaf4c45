// One exit code per kind of failure, as README and --help document them.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { tempDir } from '../../helpers/run-cli.js';

const rec = useRecordingServer('ExitKey0123456789abcdefABCDEF0123456789ab');
const cli = (args: string[], extra: Record<string, string> = {}) => rec.cli(args, { env: extra });

describe('exit codes', () => {
  it.each([
    [1, 1, /code 1 \(validation error\)/],
    [15, 1, /code 15 \(operation error\): boom/],
    [2, 6, /^error: no link found for 1 \(unknown, or not yours\)$/m],
    [8, 4, /code 8 \(authentication failed.*\)[\s\S]*smslink status/],
    [9, 4, /code 9/],
    [13, 4, /code 13 \(wrong regional API server/],
    [14, 4, /code 14/],
  ])('service code %i -> exit %i', async (code, exit, message) => {
    rec.server.respond(() => ({ body: { code, data: null, message: code === 15 ? 'boom' : '' } }));
    const r = await cli(['link', 'get', '1']);
    expect(r.code).toBe(exit);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it("HTTP 5xx with a gateway's HTML page -> 3, shown as its status line and title, never the markup", async () => {
    const page = '<!DOCTYPE html>\n<html><head><title>Down for maintenance</title><style>body{}</style></head><body><h1>Sorry</h1><p>back soon</p></body></html>';
    rec.server.respond(() => ({ status: 503, body: page }));
    const r = await cli(['link', 'get', '1', '--retries', '0']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'error: link get: the server answered HTTP 503 Service Unavailable (Down for maintenance)\nThe service, or a gateway in front of it, is failing: try again in a while.\n',
    );
    rec.server.respond(() => ({ status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>' }));
    const bad = await cli(['link', 'update', '1', '--comment', 'x', '--retries', '0']);
    expect(bad.stderr).toContain('error: link update: Link/Get: the server answered HTTP 502 Bad Gateway\n');
    expect(bad.stderr).not.toContain('<');
  });

  it("the service's words in an error cannot drive the terminal: escapes and bidi controls are shown escaped", async () => {
    rec.server.respond(() => ({ body: { code: 15, data: null, message: 'boom\u001b[2J\u001b]0;pwned\u0007 \u202etxt.exe' } }));
    const r = await cli(['link', 'get', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('boom\\x1b[2J\\x1b]0;pwned\\x07 \\u202etxt.exe');
    for (const raw of ['\u001b', '\u0007', '\u202e']) expect(r.stderr).not.toContain(raw);
    rec.server.respond(() => ({ status: 503, body: '<html><head><title>Down\u001b[31m</title></head></html>' }));
    const page = await cli(['link', 'get', '1', '--retries', '0']);
    expect(page.stderr).toContain('(Down\\x1b[31m)');
    // Wherever the words go: `api`'s error note, and a bulk run's per-row notes with -q.
    rec.server.respond(() => ({ body: { code: 15, data: null, message: 'no\u001b[2Jpe' } }));
    const api = await cli(['api', 'Link/Get', 'id=1']);
    expect(api.stderr).toContain('no\\x1b[2Jpe');
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, 'fullLink\nhttps://example.com/a\n');
    const bulk = await cli(['link', 'create', '--from-file', input, '-q']);
    expect(bulk.stderr).toContain('no\\x1b[2Jpe');
    for (const out of [api.stderr, bulk.stderr]) expect(out).not.toContain('\u001b');
  });

  it('a host that does not resolve -> 3, "could not resolve host", with where the base URL comes from', async () => {
    const r = await cli(['link', 'get', '1', '--retries', '0'], { SMSLINK_BASE_URL: 'https://api.smslink-test.invalid' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error: link get: could not resolve host api.smslink-test.invalid');
    expect(r.stderr).toContain('`smslink status` shows which one is used');
  });

  it('connection refused -> 3, naming the host', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const r = await cli(['link', 'get', '1'], { SMSLINK_BASE_URL: `http://127.0.0.1:${port}` });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`connection refused by 127.0.0.1:${port}`);
  });

  it('a timeout -> 3, naming the operation and the limit', async () => {
    rec.server.respond(() => undefined);
    const slow = createServer((socket) => socket.on('data', () => undefined));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as { port: number }).port;
    const r = await cli(['link', 'get', '1', '--timeout', '0.3'], { SMSLINK_BASE_URL: `http://127.0.0.1:${port}` });
    slow.close();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('link get: no answer within the 0.3 s timeout (--timeout)');
  });

  it('unknown command or option -> 2', async () => {
    expect((await cli(['link', 'frobnicate'])).code).toBe(2);
    const r = await cli(['link', 'list', '--colour']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('link list: unknown option "--colour"');
  });

  it('--help and --version -> 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).toContain('6    not found (code 2)');
    const version = await cli(['--version']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('--help lists the exit codes of README, with the same meanings', async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').split('\n## Exit codes\n')[1].split('\n## ')[0];
    const rows = (text: string) => [...text.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]] as [number, string]);
    const documented = rows(readme);
    // A meaning longer than the line goes on under itself.
    const help = (await cli(['--help'])).stdout.split('\nExit codes:\n')[1].replace(/\n {7}(?=\S)/g, ' ');
    const listed = [...help.matchAll(/^ {2}(\d+) +(.+)$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(documented.map(([code]) => code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 141]);
    expect(listed).toEqual(documented);
  });
});
