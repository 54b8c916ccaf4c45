// `smslink link create` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
// Creating from a file: test/bulk.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { useRecordingServer } from '../../helpers/recording-server.js';

const KEY = 'LinkTestKey0123456789abcdefABCDEF01234567';
const rec = useRecordingServer(KEY);

const cli = rec.cli;

describe('link create', () => {
  it('prints the new link as JSON when stdout is not a terminal', async () => {
    const r = await cli(['link', 'create', 'https://example.com/a%20b?x=1&y=2']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 417863, code: 'ddoj', shortLink: 'https://sho.rt/ddoj' });
    expect(r.stderr).toBe('');
  });

  it('maps --status words, --expires and --comment onto the form', async () => {
    await cli(['link', 'create', 'www.example.com/x', '--status', 'inactive', '--expires', '2026-12-31', '--comment', 'a&b']);
    expect(rec.server.requests[0].body).toBe('data[fullLink]=www.example.com%2Fx&data[status]=0&data[expirationDate]=2026-12-31&data[comment]=a%26b');
  });

  it('-q prints only the short link', async () => {
    const r = await cli(['link', 'create', 'https://example.com', '-q']);
    expect(r.stdout).toBe('https://sho.rt/ddoj\n');
  });

  it('prints a readable record on a terminal, in colour unless NO_COLOR or --no-color', async () => {
    const plain = await cli(['link', 'create', 'https://example.com'], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).toMatch(/^id\s+417863$/m);
    expect(plain.stdout).toMatch(/^short link\s+https:\/\/sho\.rt\/ddoj$/m);
    expect(plain.stdout).not.toContain('\x1b[');
    expect((await cli(['link', 'create', 'https://example.com'], { tty: true })).stdout).toContain('\x1b[1mid');
    expect((await cli(['link', 'create', 'https://example.com', '--no-color'], { tty: true })).stdout).not.toContain('\x1b[');
    expect((await cli(['link', 'create', 'https://example.com', '-o', 'table'], { env: { FORCE_COLOR: '1' } })).stdout).toContain('\x1b[');
  });

  // At 80 columns the example was broken by the error's wrap: `(smslink link create` / `https://example.com/page)`.
  it('without a URL, says how to give one with a command that stays whole at an 80-column terminal', async () => {
    const r = await cli(['link', 'create'], { tty: true, columns: 80 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^`smslink link create https:\/\/example\.com\/page`, or --from-file FILE$/m);
    expect(rec.server.requests).toHaveLength(0);
  });

  it.each([
    [['notaurl'], /<fullLink>: invalid value "notaurl": must be a URL with a scheme/],
    [['ftp://example.com/file'], /<fullLink>: invalid value "ftp:\/\/example.com\/file": only http and https links can be shortened$/m],
    [['mailto:someone@example.com'], /only http and https links can be shortened/],
    [['https://example.com', '--expires', 'soon'], /--expires: invalid value "soon": must be a time: YYYY-MM-DD, "YYYY-MM-DD HH:MM\[:SS\]", HH:MM \(today\), now, 7d \(ago\) or \+2h \(ahead\); times: `smslink help time`$/m],
    [['https://example.com', '--status', 'on'], /--status: invalid value "on": must be 0 or 1 \(or active, inactive\)/],
    [['https://example.com', '--expires', '2026-02-30'], /--expires: invalid value "2026-02-30": must be a real date/],
    [['https://example.com', '--comment', 'x'.repeat(256)], /--comment: invalid value "x+\.\.\.": must be at most 255 characters \(got 256\)/],
  ])('rejects %j with exit 2 and sends nothing', async (args, message) => {
    const r = await cli(['link', 'create', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(rec.server.requests).toHaveLength(0);
  });

  it.each([
    ['+30d', '2026-12-20'],
    ['+2w', '2026-12-04'],
    ['+36h', '2026-11-22'],
    ['2026-11-21 09:00', '2026-11-21'],
    ['now', '2026-11-20'],
  ])('--expires %s is the date that far from now (%s)', async (typed, date) => {
    const r = await cli(['link', 'create', 'https://example.com', '--expires', typed], { now: () => new Date(2026, 10, 20, 14, 30) });
    expect(r.code).toBe(0);
    expect(new URLSearchParams(rec.server.requests[0].body).get('data[expirationDate]')).toBe(date);
  });

  it('--expires 2w counts back, as every time flag does: refused as past, with +2w offered', async () => {
    const r = await cli(['link', 'create', 'https://example.com', '--expires', '2w'], { now: () => new Date(2026, 10, 20, 14, 30) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--expires: invalid value "2w" (2026-11-06): is in the past');
    expect(r.stderr).toContain('(did you mean +2w? a time without + counts back)');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('names every broken rule at once', async () => {
    const r = await cli(['link', 'create', 'nope', '--status', '7', '--expires', 'soon']);
    expect(r.stderr.match(/^error: /gm)).toHaveLength(3);
  });

  it('--dry-run shows the request with the key redacted and sends nothing', async () => {
    const r = await cli(['link', 'create', 'https://example.com/p', '--comment', 'hi there', '--dry-run', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`POST ${rec.server.url}/service/Link/Create?output=json&api=v1&apiKey=***`);
    expect(r.stdout).toMatch(/data\[comment\]\s+hi there/);
    expect(r.stdout).toContain('body: data[fullLink]=https%3A%2F%2Fexample.com%2Fp&data[comment]=hi%20there');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('exits 4 with instructions when no base URL or key is set', async () => {
    const r = await runCli(['link', 'create', 'https://example.com']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no base URL is set');
    expect(r.stderr).toContain('Run `smslink login`');
  });

  it('refuses to send the key over plain http to a remote host (exit 2) unless allowed', async () => {
    const r = await cli(['link', 'create', 'https://example.com'], { env: { SMSLINK_BASE_URL: 'http://api.example.com' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to send the API key over plain http:// to api.example.com; use https://, or pass --allow-insecure-http if you really mean it');
  });
});
