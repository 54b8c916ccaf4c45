// `smslink link ...` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { useRecordingServer } from '../helpers/recording-server.js';

const KEY = 'LinkTestKey0123456789abcdefABCDEF01234567';
const rec = useRecordingServer(KEY);

const cli = rec.cli;
const bodies = () => rec.server.requests.map((r) => `${r.path.replace('/service/', '')} ${decodeURIComponent(r.body)}`);

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

  it.each([
    [['notaurl'], /<fullLink>: invalid value "notaurl": must be a URL with a scheme/],
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
    expect(r.stderr).toMatch(/refusing to send the API key over plain http:\/\/ to api\.example\.com/);
  });
});

describe('link get', () => {
  it.each([
    [['417863'], 'id=417863'],
    [['ddoj'], 'code=ddoj'],
    [['https://sho.rt/ddoj'], 'shortLink=https%3A%2F%2Fsho.rt%2Fddoj'],
    [['www.sho.rt/ddoj'], 'shortLink=www.sho.rt%2Fddoj'],
    [['1234', '--code'], 'code=1234'],
    [['abc', '--id'], null],
  ])('%j sends %s', async (args, body) => {
    const r = await cli(['link', 'get', ...args]);
    if (body === null) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"abc" is not a link id: ids are whole numbers');
    } else {
      expect(r.code).toBe(0);
      expect(rec.server.requests[0].body).toBe(body);
    }
  });

  it('shows statuses as words in tables and raw values in JSON', async () => {
    const table = await cli(['link', 'get', '417863', '-o', 'table']);
    expect(table.stdout).toMatch(/^status\s+active$/m);
    expect(table.stdout).toMatch(/^moderation\s+approved$/m);
    const json = JSON.parse((await cli(['link', 'get', '417863'])).stdout);
    expect(json).toMatchObject({ status: 1, moderatorStatus: 1, domain: 'sho.rt' });
  });

  it('exits 6 when the link is not found', async () => {
    rec.server.respond(() => ({ body: { code: 2, data: null, message: 'Link not found' } }));
    const r = await cli(['link', 'get', '5']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('link "5" not found: no link has this id');
  });
});

