// `smslink link list` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('LinkTestKey0123456789abcdefABCDEF01234567');

const cli = rec.cli;

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

  // `link list --sort expires` at 80 columns left expires out ("Not shown at this width: code, expires, ..."): no way to see the order asked for.
  it('a table at 80 columns keeps the column the rows are sorted by, even when every row is a dash', async () => {
    const items = [1, 2, 3].map((n) => ({
      id: String(n), code: `c${n}`, shortLink: `https://sho.rt/c${n}`, fullLink: `https://example.com/catalog/summer-sale/item-${n}?utm_source=sms`,
      status: '1', clickCnt: '0', createTs: '2026-01-02 03:04:05', expirationDate: null, comment: `promo ${n}`,
    }));
    rec.server.respond(() => ({ body: { code: 0, data: { items, totalItemCount: '3' }, message: '' } }));
    const plain = await cli(['link', 'list', '--no-color'], { tty: true, columns: 80 });
    expect(plain.stderr).toMatch(/Not shown at this width: .*expires/);
    for (const [sort, header] of [['expires', 'expires'], ['created:desc', 'created'], ['clicks', 'clicks']]) {
      const r = await cli(['link', 'list', '--sort', sort, '--no-color'], { tty: true, columns: 80 });
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')[0].split(/ {2,}/), sort).toContain(header);
      expect(r.stderr, sort).not.toMatch(new RegExp(`Not shown at this width: .*\\b${header}\\b`));
      for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    }
  });

  it('--sort and --fields take what the table headers say (clicks, created, expires, full link) as well as the field names', async () => {
    rec.server.respond(() => ({
      body: { code: 0, data: { items: [{ id: '7', code: 'ab', clickCnt: '3', createTs: '2026-01-02 03:04:05', expirationDate: null, fullLink: 'https://e.com' }], totalItemCount: '1' }, message: '' },
    }));
    const r = await cli(['link', 'list', '--sort', 'clicks:desc', '--sort', 'Created', '--sort', 'full-link', '--fields', 'id,clicks,created,expires,full link', '-o', 'csv']);
    expect(r.code).toBe(0);
    expect(decodeURIComponent(rec.server.requests[0].body)).toContain('sort[clickCnt]=DESC&sort[createTs]=ASC&sort[fullLink]=ASC');
    expect(r.stdout).toBe('id,clickCnt,createTs,expirationDate,fullLink\n7,3,2026-01-02 03:04:05,,https://e.com\n');
  });

  it('--created-to takes a relative time', async () => {
    await cli(['link', 'list', '--created-to', '2d'], { now: () => new Date(2026, 10, 24, 10, 0, 0) });
    expect(decodeURIComponent(rec.server.requests[0].body)).toContain('criteria[createTsTo]=2026-11-22 10:00:00');
  });

  it.each([
    [['--page-size', '10'], /--page-size: invalid value "10": must be 25, 50 or 100/],
    [['--page', '-1'], /--page: invalid value "-1": must be 0 or more/],
    [['--sort', 'id'], /--sort: invalid value "id": must be FIELD, FIELD:asc or FIELD:desc; fields: createTs, expirationDate, clickCnt, code, fullLink/],
    // Quoted as typed: the header (clicks) is not turned into the service's name (clickCnt).
    [['--sort', 'clicks:up'], /--sort: invalid value "clicks:up" \(did you mean clicks:asc\?\): the direction after : must be asc or desc/],
    [['--sort', 'clics'], /--sort: invalid value "clics" \(did you mean clicks\?\)/],
    // The field and the direction are each matched alone, whatever the length of the field.
    [['--sort', 'clicks:dsc'], /--sort: invalid value "clicks:dsc" \(did you mean clicks:desc\?\)/],
    [['--sort', 'code:down'], /--sort: invalid value "code:down" \(did you mean code:desc\?\)/],
    [['--sort', 'clcks:desc'], /--sort: invalid value "clcks:desc" \(did you mean clicks:desc\?\)/],
    [['--sort', 'code:sideways'], /--sort: invalid value "code:sideways": the direction after : must be asc or desc/],
    [['--fields', 'clcks'], /--fields: unknown field "clcks" \(did you mean clicks\?\)/],
    [['--created-from', '2026-01-32'], /--created-from: invalid value "2026-01-32": must be a real date/],
    // A range that ends before it starts would find nothing, silently.
    [['--created-from', '2026-11-20', '--created-to', '2026-11-10'], /--created-to: invalid value "2026-11-10" \(2026-11-10 23:59:59\): must not be before --created-from "2026-11-20" \(2026-11-20 00:00:00\)/],
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
    expect(first.stderr).toContain('Showing 1-25 of 57 links. Next: `--page 1`, or `--all` for every page.');
    const last = await cli(['link', 'list', '--page', '2', '--no-color'], { tty: true });
    expect(last.stdout).toContain('c57');
    expect(last.stderr).not.toContain('Next:');
    expect(rec.server.requests.map((q) => new URLSearchParams(q.body).get('pagination[pageSize]'))).toEqual(['25', '25']);
    // --limit cuts the list short: a person is told how many there are and how to see them; a script is told nothing.
    const limited = await cli(['link', 'list', '--limit', '3', '--no-color'], { tty: true });
    expect(limited.stdout).toContain('c3');
    expect(limited.stdout).not.toContain('c4');
    expect(limited.stderr).toContain('Showing 1-3 of 57 links. All of them: `--all`.');
    expect((await cli(['link', 'list', '--limit', '57', '--no-color'], { tty: true })).stderr).not.toContain('Showing');
    expect((await cli(['link', 'list', '--limit', '3', '-q'])).stderr).toBe('');
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

  it('a page past the end says where the end is, exit 0 (a script paging until it finds nothing is done)', async () => {
    rec.server.respond(() => ({ body: { code: 0, data: { items: [], totalItemCount: '61' }, message: '' } }));
    const r = await cli(['link', 'list', '--page', '5', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('page 5 is past the last page (3 pages, 61 links); the last is --page 2\n');
    const json = await cli(['link', 'list', '--page', '5', '--page-size', '50', '-o', 'json']);
    expect(json.stdout).toBe('[]\n');
    expect(json.stderr).toBe('page 5 is past the last page (2 pages, 61 links); the last is --page 1 at --page-size 50\n');
  });

  it('--all -o json prints nothing rather than broken JSON when a later page fails', async () => {
    let page = 0;
    rec.server.respond(() =>
      page++ === 0
        ? { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => ({ id: String(i + 1) })), totalItemCount: '250' }, message: '' } }
        : { body: { code: 15, data: null, message: 'boom' } },
    );
    const r = await rec.cli(['link', 'list', '--all', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('--all -o json writes a list longer than it holds as it arrives: memory stays flat, and a failure leaves the array unclosed', async () => {
    // HELD_JSON_ITEMS (10,000) are held; the 101st page goes past them.
    let page = 0;
    rec.server.respond(() =>
      page++ < 101
        ? { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => ({ id: String(page * 100 + i) })), totalItemCount: '20000' }, message: '' } }
        : { body: { code: 15, data: null, message: 'boom' } },
    );
    const r = await rec.cli(['link', 'list', '--all', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout.startsWith('[\n')).toBe(true);
    expect(r.stdout.trimEnd().endsWith(']')).toBe(false);
    expect(r.stdout.match(/"id":/g)).toHaveLength(10_100);
    // A whole list of that length is one array.
    page = 0;
    rec.server.respond(() => {
      const from = page++ * 100;
      return { body: { code: 0, data: { items: Array.from({ length: Math.max(0, Math.min(100, 10_050 - from)) }, (_, i) => ({ id: String(from + i + 1) })), totalItemCount: '10050' }, message: '' } };
    });
    const whole = await rec.cli(['link', 'list', '--all', '-o', 'json']);
    expect(whole.code).toBe(0);
    expect((JSON.parse(whole.stdout) as Array<{ id: number }>).map((l) => l.id)).toEqual(Array.from({ length: 10_050 }, (_, i) => i + 1));
  }, 60_000);

  it('a bad sort is echoed as typed, not as JSON', async () => {
    const sort = await rec.cli(['link', 'list', '--sort', 'foo:desc']);
    expect(sort.stderr).toContain('--sort: invalid value "foo:desc": must be FIELD, FIELD:asc or FIELD:desc; fields: createTs, expirationDate, clickCnt, code, fullLink');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--sort with more than FIELD:DIRECTION is refused, not cut short', async () => {
    const r = await rec.cli(['link', 'list', '--sort', 'createTs:desc:x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sort: invalid value "createTs:desc:x": must be FIELD, FIELD:asc or FIELD:desc');
    expect(rec.server.requests).toHaveLength(0);
  });
});
