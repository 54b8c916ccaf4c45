// A list that shows one page of a longer one says so on stderr when stdout is
// not a terminal (a script, a pipe), in every output format, so that
// `link list -q | link delete -` cannot silently act on the first page alone.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const rec = useRecordingServer('ListTestKey0123456789abcdefABCDEF01234567');

/** Answers every List call with its page of `total` items. */
function serveItems(total: number) {
  rec.server.respond((req) => {
    const f = new URLSearchParams(req.body);
    const size = Number(f.get('pagination[pageSize]'));
    const page = Number(f.get('pagination[currentPage]'));
    const count = Math.max(0, Math.min(size, total - page * size));
    const items = Array.from({ length: count }, (_, i) => ({ id: String(page * size + i + 1), code: `c${page * size + i + 1}`, fullLink: 'https://example.com', status: '1' }));
    return { body: { code: 0, data: { items, totalItemCount: String(total) }, message: '' } };
  });
}

const FORMATS = [[], ['-q'], ['-o', 'json'], ['-o', 'ndjson'], ['-o', 'csv'], ['-o', 'tsv'], ['-o', 'table']];

describe.each([
  ['link', 'links'],
  ['message', 'messages'],
])('%s list, stdout not a terminal', (noun, what) => {
  it.each(FORMATS)('one page of 120: one line on stderr, stdout holds only the items (%s %s)', async (...format) => {
    serveItems(120);
    const r = await rec.cli([noun, 'list', ...format]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`25 of 120 ${what} shown; add --all for every page\n`);
    expect(r.stdout).not.toMatch(/shown|--all/);
    expect(r.stdout).not.toBe('');
    if (format[0] === '-q') expect(r.stdout.trim().split('\n')).toHaveLength(25);
  });

  it('--all, a last page, or a list that fits: nothing on stderr', async () => {
    serveItems(120);
    const all = await rec.cli([noun, 'list', '--all', '-q']);
    expect(all.stdout.trim().split('\n')).toHaveLength(120);
    expect(all.stderr).toBe('');
    serveItems(20);
    expect((await rec.cli([noun, 'list', '-q'])).stderr).toBe('');
  });
});

it('on a terminal the table keeps its footer, with the next page to ask for', async () => {
  serveItems(120);
  const r = await rec.cli(['link', 'list', '--no-color'], { tty: true });
  expect(r.stderr).toContain('Showing 1-25 of 120 links. Next: `--page 1`, or `--all` for every page.');
  expect(r.stderr).not.toContain('add --all');
});
