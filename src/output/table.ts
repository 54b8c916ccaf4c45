// Tables for people, drawn by cli-table3; the policy is ours: columns fit
// the terminal and give up last what a person reads (docs/output.md, "How
// tables are drawn"). One record is shown as `label  value` lines with
// every value whole, wrapped.

import { columnInfo, type ColumnInfo } from '../catalog/columns.js';
import { tone, type Paint } from './color.js';
import { cellText, escapeControls, oneLine } from './text.js';
import { isStatusKind, say, yesNo } from './words.js';
import type { ValueKind } from '../catalog/types.js';
import Table from 'cli-table3';
import { cellWidth, cutMiddle, cutNeed, sharedEnds, truncate, wrap } from './width.js';

const GAP = 2;
/** Free text is not shrunk below this many cells (or its header). */
const MIN_TEXT = 12;

export interface TableOptions {
  paint: Paint;
  /** What the values of fields whose name says too little are (`status`): said in words (words.ts). */
  kinds?: Record<string, ValueKind>;
  /** Said with every amount of money. */
  currency?: string;
  /** Cells to fit in; undefined: as wide as the values need. */
  width?: number;
  /** Fields a flag asked about (--sort's): kept at a narrow width as the most useful detail, and shown even when every row is a dash. */
  asked?: readonly string[];
}

/**
 * A field's column: its header, role and rank (catalog/columns.ts). A field
 * whose values are a campaign's status is headed so whatever its name: a
 * send's `status` is its campaign's, and a bare `status` beside the
 * message's own status (`message send --wait`) misleads.
 */
function infoOf(field: string, kinds: TableOptions['kinds']): ColumnInfo {
  const info = columnInfo(field);
  return kinds?.[field] === 'campaignStatus' ? { ...info, header: columnInfo('campaignStatus').header } : info;
}

interface Cell {
  text: string;
  /** Colour for the cell's text (cli-table3 does not count colour codes in widths). */
  tint?: (s: string) => string;
}

/** A cell: a value of a known kind in words (a status, money, a time: words.ts), else as it came, made safe for a terminal. */
function cellOf(field: string, value: unknown, opts: TableOptions, oneRecord: boolean): Cell {
  if (value === null || value === undefined || value === '') return { text: '-', tint: opts.paint.dim };
  const kind = opts.kinds?.[field] ?? columnInfo(field).kind;
  const said = kind ? say(kind, value, oneRecord ? 'record' : 'table', opts.currency) : typeof value === 'boolean' ? yesNo(value) : cellText(value);
  const text = oneRecord ? escapeControls(said) : oneLine(said);
  return isStatusKind(kind) ? { text, tint: (s) => tone(s, opts.paint) } : { text };
}

interface Column {
  field: string;
  info: ColumnInfo;
  /** Cells the widest value (or the header) needs. */
  natural: number;
  /** Cells it may not go below. */
  min: number;
  width: number;
  /** URL columns: how much of each row's end another row shares (see sharedEnds). */
  shared?: number[];
  /** Every row says nothing here (a dash, or 0): it gives way before a column that says something. */
  silent: boolean;
}

/** Cells a wrapped column (why a row failed) asks for, and keeps at the least: a sentence's words a line, a few. */
const WRAP_NEED = 40;
/** Cells the text that tells rows apart (a message's text) asks for before detail goes. */
const APART_NEED = 30;
const MIN_WRAP = 20;
/** Columns ranked this or higher are detail (created, expires, segments ...): they go before the text that tells rows apart is cut to its floor. */
const DETAIL_RANK = 15;

/**
 * The next step that makes a table narrower, in the order a person loses
 * least: a silent column goes (every row a dash or 0); other free text is
 * cut to its floor; detail goes (rank DETAIL_RANK and up); the text that
 * tells rows apart is cut to its floor; the rest goes by rank, and the
 * column that tells rows apart last.
 */
function narrower(shown: Column[]): { drop: Column } | { shrink: Column; to: number } | undefined {
  const droppable = shown.filter((c) => c.info.role !== 'key');
  const highest = (cols: Column[]) => cols.reduce<Column | undefined>((a, b) => (!a || b.info.rank >= a.info.rank ? b : a), undefined);
  const floor = (c: Column) => Math.min(c.natural, Math.max(cellWidth(c.info.header), c.info.role === 'wrap' ? MIN_WRAP : MIN_TEXT));
  const cuttable = (c: Column) => (c.info.role === 'text' || c.info.role === 'wrap') && c.min > floor(c);
  const others = droppable.filter((c) => !c.info.tellsApart);
  // A key with nothing in it (no message id for rows never sent) tells no row apart: it goes as any silent column.
  const silent = highest(shown.filter((c) => c.silent));
  if (silent) return { drop: silent };
  const cut = highest(others.filter(cuttable));
  if (cut) return { shrink: cut, to: floor(cut) };
  const detail = highest(others.filter((c) => c.info.rank >= DETAIL_RANK));
  if (detail) return { drop: detail };
  const apart = highest(droppable.filter((c) => c.info.tellsApart && cuttable(c)));
  if (apart) return { shrink: apart, to: floor(apart) };
  const drop = highest(others) ?? highest(droppable);
  return drop && { drop };
}

