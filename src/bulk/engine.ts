// The bulk engine of `link create --from-file` and `message send --from-file`
// (docs/bulk.md): check every row with the catalog's rules, send the good ones
// with bounded concurrency and rate, journal and print each outcome. Rows whose
// answer was lost are looked up, rows sent before and changed since are held
// back; Ctrl-C, a refused key or a service out of reach end the run cleanly.

import type { CheckContext } from '../catalog/rules.js';
import type { OperationSpec } from '../catalog/types.js';
import type { SmsLinkClient } from '../client/client.js';
import { ApiError } from '../client/errors.js';
import type { OutStream, RowWriter, View } from '../output/format.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { count } from '../output/words.js';
import { columnsOf, InputReadError, openInput, readAllRows, readRows, type InputFile, type InputRow } from './input.js';
import { ChangedRows } from './changed.js';
import { canonical, RowIndex } from './identity.js';
import { Journal, type JournalDamage } from './journal.js';
import { Limiter } from './limiter.js';
import { Progress } from './progress.js';
import { reconcilerFor, type Reconciler } from './reconcile.js';
import { Results } from './results.js';
import { Sender, type SenderOptions } from './sender.js';
import { check, type BulkSpec } from './spec.js';
import { summarize } from './summary.js';

export type { BulkSpec, RowProblem } from './spec.js';

/**
 * An input of at most this size is read whole and parsed at once, and pass
 * 2 sends from the rows pass 1 read: a streamed parse is a clear share of a
 * small run's CPU time, per pass (the bulk row of `npm run bench -- --only
 * bulk`, 10,000 rows, run with `node --cpu-prof`, shows it). Rows held in
 * memory cost several times their size in heap, so larger inputs are
 * streamed, twice, and memory stays flat whatever the size of the file
 * (`npm run bench -- --scale`).
 */
const KEEP_ROWS_MAX_BYTES = 512 * 1024;

export interface BulkOptions {
  file: string;
  format?: string;
  /** The input's text encoding (--encoding); UTF-8 when not given. */
  encoding?: string;
  /** What separates a CSV file's columns, as --delimiter gives it (`;`, `tab`); found in its header row when not given. */
  delimiter?: string;
  validateOnly: boolean;
  concurrency: number;
  /** Requests per second at most (0: no limit). */
  rate: number;
  journal?: string;
  /** Send rows an earlier run left unknown without looking them up. */
  resendUnknown: boolean;
  /** Look up rows of unknown outcome (--no-reconcile turns it off). */
  reconcile: boolean;
  /** Send every row again, whatever the journal says (--fresh). */
  fresh: boolean;
  /** Send rows an earlier run sent that changed since without asking (--resend-changed); else they are held back. */
  resendChanged: boolean;
}

/**
 * What a bulk run needs of the command that starts it: its streams, signals,
 * output view and client (src/cli/bulk.ts gives them from the run's context).
 */
export interface BulkHost {
  readonly stdin: NodeJS.ReadableStream;
  /** Where results go (the API key scrubbed out). */
  readonly stdout: OutStream;
  /** The terminal's stderr, where the progress bar is drawn. */
  readonly stderr: OutStream;
  /** stdout is a pipe or a socket, whose reader may go away (`| head -1`). */
  readonly stdoutIsPipe: boolean;
  /** Aborted on Ctrl-C (reason 'stdout-closed' when stdout's reader went away): no new requests. */
  readonly signal?: AbortSignal;
  /** Aborted on a second Ctrl-C: what is in flight is given up at once. */
  readonly stopNow?: AbortSignal;
  /** --dry-run: every row is checked, the first request shown, nothing sent. */
  readonly dryRun: boolean;
  /** The service the rows go to: `sandbox`, or its base URL (the journal keeps it without credentials). */
  target(): string;
  now(): Date;
  /** A message for the user on stderr. */
  note(message: string): void;
  /** Whether a person can be asked a question (stdin and stderr are a terminal). */
  canAsk(): boolean;
  /** Asks a yes/no question (the answer defaults to no); rejects on Ctrl-C. */
  ask(question: string): Promise<boolean>;
  warn(message: string): Promise<void>;
  /** The output view of result rows with these columns; `kinds` says what values of fields such as `status` are (the operation's). */
  view(columns: string[], primary: string, kinds?: OperationSpec['output']['kinds']): Promise<View>;
  /** The client of the run's requests, made on first use (checks and dry runs prepare requests with it too). */
  client(): Promise<SmsLinkClient>;
  /**
   * Told what the run would send (the file's rows, and their segments when
   * the spec counts them) before anything is: the exit code to stop with,
   * nothing sent (a cost above --max-cost, a question answered no), or
   * undefined to go on.
   */
  beforeSend?(plan: { rows: number; segments: number | null }): Promise<number | undefined>;
}

