// Link statistics: the service numbers its columns by the position of each
// link in the request (clicks0, redirects1). Here they are keyed by link id,
// so answers of several requests merge into one table, and drawn as bars.

import type { LinkStatsResult } from '../catalog/types.js';
import type { Paint } from './color.js';
import type { OutStream, Row } from './format.js';

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

/** Table mode: one row per period with a bar per link scaled to the busiest period, then totals. */
export function renderStatsChart(out: OutStream, stats: KeyedStats, paint: Paint, width = 100): void {
  const { ids, rows, totals } = stats;
  if (rows.length === 0) {
    out.write('No clicks in this interval.\n');
    return;
  }
  const busiest = Math.max(1, ...rows.flatMap((r) => ids.map((id) => num(r[`clicks_${id}`]))));
  const periodWidth = Math.max(6, ...rows.map((r) => String(r.period).length));
  const countWidth = String(busiest).length;
  const colWidth = Math.max(12, Math.floor((width - periodWidth - 2) / ids.length) - 2);
  const barMax = Math.max(4, Math.min(40, colWidth - countWidth - 1));
  const cell = (text: string, visible: number) => text + ' '.repeat(Math.max(0, colWidth - visible));
  const lines: string[] = [];
  lines.push(paint.bold(['period'.padEnd(periodWidth), ...ids.map((id) => cell(`#${id}`, `#${id}`.length))].join('  ').trimEnd()));
  for (const row of rows) {
    const cells = ids.map((id) => {
      const clicks = num(row[`clicks_${id}`]);
      const len = clicks === 0 ? 0 : Math.max(1, Math.round((clicks / busiest) * barMax));
      const bar = len ? '█'.repeat(len) : '·';
      const text = `${bar} ${String(clicks).padStart(countWidth)}`;
      return cell(paint.cyan(bar) + text.slice(bar.length), text.length);
    });
    lines.push([String(row.period).padEnd(periodWidth), ...cells].join('  ').trimEnd());
  }
  const totalCells = ids.map((id) => {
    const t = totals[id] ?? { clicks: 0, redirects: 0 };
    const text = `${t.clicks} clicks, ${t.redirects} redirects`;
    return cell(text, text.length);
  });
  lines.push(paint.bold(['total'.padEnd(periodWidth), ...totalCells].join('  ').trimEnd()));
  out.write(`${lines.join('\n')}\n`);
}
