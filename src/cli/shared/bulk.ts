// Flags of bulk runs (`--from-file` on link create and message send) and the
// mapping from a file's columns to an operation's parameters.

import type { Command } from 'commander';
import type { OperationSpec } from '../../catalog/types.js';
import { validateInput } from '../../catalog/validate.js';
import { ValidationError } from '../../client/errors.js';
import type { BulkHost, BulkOptions, BulkSpec, RowProblem } from '../../bulk/engine.js';
import type { RunContext } from '../core/context.js';
import { UsageError } from '../../exit-codes.js';
import { parseConcurrency, parseCount } from './ids.js';
import { fromCli } from './operation.js';
import type { CliValues } from '../core/command.js';
import { canConfirm, confirm } from '../core/prompt.js';
import { unknownName } from '../../output/words.js';

/** What the bulk engine needs of this run (src/bulk knows nothing of the CLI). */
export function bulkHost(ctx: RunContext): BulkHost {
  const { io } = ctx;
  return {
    stdin: io.stdin,
    get stdout() {
      return ctx.stdout;
    },
    stderr: io.stderr,
    stdoutIsPipe: io.stdoutIsPipe === true,
    signal: io.signal,
    stopNow: io.stopNow,
    dryRun: ctx.globals.dryRun === true,
    target: () => (ctx.sandbox ? 'sandbox' : String(ctx.settings().baseUrl.value ?? '')),
    now: () => ctx.now(),
    note: (message) => ctx.note(message),
    canAsk: () => canConfirm(ctx),
    ask: (question) => confirm(ctx, question),
    warn: (message) => ctx.warn(message),
    view: (columns, primary, kinds) => ctx.view({ output: { rows: 'array', columns, primary, kinds } }),
    // Thousands of requests: undici's start-up pays for itself in CPU per request (transport.ts); and
    // Ctrl-C lets the requests in flight finish (a second one drops them).
    client: () => ctx.client({ interruptible: false, httpClient: 'undici' }),
  };
}

/** What --help says of a run that stops early, for every command with --from-file. */
export const BULK_STOPS_HELP = `A key the service refuses (exit 4) or a service out of reach (exit 3) stops
the run at once, as every row would fail: the rows not sent wait for the rerun.`;

export function bulkOptions(cmd: Command): Command {
  return cmd
    .option('--from-file <file>', 'one request per row of a CSV (with header) or NDJSON file, or per object of a JSON array; - reads stdin')
    .option('--format <format>', 'csv, ndjson, or json (an array of objects); default: from the file extension')
    .option('--encoding <name>', "the file's text encoding, e.g. windows-1251, latin1, utf-16le (default: utf-8)")
    .option('--delimiter <char>', "what separates a CSV file's columns: , ; tab or another character (default: the one its header row uses)")
    .option('--validate-only', 'check every row and report the bad ones; send nothing')
    .option('--concurrency <n>', 'requests in flight (default 4)')
    .option('--rate <n>', 'at most n requests per second')
    .option('--journal <file>', 'journal of row outcomes (default: beside the input file); rerun to resume')
    .option('--resend-unknown', 'send rows an earlier run left with no answer again, without looking them up first')
    .option('--resend-changed', 'send again, without asking, rows an earlier run sent that have changed since')
    .option('--no-reconcile', 'do not look up rows whose answer was lost (they stay unknown)')
    .option('--fresh', 'send every row again, even those the journal records as done');
}

export function bulkFlags(opts: CliValues): BulkOptions {
  return {
    file: String(opts.fromFile),
    format: typeof opts.format === 'string' ? opts.format : undefined,
    encoding: typeof opts.encoding === 'string' ? opts.encoding : undefined,
    delimiter: typeof opts.delimiter === 'string' ? opts.delimiter : undefined,
    validateOnly: opts.validateOnly === true,
    concurrency: parseConcurrency(opts.concurrency),
    rate: opts.rate === undefined ? 0 : parseCount(opts.rate, '--rate', 0, 100_000),
    journal: typeof opts.journal === 'string' ? opts.journal : undefined,
    resendUnknown: opts.resendUnknown === true,
    reconcile: opts.reconcile !== false,
    fresh: opts.fresh === true,
    resendChanged: opts.resendChanged === true,
  };
}

/** Bulk-only flags given without --from-file are a usage error, not silently ignored. */
export function rejectBulkFlagsWithoutFile(opts: CliValues): void {
  if (opts.fromFile !== undefined) return;
  for (const [key, flag] of [
    ['format', '--format'],
    ['encoding', '--encoding'],
    ['delimiter', '--delimiter'],
    ['validateOnly', '--validate-only'],
    ['rate', '--rate'],
    ['journal', '--journal'],
    ['resendUnknown', '--resend-unknown'],
    ['resendChanged', '--resend-changed'],
    ['fresh', '--fresh'],
  ] as const) {
    if (opts[key] !== undefined) throw new UsageError(`${flag} only applies with --from-file`);
  }
  // commander gives --no-reconcile's value as `reconcile`, true unless the flag was given.
  if (opts.reconcile === false) throw new UsageError('--no-reconcile only applies with --from-file');
}

const empty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

export interface ColumnMapping {
  /** Parameter key -> column name in the file. */
  columns: Record<string, string>;
  /** Columns that must exist. */
  required: string[];
  /** Values from flags used when a row leaves the column empty. */
  defaults: Record<string, unknown>;
  /** Another name a column may have, read when the file has no column of the first name (recipient: to, as the flag and message list say it). */
  aliases?: Record<string, string>;
}