/** The service a journal's rows were sent to: the base URL without credentials, query or trailing slash. */
function targetOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return baseUrl;
  }
}

/** An input that cannot be read to its end: a usage error naming the last row read (nothing was sent). */
function unreadable(input: InputFile, err: unknown, lastRow: number): UsageError {
  const read = err instanceof InputReadError ? err.lastRow : lastRow;
  return new UsageError(`--from-file: cannot read ${input.label} after row ${read}: ${(err as Error).message}`);
}

export async function runBulk(host: BulkHost, spec: BulkSpec, opts: BulkOptions): Promise<number> {
  const input = await openInput(opts.file, opts.format, host.stdin, opts.encoding, opts.delimiter, host.signal);
  try {
    return await runWithInput(host, spec, opts, input);
  } finally {
    input.cleanup();
  }
}

/** Where a run's results go: the writer of its view, and the progress bar it takes off its line first. */
interface Output {
  view: View;
  writer: RowWriter;
  /** The bar, once there is one (a run that sends). */
  bar: { progress?: Progress };
}

/** What pass 1 learnt: how many rows, the rows themselves when the input is small enough to keep, and their segments when counted. */
interface Counted {
  total: number;
  kept?: InputRow[];
  segments: number | null;
}

async function runWithInput(host: BulkHost, spec: BulkSpec, opts: BulkOptions, input: InputFile): Promise<number> {
  // --dry-run sends nothing: it checks every row and shows the first request.
  const validateOnly = opts.validateOnly || host.dryRun;
  const output = await openOutput(host, spec, input, validateOnly);
  // "Now" for rules relative to the present, read when a row has such a value (most have none).
  const rules: CheckContext = {
    get now() {
      return host.now();
    },
  };
  if (validateOnly) return checkRows(host, spec, input, output.writer, rules);
  // The segments of every row, for the estimate a run that sends is shown first (host.beforeSend).
  const counted = await countRows(input, host.beforeSend ? spec.segmentsOf : undefined);
  if (counted.total === 0) {
    await output.writer.end();
    host.note(`${input.label} has no rows; nothing to do.`);
    return EXIT.OK;
  }
  const declined = await host.beforeSend?.({ rows: counted.total, segments: counted.segments });
  if (declined !== undefined) {
    await output.writer.end();
    return declined;
  }
  const client = await host.client();
  // No key or base URL: say so now, before a journal says anything was sent.
  client.assertReady();
  const rows = () => counted.kept ?? readRows(input);
  const index = new RowIndex(counted.total);
  const journal = await openJournal(host, spec, opts, input, index);
  // Read before suspect() deals with it, for the summary.
  const damaged = journal?.damage === undefined ? undefined : { why: journal.damage, missing: journal.missing };
  if (journal && damaged) journal.suspect(await notDone(journal, index, rows(), spec, rules));
  const ctx: SendContext = { client, journal, index, output, total: counted.total, rows, rules, damaged };
  return report(host, spec, opts, ctx, await sendRows(host, spec, opts, ctx));
}

