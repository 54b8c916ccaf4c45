// Tables for people: columns fit the terminal. Keys (id, code, short link)
// are never cut; long free text gives way first, then the least useful
// columns are left out (and named, so a person knows to widen the terminal
// or pick --fields). One record is shown as `label  value` lines with every
// value whole, wrapped.

import { columnInfo, type ColumnInfo } from '../catalog/columns.js';
import { tone, type Paint } from './color.js';
import { cellText, escapeControls, oneLine } from './text.js';
import { cellWidth, padEnd, truncate, wrap } from './width.js';

const GAP = 2;
/** Free text is not shrunk below this many cells (or its header). */
const MIN_TEXT = 12;

export interface TableOptions {
  paint: Paint;
  /** Words shown instead of raw values, e.g. status 1 -> active. */
  labels?: Record<string, Record<string, string>>;
  /** Cells to fit in; undefined: as wide as the values need. */
  width?: number;
}

interface Cell {
  text: string;
  /** Colour applied after padding, so widths are measured on plain text. */
  tint?: (s: string) => string;
}

/** A datetime in a table: to the minute (the seconds are in the record view and JSON). */
const DATETIME = /^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}):\d{2}$/;

function cellOf(field: string, value: unknown, opts: TableOptions, oneRecord: boolean): Cell {
  if (value === null || value === undefined || value === '') return { text: '-', tint: opts.paint.dim };
  const label = opts.labels?.[field]?.[String(value)];
  if (label) return { text: label, tint: (s) => tone(s.trimEnd(), opts.paint) + s.slice(s.trimEnd().length) };
  let text = cellText(value);
  if (!oneRecord && typeof value === 'string') text = text.replace(DATETIME, '$1');
  text = oneRecord ? escapeControls(text) : oneLine(text);
  if (field === 'status' || field === 'deliveryStatus') return { text, tint: (s) => tone(s.trimEnd(), opts.paint) + s.slice(s.trimEnd().length) };
  return { text };
}

interface Column {
  field: string;
  info: ColumnInfo;
  /** Cells the widest value (or the header) needs. */
  natural: number;
  /** Cells it may not go below. */
  min: number;
  width: number;
}

/**
 * Chooses the columns that fit and their widths: every column at its
 * natural width if they all fit; else free text shrinks (to MIN_TEXT), then
 * columns of the highest rank are left out until the rest fit, and the room
 * left is shared among the text columns.
 */
export function layout(fields: readonly string[], cells: Cell[][], width: number | undefined): { columns: Column[]; hidden: string[] } {
  const columns: Column[] = fields.map((field, i) => {
    const info = columnInfo(field);
    const header = cellWidth(info.header);
    const natural = Math.max(header, ...cells.map((row) => cellWidth(row[i].text)));
    const min = info.role === 'text' ? Math.min(natural, Math.max(header, MIN_TEXT)) : natural;
    return { field, info, natural, min, width: natural };
  });
  if (width === undefined) return { columns, hidden: [] };
  const total = (cols: Column[], key: 'min' | 'natural') => cols.reduce((s, c) => s + c[key], 0) + GAP * Math.max(0, cols.length - 1);
  let shown = columns;
  const hidden: string[] = [];
  while (total(shown, 'min') > width) {
    const droppable = shown.filter((c) => c.info.role !== 'key');
    if (droppable.length === 0) break;
    const drop = droppable.reduce((a, b) => (b.info.rank >= a.info.rank ? b : a));
    hidden.push(drop.field);
    shown = shown.filter((c) => c !== drop);
  }
  if (total(shown, 'natural') > width) {
    for (const c of shown) c.width = c.min;
    let room = width - total(shown, 'min');
    // Share the room: the text column that needs least is filled first, the rest split what is left.
    const growing = shown.filter((c) => c.natural > c.min).sort((a, b) => a.natural - a.min - (b.natural - b.min));
    growing.forEach((c, i) => {
      const share = Math.floor(room / (growing.length - i));
      const add = Math.min(c.natural - c.min, Math.max(0, share));
      c.width += add;
      room -= add;
    });
  }
  return { columns: shown, hidden };
}

function line(parts: string[]): string {
  return parts.join(' '.repeat(GAP)).trimEnd();
}

/** Rows as a table; `hidden` names the columns left out for want of width. */
export function renderTable(rows: Record<string, unknown>[], fields: readonly string[], opts: TableOptions): { text: string; hidden: string[] } {
  const cells = rows.map((row) => fields.map((f) => cellOf(f, row[f], opts, false)));
  const { columns, hidden } = layout(fields, cells, opts.width);
  const index = columns.map((c) => fields.indexOf(c.field));
  const out = [line(columns.map((c) => opts.paint.bold(padEnd(c.info.header, c.width))))];
  for (const row of cells) {
    out.push(
      line(
        columns.map((c, j) => {
          const cell = row[index[j]];
          const text = padEnd(truncate(cell.text, c.width), c.width);
          return cell.tint ? cell.tint(text) : text;
        }),
      ),
    );
  }
  return { text: `${out.join('\n')}\n`, hidden: hidden.map((f) => columnInfo(f).header) };
}

/** One record as `label  value` lines, every value whole: long ones wrap under themselves. */
export function renderRecordView(record: Record<string, unknown>, fields: readonly string[], opts: TableOptions): string {
  const labels = fields.map((f) => columnInfo(f).header);
  const labelWidth = Math.max(...labels.map(cellWidth));
  const valueWidth = opts.width === undefined ? Infinity : Math.max(20, opts.width - labelWidth - GAP);
  const indent = ' '.repeat(labelWidth + GAP);
  return fields
    .map((field, i) => {
      const cell = cellOf(field, record[field], opts, true);
      const lines = valueWidth === Infinity ? cell.text.split('\n') : wrap(cell.text, valueWidth);
      const first = cell.tint ? cell.tint(lines[0]) : lines[0];
      return [`${opts.paint.bold(padEnd(labels[i], labelWidth))}${' '.repeat(GAP)}${first}`, ...lines.slice(1).map((l) => `${indent}${l}`)].join('\n');
    })
    .join('\n')
    .concat('\n');
}