/**
 * Chooses the columns that fit and their widths: every column at its
 * natural width if they all fit; else a column that repeats another shown
 * one (the code, inside the short link) is left out first, free text is
 * cut (a URL keeping its host and last part, other text its start) and a
 * wrapped column narrows; then `narrower` takes steps until the rest fit,
 * and a column left out comes back wherever the table with it still fits.
 * The room left goes to the cut and wrapped columns, the most useful
 * (lowest rank) first.
 */
export function layout(fields: readonly string[], cells: Cell[][], width: number | undefined, kinds?: TableOptions['kinds'], asked: readonly string[] = []): { columns: Column[]; hidden: string[] } {
  const columns: Column[] = fields.map((field, i) => {
    const own = infoOf(field, kinds);
    // A column the rows were sorted by tells the user the order they asked for: no longer detail that goes first.
    const info = asked.includes(field) ? { ...own, rank: Math.min(own.rank, DETAIL_RANK - 1) } : own;
    const header = cellWidth(info.header);
    const texts = cells.map((row) => row[i].text);
    const natural = Math.max(header, ...texts.map(cellWidth));
    const silent = !asked.includes(field) && cells.length > 0 && texts.every((t) => t === '-' || t === '0');
    if (info.role === 'wrap') return { field, info, natural, min: Math.min(natural, Math.max(header, WRAP_NEED)), width: natural, silent };
    if (info.role !== 'text') return { field, info, natural, min: natural, width: natural, silent };
    if (info.cut !== 'middle') return { field, info, natural, min: Math.min(natural, Math.max(header, info.tellsApart ? APART_NEED : MIN_TEXT)), width: natural, silent };
    // A URL keeps at least what tells its rows apart (its host and last part).
    const shared = sharedEnds(texts);
    const need = Math.max(header, MIN_TEXT, ...texts.map((t, r) => cutNeed(t, shared[r])));
    return { field, info, natural, min: Math.min(natural, need), width: natural, shared, silent };
  });
  const sum = (cols: Column[], cells: (c: Column) => number) => cols.reduce((s, c) => s + cells(c), 0) + GAP * Math.max(0, cols.length - 1);
  const total = (cols: Column[], key: 'min' | 'natural') => sum(cols, (c) => c[key]);
  if (width === undefined || total(columns, 'natural') <= width) return { columns, hidden: [] };
  let shown = columns.filter((c) => !(c.info.repeats && fields.includes(c.info.repeats)));
  const repeats = columns.filter((c) => !shown.includes(c)).map((c) => c.field);
  const hidden = [...repeats];
  /** The widths the other columns had when a column was left out: a repeat went with every column whole. */
  const wentAt = new Map(hidden.map((f) => [f, new Map(columns.map((c) => [c, c.natural]))]));
  while (total(shown, 'min') > width) {
    const step = narrower(shown);
    if (!step) break;
    if ('shrink' in step) step.shrink.min = step.to;
    else {
      wentAt.set(step.drop.field, new Map(shown.map((c) => [c, c.min])));
      hidden.push(step.drop.field);
      shown = shown.filter((c) => c !== step.drop);
    }
  }
  // The last column left out may free more cells than were missing: a column left out before it comes back (the
  // latest first) if the table with it fits in the widths it went at, so nothing that gives way after it is cut for it.
  // A column narrower left out comes back only while every one it left out later did: none returns beside a more useful
  // one still out. A repeat (the code beside its short link) comes back wherever it fits.
  let inRankOrder = true;
  for (const field of [...hidden].reverse()) {
    const repeat = repeats.includes(field);
    if (!repeat && !inRankOrder) continue;
    const at = wentAt.get(field)!;
    const back = columns.filter((c) => shown.includes(c) || c.field === field);
    if (sum(back, (c) => at.get(c) ?? c.min) > width) {
      if (!repeat) inRankOrder = false;
      continue;
    }
    shown = back;
    hidden.splice(hidden.indexOf(field), 1);
  }
  if (total(shown, 'natural') > width) {
    for (const c of shown) c.width = c.min;
    let room = width - total(shown, 'min');
    for (const c of [...shown].sort((a, b) => a.info.rank - b.info.rank)) {
      const add = Math.min(c.natural - c.min, room);
      c.width += add;
      room -= add;
    }
  }
  return { columns: shown, hidden };
}

/**
 * cli-table3 without borders, as gh draws its tables: columns apart by
 * GAP spaces (each cell's right padding), no lines between rows, and no
 * colours of its own (ours are in the cells; it measures them as nothing).
 */