/** Checks the columns, and opens the output of result rows (or of bad rows, when nothing is sent). */
async function openOutput(host: BulkHost, spec: BulkSpec, input: InputFile, validateOnly: boolean): Promise<Output> {
  let columnNames: string[];
  try {
    columnNames = await columnsOf(input);
  } catch (err) {
    // A header read but refused (a column named twice) is said as such, not as a file that cannot be read.
    if (err instanceof UsageError) throw err;
    throw unreadable(input, err, 0);
  }
  spec.checkColumns(columnNames);
  const { RowWriter } = await import('../output/format.js');
  const columns = validateOnly ? ['row', 'column', 'error'] : ['row', 'state', ...spec.resultColumns, 'error'];
  const view = await host.view(columns, validateOnly ? 'row' : spec.primary, spec.op.output.kinds);
  // Results printed to the terminal the bar is on take the bar off its line first (the next redraw puts it back): else each result line would start with a copy of the bar.
  const bar: Output['bar'] = {};
  const sameTerminal = host.stdout.isTTY === true && host.stderr.isTTY === true;
  const out = sameTerminal ? { isTTY: true, columns: host.stdout.columns, write: (s: string) => (bar.progress?.clear(), host.stdout.write(s)) } : host.stdout;
  return { view, writer: new RowWriter(out, view), bar };
}

/**
 * --validate-only and --dry-run: every row is checked and each bad one
 * printed; nothing is sent. Exit 2 when any row is bad.
 */
async function checkRows(host: BulkHost, spec: BulkSpec, input: InputFile, writer: RowWriter, rules: CheckContext): Promise<number> {
  let total = 0;
  let lastRow = 0;
  let invalid = 0;
  let firstValid: Record<string, unknown> | undefined;
  try {
    // Streamed whatever the size: a check reads each row once, and rows held in memory cost several times their size.
    for await (const r of readRows(input)) {
      total += 1;
      lastRow = r.row;
      const checked = check(rules, spec, r.fields, r.error);
      firstValid ??= checked.input;
      if (checked.problems.length) {
        invalid += 1;
        await writer.write(checked.problems.map((p) => ({ row: r.row, column: p.column, error: p.rule })));
      }
    }
  } catch (err) {
    throw unreadable(input, err, lastRow);
  }
  await writer.end();
  host.note(`${count(total, 'row')} checked: ${total - invalid} valid, ${invalid} invalid. Nothing was sent.`);
  if (host.dryRun && firstValid) {
    const req = (await host.client()).prepare(spec.op, firstValid);
    host.note(`dry run: ${count(total - invalid, 'request')} like this one would be sent:\n${req.method} ${req.redactedUrl}\nbody: ${req.body}`);
  }
  return invalid ? EXIT.USAGE : EXIT.OK;
}

/**
 * Pass 1 of a run that sends: every row is read (a file that cannot be read
 * stops the run before anything is sent) and counted, with its segments
 * when `segmentsOf` counts them (the estimate shown first: host.beforeSend).
 * Rows are checked in pass 2, right before each is sent: checking them here
 * as well would do the same work twice.
 */
async function countRows(input: InputFile, segmentsOf: BulkSpec['segmentsOf']): Promise<Counted> {
  let total = 0;
  let lastRow = 0;
  let segments = 0;
  let kept: InputRow[] | undefined;
  try {
    if (input.size <= KEEP_ROWS_MAX_BYTES) kept = await readAllRows(input);
    if (kept && !segmentsOf) return { total: kept.length, kept, segments: null };
    for await (const r of kept ?? readRows(input)) {
      total += 1;
      lastRow = r.row;
      if (segmentsOf) segments += segmentsOf(r.fields);
    }
  } catch (err) {
    throw unreadable(input, err, lastRow);
  }
  return { total, kept, segments: segmentsOf ? segments : null };
}

