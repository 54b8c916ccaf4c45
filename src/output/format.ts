// Renders results for people (table) and for scripts (json, ndjson, csv, tsv,
// -q). Rows can be written as they arrive (bulk work, --all paging): ndjson,
// csv and tsv print at once, json streams one array, tables print at the end.
// csv, tsv and -q written to a terminal are escaped as tables are.

import type { ValueKind } from '../catalog/types.js';
import type { OutputFormat } from '../config/resolve.js';
import type { Paint } from './color.js';
import type { TableLayout } from './table.js';
import { cellText, escapeControls } from './text.js';

export { cellText };

export interface OutStream {
  /** False when the stream holds more than it should: wait for drained() before writing more. */
  write(chunk: string): unknown;
  /** Resolves once what was written has gone out: a slow reader holds a long list here, not in memory. */
  drained?(): Promise<void>;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
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
  /** What the values of fields whose name says too little are (`status`), for a person's table. */
  kinds?: Record<string, ValueKind>;
  /** The account's currency, said with every amount of money in a table. */
  currency?: string;
  paint: Paint;
  /** Terminal width that tables fit; undefined when not a terminal. */
  width?: number;
  /** Fields a flag asked about (--sort's), which a table keeps in sight (table.ts). */
  asked?: readonly string[];
  /** --csv-safe: neutralise spreadsheet formulas in csv and tsv cells. */
  csvSafe?: boolean;
  /** Told which columns a table left out because the terminal is too narrow. */
  onHiddenColumns?: (headers: string[]) => void;
}

/**
 * Text of csv, tsv or -q as `out` should get it: a terminal gets the service's
 * controls and escapes shown escaped, as a table shows them (they could retitle
 * the window, set the clipboard, clear the screen); a file or pipe gets every
 * byte as it came. Tab and newline are kept, so the lines and columns stay.
 */
function forOut(out: OutStream, text: string): string {
  return out.isTTY ? escapeControls(text) : text;
}

