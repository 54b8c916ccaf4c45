// Link statistics: the service numbers its columns by the position of each
// link in the request (clicks0, redirects1). Here they are keyed by link id,
// so answers of several requests merge into one table, and drawn as bars.

import type { LinkStatsResult } from '../catalog/types.js';
import type { Paint } from './color.js';
import type { OutStream, Row } from './format.js';
import { count } from './words.js';
import { cellWidth, padEnd } from './width.js';

export interface LinkTotals {
  clicks: number;
  redirects: number;
}

export interface KeyedStats {
  ids: number[];
  /** One row per period: {period, clicks_<id>, redirects_<id>}. */
  rows: Row[];
  totals: Record<number, LinkTotals>;
}

const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
};

/** Keys one answer by link id (ids in the order they were sent). */
export function keyStats(ids: number[], result: LinkStatsResult): KeyedStats {
  const rows: Row[] = result.items.map((item) => {
    const row: Row = { period: String(item.param ?? '') };
    ids.forEach((id, i) => {
      row[`clicks_${id}`] = num(item[`clicks${i}`]);
      row[`redirects_${id}`] = num(item[`redirects${i}`]);
    });
    return row;
  });
  const totals: Record<number, LinkTotals> = {};
  const t = result.totals;
  ids.forEach((id, i) => {
    const fromRows = {
      clicks: rows.reduce((s, r) => s + num(r[`clicks_${id}`]), 0),
      redirects: rows.reduce((s, r) => s + num(r[`redirects_${id}`]), 0),
    };
    totals[id] =
      t && typeof t === 'object' && `totalClicks${i}` in t
        ? { clicks: num(t[`totalClicks${i}`]), redirects: num(t[`totalRedirects${i}`] ?? fromRows.redirects) }
        : fromRows;
  });
  return { ids, rows, totals };
}

/** Merges answers of several requests into one, rows per period in period order. */
export function mergeStats(parts: KeyedStats[]): KeyedStats {
  const byPeriod = new Map<string, Row>();
  const ids: number[] = [];
  const totals: Record<number, LinkTotals> = {};
  for (const part of parts) {
    ids.push(...part.ids);
    Object.assign(totals, part.totals);
    for (const row of part.rows) {
      const period = String(row.period);
      const merged = byPeriod.get(period) ?? { period };
      Object.assign(merged, row);
      byPeriod.set(period, merged);
    }
  }
  const rows = [...byPeriod.values()].sort((a, b) => String(a.period).localeCompare(String(b.period)));
  for (const row of rows) {
    for (const id of ids) {
      row[`clicks_${id}`] ??= 0;
      row[`redirects_${id}`] ??= 0;
    }
  }
  return { ids, rows, totals };
}

export function statsColumns(ids: number[]): string[] {
  return ['period', ...ids.flatMap((id) => [`clicks_${id}`, `redirects_${id}`])];
}

/** What the chart needs besides the numbers. */
export interface ChartOptions {
  /** Terminal width in cells: no line is wider, unless a link's label alone is. */
  width: number;
  /** What each link is called, by id: its code. A link without one is called by its id. */
  labels?: Readonly<Record<number, string>>;
  /** The stats type, to name the unit of a run of empty periods. */
  type?: string;
}

type Style = 'bold' | 'dim' | 'cyan';
/** A line as pieces of text, each drawn in a style or plain; its width is that of its text. */
type Line = Array<[text: string, style?: Style]>;

const UNITS: Record<string, [string, string]> = {
  monthly: ['month', 'months'],
  daily: ['day', 'days'],
  hourly: ['hour', 'hours'],
  minute: ['minute', 'minutes'],
};
/** The longest bar, so a wide terminal does not turn one busy day into a 150-cell line. */
const MAX_BAR = 60;
const BAR = '█';

/**
 * The chart as lines: a header, then per period a bar of clicks with the
 * count and the redirects beside it; with several links, one line per link
 * that had clicks in the period, named by its code. A run of periods without
 * clicks is one line, so a mostly quiet 90 days fits a screen. Totals close it.
 */
