// Renders results for people (table) and for scripts (json, ndjson, csv, tsv,
// -q). Rows can be written as they arrive (bulk work, --all paging): ndjson,
// csv and tsv print at once, json streams one array, tables print at the end.

import type { OutputFormat } from '../config/resolve.js';
import { tone, type Paint } from './color.js';

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export type Row = Record<string, unknown>;

export interface View {
  format: OutputFormat;
  /** Default columns for table/csv/tsv. */
  columns: readonly string[];
  /** --fields: chosen and ordered columns or keys. */
  fields?: readonly string[];
  quiet: boolean;
  primary: string;
  labels?: Record<string, Record<string, string>>;
  paint: Paint;
  /** Terminal width, to keep long cells readable. */
  width?: number;
  /** Told which --fields names no row had (a misspelt field shows as empty otherwise). */
  onUnknownFields?: (names: string[]) => void;
}

/** The --fields names that none of the rows has. */
function missingFields(view: View, seen: ReadonlySet<string>): string[] {
  return (view.fields ?? []).filter((f) => !seen.has(f));
}

/** Text for one cell in table/csv/tsv. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function csvCell(value: unknown): string {
  const s = cellText(value);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function tsvCell(value: unknown): string {
  return cellText(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

function pick(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  for (const f of fields) out[f] = row[f] ?? null;
  return out;
}

function primaryLines(row: Row, primary: string): string[] {
  const v = row[primary];
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.map(cellText);
  return [cellText(v)];
}

const TABLE_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

function clip(s: string, max: number): string {
  return [...s].length > max ? `${[...s].slice(0, max - 1).join('')}…` : s;
}

/** Control characters (escape sequences included) from the data must not reach a terminal. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function tableCell(field: string, value: unknown, view: View, maxCell: number): string {
  if (value === null || value === undefined || value === '') return view.paint.dim('-');
  const label = view.labels?.[field]?.[String(value)];
  if (label) return tone(label, view.paint);
  const text = clip(cellText(value).replace(/\s+/g, ' ').replace(CONTROL, '?'), maxCell);
  return field === 'status' ? tone(text, view.paint) : text;
}

async function renderTable(rows: Row[], columns: readonly string[], view: View): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const maxCell = Math.max(20, Math.floor(((view.width ?? 160) - columns.length * 2) / Math.max(1, columns.length)) * 2);
  const table = new Table({
    head: columns.map((c) => view.paint.bold(c)),
    chars: TABLE_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(columns.map((c) => tableCell(c, row[c], view, maxCell)));
  return `${table.toString().replace(/[ \t]+$/gm, '')}\n`;
}

/** One record as `field  value` lines (link get, message send). */
async function renderVertical(row: Row, columns: readonly string[], view: View): Promise<string> {
  const width = Math.max(...columns.map((c) => c.length));
  const maxCell = Math.max(40, (view.width ?? 120) - width - 2);
  return columns.map((c) => `${view.paint.bold(c.padEnd(width))}  ${tableCell(c, row[c], view, maxCell)}\n`).join('');
}

/** Writes rows as they arrive; call end() once. */
export class RowWriter {
  #count = 0;
  #buffer: Row[] = [];
  #json: string[] = [];
  #headerDone = false;
  #seen = new Set<string>();
  constructor(
    private readonly out: OutStream,
    private readonly view: View,
    /** json: hold the (serialised) items and print one array at end(), so a failure half-way never leaves broken JSON. */
    private readonly opts: { holdJson?: boolean } = {},
  ) {}

  #columns(): readonly string[] {
    return this.view.fields?.length ? this.view.fields : this.view.columns;
  }

  async write(rows: Row[]): Promise<void> {
    const { view, out } = this;
    if (rows.length === 0) return;
    if (view.fields?.length) for (const r of rows) for (const k of Object.keys(r)) this.#seen.add(k);
    if (view.quiet) {
      const lines = rows.flatMap((r) => primaryLines(r, view.primary));
      if (lines.length) out.write(`${lines.join('\n')}\n`);
      this.#count += rows.length;
      return;
    }
    switch (view.format) {
      case 'ndjson':
        out.write(rows.map((r) => JSON.stringify(view.fields?.length ? pick(r, view.fields) : r)).join('\n') + '\n');
        break;
      case 'json': {
        const parts = rows.map((r) => JSON.stringify(view.fields?.length ? pick(r, view.fields) : r, null, 2).replace(/^/gm, '  '));
        if (this.opts.holdJson) this.#json.push(...parts);
        else out.write(`${this.#count === 0 ? '[\n' : ',\n'}${parts.join(',\n')}`);
        break;
      }
      case 'csv':
      case 'tsv': {
        const cols = this.#columns();
        const sep = view.format === 'csv' ? ',' : '\t';
        const cell = view.format === 'csv' ? csvCell : tsvCell;
        let text = '';
        if (!this.#headerDone) {
          text += cols.map(cell).join(sep) + '\n';
          this.#headerDone = true;
        }
        text += rows.map((r) => cols.map((c) => cell(r[c])).join(sep)).join('\n') + '\n';
        out.write(text);
        break;
      }
      case 'table':
        this.#buffer.push(...rows);
        break;
    }
    this.#count += rows.length;
  }

  async end(): Promise<void> {
    const { view, out } = this;
    const missing = this.#count ? missingFields(view, this.#seen) : [];
    if (missing.length) view.onUnknownFields?.(missing);
    if (view.quiet) return;
    if (view.format === 'json' && this.opts.holdJson) out.write(this.#json.length ? `[\n${this.#json.join(',\n')}\n]\n` : '[]\n');
    else if (view.format === 'json') out.write(this.#count === 0 ? '[]\n' : '\n]\n');
    else if ((view.format === 'csv' || view.format === 'tsv') && !this.#headerDone) {
      const sep = view.format === 'csv' ? ',' : '\t';
      out.write(this.#columns().join(sep) + '\n');
    } else if (view.format === 'table' && this.#buffer.length) {
      out.write(await renderTable(this.#buffer, this.#columns(), view));
      this.#buffer = [];
    }
  }
}

/** Renders one record (the result of get, create, send, update). */
export async function renderRecord(out: OutStream, view: View, record: Row): Promise<void> {
  const missing = missingFields(view, new Set(Object.keys(record)));
  if (missing.length) view.onUnknownFields?.(missing);
  if (view.quiet) {
    const lines = primaryLines(record, view.primary);
    if (lines.length) out.write(`${lines.join('\n')}\n`);
    return;
  }
  const row = view.fields?.length ? pick(record, view.fields) : record;
  switch (view.format) {
    case 'json':
      out.write(`${JSON.stringify(row, null, 2)}\n`);
      return;
    case 'ndjson':
      out.write(`${JSON.stringify(row)}\n`);
      return;
    case 'table':
      out.write(await renderVertical(record, view.fields?.length ? view.fields : view.columns, view));
      return;
    default: {
      const w = new RowWriter(out, { ...view, onUnknownFields: undefined });
      await w.write([record]);
      await w.end();
    }
  }
}

/** Renders a list of rows at once. */
export async function renderRows(out: OutStream, view: View, rows: Row[]): Promise<void> {
  const w = new RowWriter(out, view);
  await w.write(rows);
  await w.end();
}