/** The run's journal (none for stdin without --journal), started over with --fresh. */
async function openJournal(host: BulkHost, spec: BulkSpec, opts: BulkOptions, input: InputFile, index: RowIndex): Promise<Journal | undefined> {
  const journalPath = opts.journal ?? (input.fromStdin ? undefined : `${input.named}.journal`);
  if (!journalPath) {
    await host.warn('reading stdin without --journal: this run cannot be resumed; pass --journal FILE to make it resumable');
    return undefined;
  }
  const { redact } = await import('../secrets.js');
  const journal = await Journal.open(
    journalPath,
    { command: spec.command, input: input.label, target: targetOf(host.target()) },
    { inputPath: input.named, scrub: redact, index },
  );
  if (opts.fresh) {
    const done = journal.counts().done;
    await host.warn(
      done
        ? `--fresh: every row is sent again, the ${count(done, 'row')} the journal records as done included: what they made before will exist twice`
        : '--fresh: every row is sent, whatever the journal says (it records none as done)',
    );
    journal.fresh();
  }
  return journal;
}

/** What pass 2 needs beyond the command and its flags. */
interface SendContext {
  client: SmsLinkClient;
  journal: Journal | undefined;
  index: RowIndex;
  output: Output;
  total: number;
  /** The input's rows, read again at each call. */
  rows: () => AsyncIterable<InputRow> | Iterable<InputRow>;
  rules: CheckContext;
  damaged: JournalDamage | undefined;
}

/** How pass 2 went, for the summary. */
interface Sent {
  sender: Sender;
  results: Results;
  earlier: { found: number; absent: number };
  /** Why the changed rows were sent again, if they were. */
  resendWhy: 'flag' | 'answer';
  inFlightAtStop: number;
}

/** The parts of pass 2, made for one run. */
interface Machinery {
  reconciler: Reconciler;
  limiter: Limiter;
  results: Results;
  sender: Sender;
  /** What the sender is told; changed rows are learnt after it is made. */
  sending: SenderOptions;
  progress: Progress;
  /** A message on stderr, the bar taken off its line first. */
  say: (message: string) => void;
}

/**
 * Pass 2: rows an earlier run left unknown are looked up, rows it sent that
 * changed since are held back (unless --resend-changed, or a yes at a
 * terminal), then every row to send is sent, with progress on stderr.
 */
async function sendRows(host: BulkHost, spec: BulkSpec, opts: BulkOptions, ctx: SendContext): Promise<Sent> {
  const m = assemble(host, spec, opts, ctx);
  const { journal } = ctx;
  const { sender, progress } = m;
  const signal = host.signal;
  const stops = listenForStops(host, m);
  const earlier = { found: 0, absent: 0 };
  let resendWhy: Sent['resendWhy'] = 'flag';
  progress.start();
  try {
    if (journal && opts.reconcile && !opts.resendUnknown) Object.assign(earlier, await settleEarlier(journal, m, ctx.damaged));
    if (journal && !opts.fresh && sentBefore(journal)) resendWhy = await findChanged(host, spec, opts, ctx, m);
    await sender.sendAll(ctx.rows(), ctx.rules);
    if (!signal?.aborted && !sender.stopped && !sender.halt && opts.reconcile) await sender.settleLost();
    else sender.giveUpLost();
  } finally {
    stops.detach();
    progress.stop();
    await m.results.finish();
    journal?.close();
    await ctx.output.writer.end();
  }
  return { sender, results: m.results, earlier, resendWhy, inFlightAtStop: stops.inFlightAtStop() };
}

