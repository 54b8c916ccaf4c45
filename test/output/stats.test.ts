// The stats chart as a person sees it: folded quiet periods, links named by
// code, bars with redirects beside them, totals in words, and no line wider
// than the terminal at 60, 80 and 120 columns, whatever the number of links.
import { describe, expect, it } from 'vitest';
import { keyStats, mergeStats, renderStatsChart, type ChartOptions, type KeyedStats } from '../../src/output/stats.js';
import { cellWidth as cells } from '../../src/output/width.js';
import type { Paint } from '../../src/output/color.js';
import type { LinkStatsRow } from '../../src/catalog/types.js';
import { chunk } from '../../src/cli/shared/ids.js';

const plain: Paint = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

function chart(stats: KeyedStats, opts: ChartOptions, paint = plain): string[] {
  let text = '';
  renderStatsChart({ write: (s: string) => (text += s) }, stats, paint, opts);
  return text.replace(/\n$/, '').split('\n');
}

/** 90 days from 2026-08-20, as the service answers a daily request (every day, clicks as strings). */
function days(count = 90): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.UTC(2026, 7, 20 + i)).toISOString().slice(0, 10));
}

/** Stats for links over periods: clicks[link][period label] = [clicks, redirects]. */
function statsOf(periods: string[], links: Array<Record<string, [number, number]>>, ids = links.map((_, i) => 417863 + i)): KeyedStats {
  // More than 5 links come in several answers, merged as the command merges them.
  return mergeStats(
    chunk(ids, 5).map((part, p) =>
      keyStats(part, {
        items: periods.map((param) => {
          const item: LinkStatsRow = { param };
          part.forEach((_, i) => {
            const [c, r] = links[p * 5 + i][param] ?? [0, 0];
            item[`clicks${i}`] = c ? String(c) : 0;
            item[`redirects${i}`] = r ? String(r) : 0;
          });
          return item;
        }),
        totals: '',
      }),
    ),
  );
}

const bar = (line: string) => line.match(/█+/)?.[0].length ?? 0;

describe('quiet periods', () => {
  it('a run of days without clicks is one line, so 90 days of a quiet link fit a screen', () => {
    const stats = statsOf(days(), [{ '2026-11-14': [12, 3], '2026-11-15': [1, 1], '2026-11-17': [2, 2] }]);
    expect(chart(stats, { width: 80, labels: { 417863: 'ddoj' }, type: 'daily' })).toEqual([
      'period      clicks of ddoj',
      '2026-08-20 … 2026-11-13  (86 days, no clicks)',
      `2026-11-14  ${'█'.repeat(51)} 12 (3 redirects)`,
      '2026-11-15  ████ 1 (1 redirect)',
      '2026-11-16  (no clicks)',
      '2026-11-17  █████████ 2 (2 redirects)',
      'total       15 clicks, 6 redirects',
    ]);
    // The busiest day's line fills the 80 columns exactly.
    expect(cells(chart(stats, { width: 80, labels: { 417863: 'ddoj' }, type: 'daily' })[2])).toBe(80);
  });

  it('an interval without a click is one line and the totals', () => {
    expect(chart(statsOf(days(), [{}]), { width: 80, type: 'daily' })).toEqual([
      'period      clicks of 417863',
      '2026-08-20 … 2026-11-17  (90 days, no clicks)',
      'total       0 clicks, 0 redirects',
    ]);
  });

  it('names the unit of the type, and shortens the line to fit', () => {
    const minutes = Array.from({ length: 180 }, (_, i) => `2026-11-18 ${String(9 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`);
    const stats = statsOf(minutes, [{ '2026-11-18 11:59': [1, 1] }]);
    expect(chart(stats, { width: 120, type: 'minute' })[1]).toBe('2026-11-18 09:00 … 2026-11-18 11:58  (179 minutes, no clicks)');
    expect(chart(stats, { width: 60, type: 'minute' })[1]).toBe('2026-11-18 09:00 … 11:58  (179 minutes, no clicks)');
    const overMidnight = statsOf(['2026-11-18 23:58', '2026-11-18 23:59', '2026-11-19 00:00', '2026-11-19 00:01'], [{ '2026-11-19 00:01': [1, 1] }]);
    expect(chart(overMidnight, { width: 60, type: 'minute' })[1]).toBe('2026-11-18 23:58 … 2026-11-19 00:00  (3 minutes, no clicks)');
    expect(chart(overMidnight, { width: 50, type: 'minute' })[1]).toBe('2026-11-18 23:58 … 2026-11-19 00:00  (no clicks)');
    const months = statsOf(['2026-01', '2026-02', '2026-03'], [{ '2026-03': [4, 4] }]);
    expect(chart(months, { width: 80, type: 'monthly' })[1]).toBe('2026-01 … 2026-02  (2 months, no clicks)');
  });
});