function csvCell(value: unknown): string {
  const s = cellText(value);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function tsvCell(value: unknown): string {
  return cellText(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/**
 * --csv-safe: a cell a spreadsheet would run as a formula (a leading =, +,
 * -, @, tab or CR) gets a leading ' (OWASP's advice for CSV injection).
 */
function formulaSafe(value: unknown): unknown {
  const s = cellText(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : value;
}

/** A row's fields: an answer that is not an object (null, a number, from a broken service) has none, and shows as empty. */
function fieldsOf(row: unknown): Row {
  return row !== null && typeof row === 'object' ? (row as Row) : {};
}

function pick(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  const from = fieldsOf(row);
  for (const f of fields) out[f] = from[f] ?? null;
  return out;
}

function primaryLines(row: Row, primary: string): string[] {
  const v = fieldsOf(row)[primary];
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.map(cellText);
  return [cellText(v)];
}

/** Writes a table, then names the columns it left out for want of width. */
/**
 * Items `--all` holds before it writes a JSON array: a list that fails
 * within them prints nothing rather than broken JSON; a longer one is written
 * as it arrives, so memory stays flat (a failure then leaves the array
 * unclosed, and the exit code says so).
 */
export const HELD_JSON_ITEMS = 10_000;

/** Rows a table holds to choose its columns and widths; later rows are drawn as they arrive, in the same ones. */
export const TABLE_LAYOUT_ROWS = 1_000;

/** Writes rows as they arrive; call end() once. */
export class RowWriter {
  #count = 0;
  #buffer: Row[] = [];
  #json: string[] = [];
  #headerDone = false;
  /** The table's columns and widths once chosen (after TABLE_LAYOUT_ROWS rows). */
  #layout: TableLayout | undefined;
  constructor(
    private readonly out: OutStream,
    private readonly view: View,
    /** json: hold the first HELD_JSON_ITEMS (serialised) items before writing the array (see there). */
    private readonly opts: { holdJson?: boolean } = {},
  ) {}

  #columns(): readonly string[] {
    return this.view.fields?.length ? this.view.fields : this.view.columns;
  }

  /** Writes, then waits while the reader is behind (a pipe into a slow reader), so that rows never pile up in memory. */
  async #put(text: string): Promise<void> {
    if (this.out.write(text) === false) await this.out.drained?.();
  }

  async write(rows: Row[]): Promise<void> {
    const { view, out } = this;
    if (rows.length === 0) return;
    if (view.quiet) {
      const lines = rows.flatMap((r) => primaryLines(r, view.primary));
      if (lines.length) await this.#put(forOut(out, `${lines.join('\n')}\n`));
      this.#count += rows.length;
      return;
    }
    switch (view.format) {
      case 'ndjson':
        await this.#put(rows.map((r) => JSON.stringify(view.fields?.length ? pick(r, view.fields) : r)).join('\n') + '\n');
        break;
      case 'json': {
        // Indented after newlines only: /^/gm also matches after U+2028 and U+2029, which JSON keeps raw inside strings.
        const parts = rows.map((r) => JSON.stringify(view.fields?.length ? pick(r, view.fields) : r, null, 2).replace(/^|\n/g, '$&  '));
        if (this.opts.holdJson && this.#count + rows.length <= HELD_JSON_ITEMS) this.#json.push(...parts);
        else {
          // Past what is held: what was held goes first, and the rest as it arrives.
          const held = this.#json.splice(0);
          await this.#put(`${this.#count === 0 ? '[\n' : held.length ? '[\n' : ',\n'}${[...held, ...parts].join(',\n')}`);
        }
        break;
      }
      case 'csv':
      case 'tsv': {
        const cols = this.#columns();
        const sep = view.format === 'csv' ? ',' : '\t';
        const plain = view.format === 'csv' ? csvCell : tsvCell;
        const cell = view.csvSafe ? (v: unknown) => plain(formulaSafe(v)) : plain;
        let text = '';
        if (!this.#headerDone) {
          text += cols.map(cell).join(sep) + '\n';
          this.#headerDone = true;
        }
        text += rows.map((r) => cols.map((c) => cell(fieldsOf(r)[c])).join(sep)).join('\n') + '\n';
        await this.#put(forOut(out, text));
        break;
      }
      case 'table':
        this.#buffer.push(...rows.map(fieldsOf));
        if (this.#layout || this.#buffer.length >= TABLE_LAYOUT_ROWS) await this.#drawTable();
        break;
    }
    this.#count += rows.length;
  }

  /** Draws the rows held: the first draw chooses the columns (and names those left out), later ones use them. */
  async #drawTable(): Promise<void> {
    const { renderTable } = await import('./table.js');
    const { text, hidden, layout } = renderTable(this.#buffer, this.#columns(), this.view, this.#layout);
    await this.#put(this.#layout ? text.slice(text.indexOf('\n') + 1) : text);
    if (!this.#layout && hidden.length) this.view.onHiddenColumns?.(hidden);
    this.#layout = layout;
    this.#buffer = [];
  }

  async end(): Promise<void> {
    const { view } = this;
    if (view.quiet) return;
    if (view.format === 'json' && this.#json.length) await this.#put(`[\n${this.#json.join(',\n')}\n]\n`);
    else if (view.format === 'json') await this.#put(this.#count === 0 ? '[]\n' : '\n]\n');
    else if ((view.format === 'csv' || view.format === 'tsv') && !this.#headerDone) {
      const sep = view.format === 'csv' ? ',' : '\t';
      await this.#put(this.#columns().join(sep) + '\n');
    } else if (view.format === 'table' && this.#buffer.length) {
      await this.#drawTable();
    }
  }
}

/** Renders one record (the result of get, create, send, update). */
export async function renderRecord(out: OutStream, view: View, result: object): Promise<void> {
  const record = result as Row;
  if (view.quiet) {
    const lines = primaryLines(record, view.primary);
    if (lines.length) out.write(forOut(out, `${lines.join('\n')}\n`));
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
    case 'table': {
      const { renderRecordView } = await import('./table.js');
      out.write(renderRecordView(fieldsOf(record), view.fields?.length ? view.fields : view.columns, view));
      return;
    }
    default: {
      const w = new RowWriter(out, view);
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