/** Makes the parts of pass 2: the limiter, the results' way out, the sender, the bar. */
function assemble(host: BulkHost, spec: BulkSpec, opts: BulkOptions, ctx: SendContext): Machinery {
  const { client, journal, output } = ctx;
  const reconciler = reconcilerFor(spec.command, client);
  const limiter = new Limiter(opts.concurrency, opts.rate, host.signal);
  const quiet = output.view.quiet === true;
  const results = new Results(output.writer, journal, {
    ordered: quiet || output.view.format === 'table',
    // -q and table wait for the oldest row still out; this many rows may finish meanwhile.
    window: Math.max(1000, opts.concurrency * 50),
    quiet,
    note: (message) => host.note(message),
    pipe: host.stdoutIsPipe,
  });
  const sending: SenderOptions = { resendUnknown: opts.resendUnknown, reconcile: opts.reconcile, unsettled: new Map(), resendChanged: opts.resendChanged };
  const sender = new Sender(ctx.index, spec, client, journal, results, reconciler, limiter, host.signal, sending);
  const progress = new Progress(host.stderr, host.stderr.isTTY === true, ctx.total, () => sender.counts);
  output.bar.progress = progress;
  const say = (message: string) => {
    progress.clear();
    host.note(message);
  };
  return { reconciler, limiter, results, sender, sending, progress, say };
}

/** Ctrl-C says what it waits for; a second one stops at once (the rows in flight are unknown then). */
function listenForStops(host: BulkHost, m: Machinery): { detach(): void; inFlightAtStop(): number } {
  const signal = host.signal;
  const onInterrupt = () => {
    // A closed output gets the one line of the summary, nothing more (a script's log stays short).
    if (signal?.reason === 'stdout-closed') return;
    // Requests still waiting for their answer (a slot is also held while its result is printed).
    const n = m.sender.counts.inFlight;
    m.say(n ? `stopping: waiting for ${count(n, 'request')} in flight (Ctrl-C again to stop now)` : 'stopping');
  };
  let inFlightAtStop = 0;
  const onStop = () => {
    inFlightAtStop = m.sender.stop();
  };
  signal?.addEventListener('abort', onInterrupt);
  host.stopNow?.addEventListener('abort', onStop);
  return {
    detach() {
      signal?.removeEventListener('abort', onInterrupt);
      host.stopNow?.removeEventListener('abort', onStop);
    },
    inFlightAtStop: () => inFlightAtStop,
  };
}

/** Whether an earlier run sent any row, or may have: only then can a row have changed since. */
function sentBefore(journal: Journal): boolean {
  const c = journal.counts();
  return c.done + c.sending + c.unknown > 0;
}

/**
 * Finds the rows an earlier run sent that changed since, and tells the
 * sender to hold them back, unless --resend-changed says to send them, or
 * a person at a terminal does when asked. Returns which of the two did.
 */
async function findChanged(host: BulkHost, spec: BulkSpec, opts: BulkOptions, ctx: SendContext, m: Machinery): Promise<Sent['resendWhy']> {
  const changed = await ChangedRows.find(ctx.journal!, ctx.index, ctx.rows(), spec, ctx.rules);
  m.sending.changed = changed;
  if (!changed || opts.resendChanged || !host.canAsk()) return 'flag';
  m.progress.stop();
  try {
    m.sending.resendChanged = await askResend(host, changed, ctx, spec);
  } finally {
    m.progress.start();
  }
  return 'answer';
}

/**
 * Asks, at a terminal, whether to send again the rows an earlier run sent
 * that changed since (a Ctrl-C at the question is a no, and the run stops).
 */
async function askResend(host: BulkHost, changed: ChangedRows, ctx: SendContext, spec: BulkSpec): Promise<boolean> {
  const preview = await changed.preview(ctx.index, ctx.rows(), spec, ctx.rules);
  let yes: boolean;
  try {
    yes = await host.ask(changed.question(preview, (key) => spec.columnOf(key)));
  } catch (err) {
    if (host.signal?.aborted) return false;
    throw err;
  }
  if (!yes) host.note(`Holding ${changed.count === 1 ? 'it' : 'them'} back; the other rows are sent.`);
  return yes;
}