/** A BulkSpec reading the mapped columns of each row (aliases such as active/inactive apply as on the command line). */
export function columnSpec(
  ctx: RunContext,
  command: string,
  op: OperationSpec,
  mapping: ColumnMapping,
  extra: {
    checkColumns?: (columns: string[]) => void;
    /** Columns read by other means (template placeholders): not reported as ignored. */
    alsoUsed?: readonly string[];
    fill?: (input: Record<string, unknown>, fields: Record<string, unknown>, problems: RowProblem[]) => void;
    resultColumns: readonly string[];
    primary: string;
  },
): BulkSpec {
  checkDefaults(ctx, op, mapping.defaults);
  // The file's own names, once its header says which of a column's names it uses.
  const named = { ...mapping.columns };
  let required = mapping.required;
  // Flags with no column of their own (--shorten-links) apply to every row.
  const everyRow = Object.entries(mapping.defaults).filter(([key, value]) => value !== undefined && !(key in mapping.columns));
  /** Set by checkColumns, which the engine calls before any row is read: each parameter's column, and every column read. */
  let byColumn: Array<[string, string]> = [];
  let read: string[] = [];
  /** The keys a row may hold: those read, and the first row's (a CSV header's: those not read were warned of, once). */
  let accepted: ReadonlySet<string> | undefined;
  return {
    command,
    op,
    checkColumns(columns) {
      for (const [column, other] of Object.entries(mapping.aliases ?? {})) {
        if (!columns.includes(other)) continue;
        if (columns.includes(column)) throw new UsageError(`--from-file: the input has both a ${column} and a ${other} column, which mean the same: keep one`);
        for (const key of Object.keys(named)) if (named[key] === column) named[key] = other;
        required = required.map((c) => (c === column ? other : c));
      }
      byColumn = Object.entries(named);
      read = [...new Set([...Object.values(named), ...(extra.alsoUsed ?? [])])];
      const asked = (c: string) => (mapping.aliases?.[c] ? `${c} (or ${mapping.aliases[c]})` : c);
      const missing = required.filter((c) => !columns.includes(c)).map(asked);
      // A file with no header at all (empty, or blank lines only) says so, not that a column is missing.
      if (columns.length === 0) throw new UsageError(`--from-file: the input is empty: it needs a ${mapping.required.map(asked).join(', ')} column (a CSV header, or the keys of JSON objects) and a row each`);
      if (missing.length) {
        // One column whose name holds punctuation is likely a row of columns apart by a character not looked for (`recipient|name`).
        const joined = columns.length === 1 && /[^\p{L}\p{N}\s_-]/u.test(columns[0]) ? '; if another character separates its columns, name it with --delimiter' : '';
        throw new UsageError(`--from-file: the input has no ${missing.join(', ')} column (columns: ${columns.join(', ') || 'none'})${joined}`);
      }
      const known = new Set(Object.values(named));
      extra.checkColumns?.(columns);
      // Empty names (a spreadsheet's trailing commas) name no column to ignore.
      const ignored = columns.filter((c) => c !== '' && !known.has(c) && !extra.alsoUsed?.includes(c));
      if (ignored.length) void ctx.warn(`ignoring columns ${ignored.join(', ')} (known: ${[...known].join(', ')})`);
      accepted = new Set([...read, ...columns]);
    },
    toInput(fields) {
      const input: Record<string, unknown> = {};
      const problems: RowProblem[] = [];
      for (const [key, column] of byColumn) {
        const param = op.params.find((p) => p.key === key);
        const raw = fields[column];
        if (!empty(raw)) input[key] = param ? fromCli(param, typeof raw === 'string' ? raw.trim() : raw, ctx.now()) : raw;
        else if (mapping.defaults[key] !== undefined) input[key] = mapping.defaults[key];
      }
      for (const [key, value] of everyRow) input[key] = value;
      extra.fill?.(input, fields, problems);
      // A JSON object's keys are its own: one the first row lacks and nothing reads (`coment`) is that row's
      // problem, by name, as a misspelt column must not drop a value unsaid. A key it leaves out is an empty cell.
      for (const key of Object.keys(fields)) {
        if (accepted && !accepted.has(key)) problems.push({ column: key, rule: `${unknownName('key', key, read)}; the keys read are ${read.join(', ')}` });
      }
      return { input, problems };
    },
    columnOf: (key) => named[key] ?? key,
    resultColumns: extra.resultColumns,
    primary: extra.primary,
  };
}

/**
 * Flag values that fill empty cells are checked once, as flags, before any
 * row is read: a bad --validity is the command's error (exit 2, nothing
 * sent), not a problem of each row that leaves the column empty while the
 * rows that fill it are sent.
 */
function checkDefaults(ctx: RunContext, op: OperationSpec, defaults: Record<string, unknown>): void {
  // The catalog's own check of the flags alone; what the rows supply (a missing recipient) is theirs to say.
  const given = Object.keys(defaults).filter((key) => defaults[key] !== undefined && defaults[key] !== null);
  const issues = validateInput(op, defaults, { now: ctx.now() }).issues.filter((issue) => given.includes(issue.key));
  if (issues.length) throw new ValidationError(`${op.module}/${op.operation}`, issues);
}