function borderless(colWidths: Array<number | null>): Table.Table {
  const chars = Object.fromEntries(CHAR_NAMES.map((name) => [name, '']));
  return new Table({ chars, colWidths, style: { 'padding-left': 0, 'padding-right': GAP, head: [], border: [], compact: true } });
}

const CHAR_NAMES = ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right', 'left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid', 'middle'] as const;

/**
 * cli-table3's layout is quadratic in rows (each cell is checked against
 * every earlier row for spans), so rows are drawn in blocks of BLOCK with
 * the same column widths, which lines them up alike. Remeasure with
 * `npm run bench -- --scale --only list-links-table`.
 */
const BLOCK = 100;

/** The rows drawn, without the padding after each line's last cell. */
function draw(rows: string[][], colWidths: Array<number | null>): string {
  const lines: string[] = [];
  for (let i = 0; i < rows.length; i += BLOCK) {
    const table = borderless(colWidths);
    table.push(...rows.slice(i, i + BLOCK));
    lines.push(...table.toString().split('\n').map((l) => l.trimEnd()));
  }
  return `${lines.join('\n')}\n`;
}

/** A cell's text in its column's width: a URL cut in the middle, other text at its end, why a row failed wrapped whole. */
function fitCell(c: Column, text: string, row: number): string {
  if (cellWidth(text) <= c.width) return text;
  if (c.info.role === 'wrap') return wrap(text, c.width).join('\n');
  return c.shared ? cutMiddle(text, c.width, c.shared[row]) : truncate(text, c.width);
}

/**
 * The columns chosen for a table's first rows, for its later rows: a key or
 * value wider than its column widens it (an id of more digits), and cut
 * text gives the cells back (down to its floor) so the line still fits;
 * what a URL's rows share is found among these rows.
 */
function refit(fixed: TableLayout, fields: readonly string[], cells: Cell[][], width: number | undefined): TableLayout {
  const columns = fixed.columns.map((c) => {
    const i = fields.indexOf(c.field);
    const texts = cells.map((row) => row[i].text);
    if (c.info.role === 'key' || c.info.role === 'value') return { ...c, width: Math.max(c.width, ...texts.map(cellWidth)) };
    return c.shared ? { ...c, shared: sharedEnds(texts) } : { ...c };
  });
  const total = columns.reduce((s, c) => s + c.width, 0) + GAP * Math.max(0, columns.length - 1);
  let excess = width === undefined ? 0 : total - width;
  for (const c of [...columns].sort((a, b) => b.info.rank - a.info.rank)) {
    if (excess <= 0 || (c.info.role !== 'text' && c.info.role !== 'wrap')) continue;
    const give = Math.min(excess, c.width - Math.min(c.width, MIN_TEXT));
    c.width -= give;
    excess -= give;
  }
  return { columns, hidden: fixed.hidden };
}

/** The columns a table chose and their widths: later rows of the same table are drawn in them. */
export interface TableLayout {
  columns: Column[];
  hidden: string[];
}

/**
 * Rows as a table; `hidden` names the columns left out for want of width.
 * With `fixed`, the columns and widths chosen for the table's first rows.
 */
export function renderTable(rows: Record<string, unknown>[], fields: readonly string[], opts: TableOptions, fixed?: TableLayout): { text: string; hidden: string[]; layout: TableLayout } {
  const cells = rows.map((row) => fields.map((f) => cellOf(f, row[f], opts, false)));
  const chosen = fixed ? refit(fixed, fields, cells, opts.width) : layout(fields, cells, opts.width, opts.kinds, opts.asked);
  const { columns, hidden } = chosen;
  const index = columns.map((c) => fields.indexOf(c.field));
  const drawn = cells.map((row, r) =>
    columns.map((c, j) => {
      const cell = row[index[j]];
      const text = fitCell(c, cell.text, r);
      return cell.tint ? cell.tint(text) : text;
    }),
  );
  const header = columns.map((c) => opts.paint.bold(c.info.header));
  const text = draw([header, ...drawn], columns.map((c) => c.width + GAP));
  return { text, hidden: hidden.map((f) => infoOf(f, opts.kinds).header), layout: chosen };
}

/** One record as `label  value` lines, every value whole: long ones wrap under themselves. */
export function renderRecordView(record: Record<string, unknown>, fields: readonly string[], opts: TableOptions): string {
  const labels = fields.map((f) => infoOf(f, opts.kinds).header);
  const labelWidth = Math.max(...labels.map(cellWidth));
  const valueWidth = opts.width === undefined ? Infinity : Math.max(20, opts.width - labelWidth - GAP);
  const rows = fields.map((field, i) => {
    const cell = cellOf(field, record[field], opts, true);
    const text = valueWidth === Infinity ? cell.text : wrap(cell.text, valueWidth).join('\n');
    return [opts.paint.bold(labels[i]), cell.tint ? cell.tint(text) : text];
  });
  return draw(rows, [labelWidth + GAP, valueWidth === Infinity ? null : valueWidth + GAP]);
}