/** The summary on stderr, and the run's exit code. */
function report(host: BulkHost, spec: BulkSpec, opts: BulkOptions, ctx: SendContext, sent: Sent): number {
  const { sender, results } = sent;
  const signal = host.signal;
  const counts = sender.counts;
  const halt = sender.halt;
  const ended = sender.stopped ? 'stopped' : signal?.aborted ? (signal.reason === 'stdout-closed' ? 'stdout-closed' : 'interrupted') : 'none';
  const stop = halt ? (halt instanceof ApiError ? 'refused' : 'unreachable') : ended;
  for (const line of summarize({
    command: spec.command,
    total: ctx.total,
    journal: ctx.journal?.path,
    counts,
    earlier: sent.earlier,
    notSentBefore: sender.notSentBefore,
    changed: { resent: sender.resent, why: sent.resendWhy, heldRows: sender.heldRows },
    damaged: ctx.damaged,
    unknownRows: results.unknownRows,
    reconcile: opts.reconcile,
    stop,
    inFlightAtStop: sent.inFlightAtStop,
  }))
    host.note(line);
  // The single command's error and exit code (4 for the key, 3 for the network), after the summary.
  if (halt) throw halt;
  if (stop === 'stdout-closed') return EXIT.OUTPUT_CLOSED;
  if (stop !== 'none') return EXIT.INTERRUPTED;
  return counts.failed || counts.invalid || counts.unknown || counts.held ? EXIT.PARTIAL : EXIT.OK;
}

/**
 * The valid rows of the input that a damaged journal does not show as done,
 * keyed as pass 2 keys them: what the damage may have lost.
 */
async function notDone(
  journal: Journal,
  index: RowIndex,
  rows: AsyncIterable<InputRow> | Iterable<InputRow>,
  spec: BulkSpec,
  rules: CheckContext,
): Promise<Array<{ key: string; row: number; input: Record<string, unknown> }>> {
  const out = [];
  for await (const r of rows) {
    const { input } = check(rules, spec, r.fields, r.error);
    if (!input) continue;
    const key = index.key(canonical(input));
    if (journal.state(key) !== 'done') out.push({ key, row: r.row, input });
  }
  index.restartCounts();
  return out;
}

/**
 * Before a rerun sends anything, the rows an earlier run left with no answer
 * are looked up: found ones are done (the journal says so, and pass 2 skips
 * them), absent ones are sent as failed rows are, and those the lookup could
 * not settle stay unknown (`unsettled` says why).
 */
async function settleEarlier(journal: Journal, m: Machinery, damaged: JournalDamage | undefined): Promise<{ found: number; absent: number }> {
  const { reconciler, limiter, say } = m;
  const unsettled = m.sending.unsettled;
  const rows = journal.unknownRows();
  const tally = { found: 0, absent: 0 };
  if (rows.length === 0) return tally;
  const which = rows.length === 1 ? 'the row' : `the ${rows.length} rows`;
  say(
    damaged?.missing
      ? `the journal is missing (${damaged.why}): looking up ${which} before sending anything...`
      : damaged
      ? `the journal is damaged (${damaged.why}): looking up ${which} it does not show as done before sending anything...`
      : `looking up ${which} an earlier run sent without learning the outcome...`,
  );
  const settled = await reconciler.settle(rows, await journal.claimedIds(reconciler.idField), (request) => limiter.run(request));
  for (const row of rows) {
    const s = settled.get(row.key);
    if (s?.kind === 'found') {
      tally.found += 1;
      journal.record(row.row, row.key, 'done', { result: s.result, found: true });
    } else if (s?.kind === 'absent') {
      tally.absent += 1;
      journal.record(row.row, row.key, 'failed', { error: `no answer came, and a lookup found no such ${reconciler.what}: it was not made` });
    } else unsettled.set(row.key, s?.error ?? 'not looked up');
  }
  journal.flushOutcomes();
  return tally;
}
