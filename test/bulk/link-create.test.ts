// `link create --from-file`: one link per row of a CSV or NDJSON file (or
// stdin), every row checked with the catalog's rules first, results printed
// as rows finish. Against a recording server with a fake service behind it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { binEnv, runCli } from '../helpers/run-cli.js';
import { csvOf, links, ndjson, useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const { file } = bulk;

describe('link create --from-file', () => {
  it('creates one link per CSV row and streams results with row numbers', async () => {
    const input = file('links.csv', csvOf(links(25)));
    const r = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env: bulk.env });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(25);
    // Spreadsheet rows: the header is row 1.
    expect(rows.map((x) => x.row).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
    expect(rows.every((x) => x.state === 'done' && typeof x.shortLink === 'string')).toBe(true);
    expect([...bulk.svc.created.values()].every((n) => n === 1)).toBe(true);
    expect(bulk.svc.created.size).toBe(25);
    expect(r.stderr).toContain('link create: 25 done of 25 rows');
  });

  it('says nothing on stderr but its summary with the real bin at --concurrency 16 (no Node warning about listeners)', async () => {
    const input = file('links.csv', csvOf(links(200)));
    const bin = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, 'link', 'create', '--from-file', input, '--concurrency', '16', '-o', 'ndjson'], { env: binEnv(bulk.env) });
    expect(ndjson(stdout)).toHaveLength(200);
    expect(stderr).toBe(`link create: 200 done of 200 rows (journal: ${input}.journal).\n`);
  });

  it('…and none while 16 requests wait to retry a code 30 (rate limit) at once', async () => {
    const urls = links(32);
    for (const url of urls) bulk.svc.fault((key) => key === url, 'code30-once');
    const input = file('links.csv', csvOf(urls));
    const bin = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, 'link', 'create', '--from-file', input, '--concurrency', '16', '-o', 'ndjson'], { env: binEnv(bulk.env) });
    expect(ndjson(stdout).filter((r) => r.state === 'done')).toHaveLength(32);
    expect(bulk.server.requests).toHaveLength(64);
    expect(stderr).toBe(`link create: 32 done of 32 rows (journal: ${input}.journal).\n`);
  }, 60_000);

  it('reads NDJSON (by extension) and stdin (with --format)', async () => {
    const input = file('links.ndjson', '{"fullLink":"https://example.com/a","status":"inactive"}\n\n{"fullLink":"www.example.com/b","expirationDate":"2027-01-01"}\n');
    expect((await runCli(['link', 'create', '--from-file', input], { env: bulk.env })).code).toBe(0);
    expect(bulk.server.requests.map((q) => decodeURIComponent(q.body))).toEqual([
      'data[fullLink]=https://example.com/a&data[status]=0',
      'data[fullLink]=www.example.com/b&data[expirationDate]=2027-01-01',
    ]);
    const piped = await runCli(['link', 'create', '--from-file', '-', '--format', 'csv', '-q'], { env: bulk.env, stdin: 'fullLink\nhttps://example.com/c\n' });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^https:\/\/sho\.rt\/c\d+\n$/);
    expect(piped.stderr).toContain('cannot be resumed; pass --journal FILE');
  });

  it('--validate-only reports every bad row with its column and rule, and sends nothing', async () => {
    const input = file('links.csv', 'fullLink,status,expirationDate,comment\nhttps://example.com/ok,,,\nnot-a-url,,,\nhttps://example.com/x,maybe,2026-02-30,\n');
    const r = await runCli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'csv'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      'row,column,error\n' +
        '3,fullLink,must be a URL with a scheme (https://...) or starting with www.\n' +
        '4,status,"must be 0 or 1 (or active, inactive)"\n' +
        '4,expirationDate,must be a real date written YYYY-MM-DD\n',
    );
    expect(r.stderr).toContain('3 rows checked: 1 valid, 2 invalid. Nothing was sent.');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it("a row's expirationDate in the past is refused as --expires is, unless --allow-past", async () => {
    const now = () => new Date(2026, 10, 20, 14, 30);
    const input = file('links.csv', 'fullLink,expirationDate\nhttps://example.com/old,2026-11-19\nhttps://example.com/today,2026-11-20\nhttps://example.com/ahead,2026-12-04\nhttps://example.com/older,2025-01-01\n');
    const checked = await runCli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'csv'], { env: bulk.env, now });
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe(
      'row,column,error\n' +
        '2,expirationDate,is in the past: the link would stop working at once; give --allow-past if you mean it\n' +
        '5,expirationDate,is in the past: the link would stop working at once; give --allow-past if you mean it\n',
    );
    const sent = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env: bulk.env, now });
    expect(sent.code).toBe(5);
    expect(ndjson(sent.stdout).filter((x) => x.state === 'invalid').map((x) => x.row)).toEqual([2, 5]);
    expect([...bulk.svc.created.keys()].sort()).toEqual(['https://example.com/ahead', 'https://example.com/today']);
    const allowed = await runCli(['link', 'create', '--from-file', input, '--allow-past', '-o', 'ndjson'], { env: bulk.env, now });
    expect(allowed.code).toBe(0);
    expect([...bulk.svc.created.keys()].sort()).toEqual(['https://example.com/ahead', 'https://example.com/old', 'https://example.com/older', 'https://example.com/today']);
  });

  it('skips bad rows, sends the rest and exits 5', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/1\nbad\nhttps://example.com/3\n');
    const r = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env: bulk.env });
    expect(r.code).toBe(5);
    expect(ndjson(r.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'invalid', error: expect.stringContaining('column fullLink') });
    expect(bulk.svc.created.size).toBe(2);
  });

  it('--dry-run checks every row, shows the first request, sends nothing', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n');
    const r = await runCli(['--dry-run', 'link', 'create', '--from-file', input], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dry run: 2 requests like this one would be sent');
    expect(r.stderr).toContain('body: data[fullLink]=https%3A%2F%2Fexample.com%2Fa');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('without a key: exit 4 before anything, and no row is journaled as sending', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\n');
    const r = await runCli(['link', 'create', '--from-file', input], { env: { SMSLINK_BASE_URL: bulk.server.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no API key is set');
    expect(bulk.server.requests).toHaveLength(0);
    const journal = (() => {
      try {
        return readFileSync(`${input}.journal`, 'utf8');
      } catch {
        return '';
      }
    })();
    expect(journal).not.toContain('sending');
  });

  it('-q prints results only; row errors go to stderr', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nnot-a-url\n');
    const r = await runCli(['link', 'create', '--from-file', input, '-q'], { env: bulk.env });
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/^https:\/\/sho\.rt\/c\d+\n$/);
    expect(r.stderr).toContain('row 3: invalid: column fullLink: must be a URL');
  });

  it('refuses bulk flags without --from-file, and --from-file with a URL', async () => {
    expect((await runCli(['link', 'create', 'https://example.com', '--journal', 'x'], { env: bulk.env })).code).toBe(2);
    for (const flag of ['--fresh', '--no-reconcile']) {
      const r = await runCli(['message', 'send', '--to', '77011234567', '--text', 'hi', flag], { env: bulk.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag} only applies with --from-file`);
    }
    expect((await runCli(['link', 'create', 'https://example.com', '--from-file', 'x.csv'], { env: bulk.env })).code).toBe(2);
    const nohdr = await runCli(['link', 'create', '--from-file', file('x.csv', 'url\nhttps://e.com\n')], { env: bulk.env });
    expect(nohdr.code).toBe(2);
    expect(nohdr.stderr).toContain('the input has no fullLink column (columns: url)');
    const ext = await runCli(['link', 'create', '--from-file', file('x.txt', '')], { env: bulk.env });
    expect(ext.stderr).toContain('cannot tell the format of "x.txt"');
  });
});