describe('link list', () => {
  it('sends every criterion, paging and sort', async () => {
    await cli([
      'link', 'list', '--status', 'active', '--moderator-status', 'blocked', '--created-from', '2026-01-01',
      '--created-to', '2026-01-31', '--query', 'promo', '--page-size', '25', '--page', '3', '--sort', 'clickCnt:desc', '--sort', 'code',
    ]);
    expect(decodeURIComponent(rec.server.requests[0].body)).toBe(
      'criteria[status]=1&criteria[moderatorStatus]=0&criteria[createTsFrom]=2026-01-01&criteria[createTsTo]=2026-01-31 23:59:59' +
        '&criteria[query]=promo&pagination[pageSize]=25&pagination[currentPage]=3&sort[clickCnt]=DESC&sort[code]=ASC',
    );
  });

  it('--created-to takes a relative time', async () => {
    await cli(['link', 'list', '--created-to', '2d'], { now: () => new Date(2026, 10, 24, 10, 0, 0) });
    expect(decodeURIComponent(rec.server.requests[0].body)).toContain('criteria[createTsTo]=2026-11-22 10:00:00');
  });

  it.each([
    [['--page-size', '10'], /--page-size: invalid value "10": must be 25, 50 or 100/],
    [['--page', '-1'], /--page: invalid value "-1": must be 0 or more/],
    [['--sort', 'id'], /--sort: .*cannot sort by "id"; fields: createTs, expirationDate, clickCnt, code, fullLink/],
    [['--sort', 'code:up'], /--sort: .*direction for code must be asc or desc/],
    [['--created-from', '2026-01-32'], /--created-from: invalid value "2026-01-32": must be a real date/],
  ])('%j is refused with exit 2', async (args, message) => {
    const r = await cli(['link', 'list', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('the table footer counts pages by the page size sent, 25 unless given, also on the last, short page', async () => {
    // 57 links: pages 0 and 1 hold 25 each, page 2 the last 7.
    rec.server.respond((req) => {
      const f = new URLSearchParams(req.body);
      const size = Number(f.get('pagination[pageSize]'));
      const page = Number(f.get('pagination[currentPage]'));
      const count = Math.max(0, Math.min(size, 57 - page * size));
      const items = Array.from({ length: count }, (_, i) => ({ id: String(page * size + i + 1), code: `c${page * size + i + 1}`, fullLink: 'https://example.com', status: '1' }));
      return { body: { code: 0, data: { items, totalItemCount: '57' }, message: '' } };
    });
    const first = await cli(['link', 'list', '--no-color'], { tty: true });
    expect(first.stderr).toContain('Showing 1-25 of 57 links. Next: --page 1, or --all for every page.');
    const last = await cli(['link', 'list', '--page', '2', '--no-color'], { tty: true });
    expect(last.stdout).toContain('c57');
    expect(last.stderr).not.toContain('Next:');
    expect(rec.server.requests.map((q) => new URLSearchParams(q.body).get('pagination[pageSize]'))).toEqual(['25', '25']);
  });

  it('prints items as JSON, NDJSON, CSV and TSV; --fields picks and orders', async () => {
    expect(JSON.parse((await cli(['link', 'list'])).stdout)).toHaveLength(2);
    const nd = (await cli(['link', 'list', '-o', 'ndjson', '--fields', 'code,id'])).stdout.trim().split('\n');
    expect(nd.map((l) => JSON.parse(l))).toEqual([
      { code: 'ddoj', id: 417863 },
      { code: 'ddok', id: 417864 },
    ]);
    expect((await cli(['link', 'list', '-o', 'csv', '--fields', 'id,status,comment'])).stdout).toBe('id,status,comment\n417863,1,spring\n417864,0,\n');
    expect((await cli(['link', 'list', '-o', 'tsv', '--fields', 'id,code'])).stdout).toBe('id\tcode\n417863\tddoj\n417864\tddok\n');
    expect((await cli(['link', 'list', '-q'])).stdout).toBe('417863\n417864\n');
  });

  it('says so when nothing matches', async () => {
    rec.server.respond(() => ({ body: { code: 0, data: { items: [], totalItemCount: '0' }, message: '' } }));
    const r = await cli(['link', 'list', '-o', 'table']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('No links found.\n');
  });
});

describe('link update', () => {
  it('without --expires reads the link first and resends its expiry, status and comment', async () => {
    const r = await cli(['link', 'update', '417863', '--comment', 'new']);
    expect(r.code).toBe(0);
    expect(bodies()).toEqual(['Link/Get id=417863', 'Link/Update id=417863&data[status]=1&data[expirationDate]=2026-12-31&data[comment]=new']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 417863, shortLink: 'https://sho.rt/ddoj', expirationDate: '2026-12-31', comment: 'new' });
  });

  // The live service answers Update with `true`, so the short link to print is read afterwards.
  it('--no-expiry clears the expiry on purpose, without reading first', async () => {
    await cli(['link', 'update', '417863', '--no-expiry', '--status', 'inactive']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[status]=0', 'Link/Get id=417863']);
  });

  it('--expires sets the date without reading first', async () => {
    await cli(['link', 'update', '417863', '--expires', '2027-01-31']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[expirationDate]=2027-01-31', 'Link/Get id=417863']);
  });

  it('does not read again when the service answers with the short link (documented shape)', async () => {
    rec.server.respond((req) => (req.path.endsWith('Update') ? { body: { code: 0, data: 'https://sho.rt/ddoj', message: '' } } : undefined));
    const r = await cli(['link', 'update', '417863', '--expires', '2027-01-31', '-q']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[expirationDate]=2027-01-31']);
    expect(r.stdout).toBe('https://sho.rt/ddoj\n');
  });

  it('refuses --expires with --no-expiry', async () => {
    const r = await cli(['link', 'update', '1', '--expires', '2027-01-31', '--no-expiry']);
    expect(r.code).toBe(2);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('checks the input before reading anything', async () => {
    const r = await cli(['link', 'update', '1', '--status', 'maybe']);
    expect(r.code).toBe(2);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--help explains the expiry protection', async () => {
    const r = await cli(['link', 'update', '--help']);
    expect(r.stdout).toContain('clears the expiry date whenever it is not sent');
    expect(r.stdout).toContain('--no-expiry');
  });
});

describe('link delete', () => {
  it('exits 0 when every id was processed', async () => {
    const r = await cli(['link', 'delete', '1', '2,3', '-q']);
    expect(r.code).toBe(0);
    expect(rec.server.requests[0].body).toBe('ids[0]=1&ids[1]=2&ids[2]=3');
    expect(r.stdout).toBe('1\n2\n3\n');
  });

  it('names the ids not processed on stderr and exits 5', async () => {
    const r = await cli(['link', 'delete', '1', '999']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({ processed: [1], notProcessed: [999] });
    expect(r.stderr).toContain('not deleted (not found, or not yours): 999');
  });

  it.each([
    [98, { processed: ['1'], notProcessed: ['999'] }, { processed: [1], notProcessed: [999] }],
    [99, { processed: [], notProcessed: ['998', '999'] }, { processed: [], notProcessed: [998, 999] }],
  ])('reads the per-id detail of a code %i answer (bulk partly done / nothing processed) and exits 5', async (code, data, shown) => {
    rec.server.respond((req) => (req.path.endsWith('Delete') ? { body: { code, data, message: '' } } : undefined));
    const r = await cli(['link', 'delete', ...shown.processed.map(String), ...shown.notProcessed.map(String)]);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual(shown);
    expect(r.stderr).toContain(`not deleted (not found, or not yours): ${shown.notProcessed.join(', ')}`);
  });

  it('reads ids from stdin with -', async () => {
    await cli(['link', 'delete', '-'], { stdin: '4\n5 6\n' });
    expect(rec.server.requests[0].body).toBe('ids[0]=4&ids[1]=5&ids[2]=6');
  });
});

describe('link stats', () => {
  it('fills date-only --from/--to to the start and end of the day', async () => {
    await cli(['link', 'stats', '1', '2', '--type', 'daily', '--from', '2026-11-01', '--to', '2026-11-30']);
    expect(decodeURIComponent(rec.server.requests[0].body)).toBe('ids[]=1&ids[]=2&type=daily&criteria[dateFrom]=2026-11-01 00:00:00&criteria[dateTo]=2026-11-30 23:59:59');
  });

  it('keeps full timestamps as given', async () => {
    await cli(['link', 'stats', '1', '--type', 'minute', '--from', '2026-11-01 10:00:00']);
    expect(decodeURIComponent(rec.server.requests[0].body)).toContain('criteria[dateFrom]=2026-11-01 10:00:00');
  });

  it('keys columns by link id and draws bars scaled to the busiest period, then totals, links named by code', async () => {
    const csv = await cli(['link', 'stats', '417863', '417864', '--type', 'monthly', '-o', 'csv']);
    expect(csv.stdout).toBe('period,clicks_417863,redirects_417863,clicks_417864,redirects_417864\n2026-10,1,1,0,0\n2026-11,4,3,2,2\n');
    // The chart looks up the code of each id it was given.
    rec.server.respond((req) =>
      req.path.endsWith('/Get') ? { body: { code: 0, data: { id: req.body.slice(3), code: req.body === 'id=417863' ? 'ddoj' : 'ddok' }, message: '' } } : undefined,
    );
    const table = await cli(['link', 'stats', '417863', '417864', '--type', 'monthly', '-o', 'table']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^period\s+link\s+clicks$/);
    const bar = (line: string) => line.match(/█+/)?.[0].length ?? 0;
    expect(lines[1]).toMatch(/^2026-10\s+ddoj\s+█+ 1 \(1 redirect\)$/);
    expect(lines[2]).toMatch(/^2026-11\s+ddoj\s+█+ 4 \(3 redirects\)$/);
    expect(lines[3]).toMatch(/^\s+ddok\s+█+ 2 \(2 redirects\)$/);
    expect(bar(lines[2])).toBeGreaterThan(bar(lines[3]));
    expect(bar(lines[3])).toBeGreaterThan(bar(lines[1]));
    expect(bar(lines[2]) / bar(lines[1])).toBeCloseTo(4, 0);
    expect(lines.slice(4)).toEqual(['total    ddoj  5 clicks, 4 redirects', '         ddok  2 clicks, 2 redirects']);
  });

  it.each([
    [['1', '--type', 'weekly'], /--type: invalid value "weekly": must be one of monthly, daily, hourly, minute/],
    [['1', '--type', 'daily', '--from', '2026-11-05', '--to', '2026-11-01'], /--to: invalid value "2026-11-01 23:59:59": must not be before/],
  ])('%j is refused with exit 2', async (args, message) => {
    const r = await cli(['link', 'stats', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(rec.server.requests).toHaveLength(0);
  });
});

describe('link campaign', () => {
  it('lists the campaign links with clicks and redirects', async () => {
    const r = await cli(['link', 'campaign', '9001', '-o', 'csv']);
    expect(rec.server.requests[0].body).toBe('campaignId=9001');
    expect(r.stdout).toBe('id,code,shortLink,fullLink,clickCnt,redirectCnt,comment\n5001,aB3d,https://sho.rt/aB3d,https://example.com/a,3,2,\n');
  });
});

it('never prints the API key, even with --verbose', async () => {
  const r = await cli(['link', 'update', '417863', '--comment', 'x', '--verbose']);
  expect(r.stderr).toContain('apiKey=***');
  expect(r.stdout + r.stderr).not.toContain(KEY);
});