describe('several links', () => {
  it('one line per link with clicks in the period, named by code or else by id; totals per link', () => {
    const stats = statsOf(days(5), [{ '2026-08-21': [8, 8], '2026-08-23': [2, 0] }, { '2026-08-21': [4, 4] }, {}]);
    expect(chart(stats, { width: 80, labels: { 417863: 'ddoj', 417864: 'Ub1g' }, type: 'daily' })).toEqual([
      'period      link    clicks',
      '2026-08-20  (no clicks)',
      `2026-08-21  ddoj    ${'█'.repeat(44)} 8 (8 redirects)`,
      `            Ub1g    ${'█'.repeat(22)} 4 (4 redirects)`,
      '2026-08-22  (no clicks)',
      `2026-08-23  ddoj    ${'█'.repeat(11)} 2 (0 redirects)`,
      '2026-08-24  (no clicks)',
      'total       ddoj    10 clicks, 8 redirects',
      '            Ub1g    4 clicks, 4 redirects',
      '            417865  0 clicks, 0 redirects',
    ]);
  });

  it('takes the totals of the answer when it has them', () => {
    const stats = keyStats([1, 2], {
      items: [{ param: '2026-11', clicks0: '1', redirects0: '1', clicks1: 0, redirects1: 0 }],
      totals: { totalClicks0: 1, totalRedirects0: 1, totalClicks1: 2, totalRedirects1: 1 },
    });
    expect(chart(stats, { width: 80 }).slice(-2)).toEqual(['total    1     1 click, 1 redirect', '         2     2 clicks, 1 redirect']);
  });
});

describe('fits the terminal', () => {
  const codes = ['ddoj', 'Ub1g', 'HYrC', 'a9Zk', 'Qx7p', 'mm2T', 'P0ke'];
  const types: Array<[string, string[]]> = [
    ['daily', days()],
    ['minute', Array.from({ length: 180 }, (_, i) => `2026-11-18 ${String(9 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`)],
  ];

  for (const width of [60, 80, 120]) {
    for (const count of [1, 2, 3, 5, 7]) {
      for (const [type, periods] of types) {
        for (const named of [true, false]) {
          it(`${width} columns, ${count} link(s), ${type}, ${named ? 'codes' : 'ids'}: no line wider, every label whole`, () => {
            const ids = Array.from({ length: count }, (_, i) => 41786300 + i);
            // Busy and quiet periods, counts up to five digits, so the widest text is drawn.
            const links = ids.map((_, l) =>
              Object.fromEntries(periods.filter((_, p) => (p + l) % 7 === 0 || p > periods.length - 3).map((label, p) => [label, [(p * 7919 + l * 104729) % 99999 || 1, p % 3]])),
            ) as Array<Record<string, [number, number]>>;
            const labels = named ? Object.fromEntries(ids.map((id, i) => [id, codes[i]])) : {};
            const lines = chart(statsOf(periods, links, ids), { width, labels, type });
            for (const line of lines) expect(cells(line), line).toBeLessThanOrEqual(width);
            const label = (id: number) => labels[id] ?? String(id);
            if (count > 1) for (const id of ids) expect(lines.some((l) => l.split(/\s+/).includes(label(id))), label(id)).toBe(true);
            else expect(lines[0]).toMatch(new RegExp(`clicks of ${label(ids[0])}$`));
            expect(lines.filter((l) => l.includes('█')).length).toBeGreaterThan(0);
          });
        }
      }
    }
  }

  it('bars grow with the width and are scaled to the busiest period', () => {
    const stats = statsOf(days(3), [{ '2026-08-20': [40, 40], '2026-08-21': [10, 10] }]);
    const narrow = chart(stats, { width: 60, type: 'daily' });
    const wide = chart(stats, { width: 120, type: 'daily' });
    expect(bar(wide[1])).toBeGreaterThan(bar(narrow[1]));
    for (const lines of [narrow, wide]) expect(bar(lines[1]) / bar(lines[2])).toBeCloseTo(4, 0);
    expect(cells(narrow[1])).toBe(60);
  });

  it('measures labels in terminal cells (CJK and emoji take two)', () => {
    expect(cells('ddoj')).toBe(4);
    expect(cells('促销')).toBe(4);
    expect(cells('🎉x')).toBe(3);
    expect(cells('e\u0301')).toBe(1);
    const stats = statsOf(days(1), [{ '2026-08-20': [5, 5] }, { '2026-08-20': [5, 5] }]);
    const lines = chart(stats, { width: 60, labels: { 417863: '促销', 417864: 'ab' } });
    expect(lines[1]).toMatch(/^2026-08-20 {2}促销 {2}█/);
    expect(lines[2]).toMatch(/^ {12}ab {4}█/);
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(60);
  });
});

it('draws in colour when the view has it, the same text underneath', () => {
  const paint: Paint = { ...plain, bold: (s) => `\x1b[1m${s}\x1b[22m`, dim: (s) => `\x1b[2m${s}\x1b[22m`, cyan: (s) => `\x1b[36m${s}\x1b[39m` };
  const stats = statsOf(days(4), [{ '2026-08-22': [3, 1] }]);
  const coloured = chart(stats, { width: 80, type: 'daily' }, paint);
  expect(coloured.join('\n')).toContain('\x1b[36m█');
  const ESC = String.fromCharCode(27);
  expect(coloured.map((l) => l.replaceAll(new RegExp(`${ESC}\\[\\d+m`, 'g'), ''))).toEqual(chart(stats, { width: 80, type: 'daily' }));
});

it('says so when the answer has no periods at all', () => {
  expect(chart({ ids: [1], rows: [], totals: {} }, { width: 80 })).toEqual(['No clicks in this interval.']);
});