export function statsChartLines(stats: KeyedStats, opts: ChartOptions): Line[] {
  const { ids, rows, totals } = stats;
  if (rows.length === 0) return [[['No clicks in this interval.']]];
  const label = (id: number) => opts.labels?.[id] ?? String(id);
  const clicks = (row: Row, id: number) => num(row[`clicks_${id}`]);
  const redirects = (row: Row, id: number) => num(row[`redirects_${id}`]);
  const active = (row: Row) => ids.filter((id) => clicks(row, id) !== 0 || redirects(row, id) !== 0);
  const several = ids.length > 1;

  const periodWidth = Math.max('period'.length, 'total'.length, ...rows.map((r) => cellWidth(String(r.period))));
  const labelWidth = several ? Math.max('link'.length, ...ids.map((id) => cellWidth(label(id)))) : 0;
  const lead = (first: string, id?: number): string =>
    `${padEnd(first, periodWidth)}  ${several && id !== undefined ? `${padEnd(label(id), labelWidth)}  ` : ''}`;
  const beside = (row: Row, id: number): Line => [[String(clicks(row, id))], [` (${count(redirects(row, id), 'redirect', 'redirects')})`, 'dim']];
  const width = (line: Line) => line.reduce((sum, [text]) => sum + cellWidth(text), 0);

  const cellsShown = rows.flatMap((row) => active(row).map((id) => ({ row, id })));
  const busiest = Math.max(1, ...cellsShown.map(({ row, id }) => clicks(row, id)));
  const widestText = Math.max(0, ...cellsShown.map(({ row, id }) => width(beside(row, id))));
  const barMax = Math.max(0, Math.min(MAX_BAR, opts.width - cellWidth(lead('', ids[0])) - widestText - 1));

  const lines: Line[] = [];
  lines.push([[several ? `${lead('period')}${padEnd('link', labelWidth)}  clicks` : `${lead('period')}clicks of ${label(ids[0])}`, 'bold']]);
  for (let i = 0; i < rows.length; ) {
    const shown = active(rows[i]);
    if (shown.length === 0) {
      let end = i;
      while (end + 1 < rows.length && active(rows[end + 1]).length === 0) end++;
      lines.push([[quietRun(String(rows[i].period), String(rows[end].period), end - i + 1, opts), 'dim']]);
      i = end + 1;
      continue;
    }
    shown.forEach((id, n) => {
      const count = clicks(rows[i], id);
      const bar = count > 0 && barMax > 0 ? BAR.repeat(Math.max(1, Math.round((count / busiest) * barMax))) : '';
      lines.push([[lead(n === 0 ? String(rows[i].period) : '', id)], [bar, 'cyan'], [bar ? ' ' : ''], ...beside(rows[i], id)]);
    });
    i++;
  }
  ids.forEach((id, n) => {
    const t = totals[id] ?? { clicks: 0, redirects: 0 };
    lines.push([[`${lead(n === 0 ? 'total' : '', id)}${count(t.clicks, 'click', 'clicks')}, ${count(t.redirects, 'redirect', 'redirects')}`, 'bold']]);
  });
  return lines.map((line) => line.filter(([text]) => text !== ''));
}

/** One line for a run of periods without clicks, as long as the width allows. */
function quietRun(first: string, last: string, periods: number, opts: ChartOptions): string {
  if (periods === 1) return `${first}  (no clicks)`;
  const [one, many] = UNITS[opts.type ?? ''] ?? ['period', 'periods'];
  // Hourly and minute labels of one day: the end needs only its time.
  const lastShort = first.length > 10 && first.slice(0, 10) === last.slice(0, 10) ? last.slice(11) : last;
  const candidates = [
    `${first} … ${last}  (${count(periods, one, many)}, no clicks)`,
    `${first} … ${lastShort}  (${count(periods, one, many)}, no clicks)`,
    `${first} … ${lastShort}  (no clicks)`,
  ];
  return candidates.find((c) => cellWidth(c) <= opts.width) ?? candidates[candidates.length - 1];
}

/** Table mode: the chart of statsChartLines, in colour when the view has it. */
export function renderStatsChart(out: OutStream, stats: KeyedStats, paint: Paint, opts: ChartOptions): void {
  const lines = statsChartLines(stats, opts).map((line) => line.map(([text, style]) => (style ? paint[style](text) : text)).join('').trimEnd());
  out.write(`${lines.join('\n')}\n`);
}
