// The bulk engine shared by `link create --from-file` and `message send
// --from-file`: validate every row with the catalog's rules, then send the
// good ones with bounded concurrency and rate, journaling each outcome and
// streaming results as rows finish. Ctrl-C stops new requests, lets those in
// flight finish and leaves a journal the rerun picks up.

import type { CheckContext } from '../catalog/rules.js';
import { validateInput, type Issue } from '../catalog/validate.js';
import type { OperationSpec } from '../catalog/types.js';
import type { SmsLinkClient } from '../client/client.js';
import { ApiError, SmsLinkError, TransportError } from '../client/errors.js';
import type { RunContext } from '../cli/context.js';
import { EXIT, UsageError } from '../cli/exit.js';
import type { RowWriter } from '../output/format.js';
import { columnsOf, digest, hashInput, InputReadError, openInput, readAllRows, readRows, type InputFile, type InputRow } from './input.js';
import { Journal, type RowState } from './journal.js';
import { Limiter } from './limiter.js';
import { Progress } from './progress.js';

const OUTPUT_BATCH = 256;
/**
 * An input of at most this size is read whole and parsed at once, and pass
 * 2 sends from the rows pass 1 read (a streamed parse costs about a tenth of
 * a bulk run's CPU time per pass; a parse of the whole buffer a third of
 * that), and the journal hashes the bytes read rather than reading the file
 * again. Larger inputs are streamed, twice, so memory stays flat whatever
 * the size of the file.
 */
const KEEP_ROWS_MAX_BYTES = 4 * 1024 * 1024;
const OUTPUT_FLUSH_MS = 50;

export interface RowProblem {
  column: string;
  rule: string;
}

export interface BulkSpec {
  /** `link create` or `message send`: also the journal's command identity. */
  command: string;
  op: OperationSpec;
  /** Checks the columns before anything is read further (e.g. template placeholders). */
  checkColumns(columns: string[]): void;
  /** Turns a row into the operation's input, or says what is wrong with it. */
  toInput(fields: Record<string, unknown>): { input: Record<string, unknown>; problems: RowProblem[] };
  /** Which column feeds each parameter key, to name it in messages. */
  columnOf(key: string): string;
  /** Result fields shown per row (from the operation's data). */
  resultColumns: readonly string[];
  primary: string;
  /** What shapes every row's request besides its cells (flag values, a --text template): part of the journal's identity. */
  shape: Record<string, unknown>;
}

export interface BulkOptions {
  file: string;
  format?: string;
  validateOnly: boolean;
  concurrency: number;
  /** Requests per second at most (0: no limit). */
  rate: number;
  journal?: string;
  resendUnknown: boolean;
}

interface Checked {
  input?: Record<string, unknown>;
  problems: RowProblem[];
}

function check(rules: CheckContext, spec: BulkSpec, fields: Record<string, unknown>, readError?: string): Checked {
  if (readError) return { problems: [{ column: '(row)', rule: readError }] };
  const { input, problems } = spec.toInput(fields);
  if (problems.length) return { problems };
  const { values, issues } = validateInput(spec.op, input, rules);
  if (issues.length) return { problems: issues.map((i: Issue) => ({ column: spec.columnOf(i.key), rule: i.rule })) };
  return { input: values, problems: [] };
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

const describeProblems = (problems: RowProblem[]) => problems.map((p) => `column ${p.column}: ${p.rule}`).join('; ');

export async function runBulk(ctx: RunContext, spec: BulkSpec, opts: BulkOptions): Promise<number> {
  const input = await openInput(opts.file, opts.format, ctx.io.stdin);
  try {
    return await run(ctx, spec, opts, input);
  } finally {
    input.cleanup();
  }
}

async function run(ctx: RunContext, spec: BulkSpec, opts: BulkOptions, input: InputFile): Promise<number> {
  spec.checkColumns(await columnsOf(input));
  // --dry-run sends nothing: it checks every row and shows the first request.
  const validateOnly = opts.validateOnly || ctx.globals.dryRun === true;
  const { RowWriter } = await import('../output/format.js');
  const columns = validateOnly ? ['row', 'column', 'error'] : ['row', 'state', ...spec.resultColumns, 'error'];
  const view = await ctx.view({ output: { rows: 'array', columns, primary: validateOnly ? 'row' : spec.primary } });
  const writer = new RowWriter(ctx.stdout, view);
  // "Now" for rules relative to the present, read when a row has such a value (most have none).
  const rules: CheckContext = {
    get now() {
      return ctx.now();
    },
  };

  // Pass 1: every row is read (a file that cannot be read stops the run before anything is sent) and counted.
  // Only --validate-only and --dry-run check rows here: a run that sends checks each row in pass 2, right
  // before sending it, and checking it here as well would do the same work twice for nothing.
  let total = 0;
  let invalid = 0;
  let firstValid: Record<string, unknown> | undefined;
  let kept: { rows: InputRow[]; bytes: Buffer } | undefined;
  try {
    if (input.size <= KEEP_ROWS_MAX_BYTES) kept = await readAllRows(input);
    if (kept && !validateOnly) total = kept.rows.length;
    else {
      for await (const r of kept?.rows ?? readRows(input)) {
        total += 1;
        if (!validateOnly) continue;
        const checked = check(rules, spec, r.fields, r.error);
        firstValid ??= checked.input;
        if (checked.problems.length) {
          invalid += 1;
          await writer.write(checked.problems.map((p) => ({ row: r.row, column: p.column, error: p.rule })));
        }
      }
    }
  } catch (err) {
    const read = err instanceof InputReadError ? err.rowsRead : total;
    throw new UsageError(`--from-file: cannot read ${input.label} after row ${read}: ${(err as Error).message}`);
  }
  if (validateOnly) {
    await writer.end();
    ctx.note(`${total} rows checked: ${total - invalid} valid, ${invalid} invalid. Nothing was sent.`);
    if (ctx.globals.dryRun && firstValid) {
      const req = (await ctx.client()).prepare(spec.op, firstValid);
      ctx.note(`dry run: ${total - invalid} requests like this one would be sent:\n${req.method} ${req.redactedUrl}\nbody: ${req.body}`);
    }
    return invalid ? EXIT.USAGE : EXIT.OK;
  }
  if (total === 0) {
    await writer.end();
    ctx.note(`${input.label} has no rows; nothing to do.`);
    return EXIT.OK;
  }

  // Thousands of requests: undici's start-up pays for itself in CPU per request (transport.ts).
  const client = await ctx.client({ interruptible: false, httpClient: 'undici' });
  // No key or base URL: say so now, before a journal says anything was sent.
  client.assertReady();

  const journalPath = opts.journal ?? (input.fromStdin ? undefined : `${input.path}.journal`);
  if (!journalPath) await ctx.warn('reading stdin without --journal: this run cannot be resumed; pass --journal FILE to make it resumable');
  const { redact } = await import('../secrets.js');
  const journal = journalPath
    ? await Journal.open(
        journalPath,
        {
          command: spec.command,
          inputHash: await hashInput(input.path, kept?.bytes),
          input: input.label,
          target: ctx.sandbox ? 'sandbox' : targetOf(String(ctx.settings().baseUrl.value ?? '')),
          shape: digest(JSON.stringify(spec.shape)),
        },
        { inputPath: input.path, scrub: redact },
      )
    : undefined;

  const alreadyDone = journal ? countDone(journal, total) : 0;
  const sender = new Sender(ctx, spec, client, journal, writer, view.quiet === true, new Progress(ctx.io.stderr, ctx.io.stderr.isTTY === true, total - alreadyDone));
  const limiter = new Limiter(opts.concurrency, opts.rate, ctx.io.signal);
  let interrupted: boolean;
  try {
    interrupted = await sender.sendAll(kept?.rows ?? readRows(input), rules, limiter, opts.resendUnknown);
  } finally {
    await sender.finish();
  }
  const { counts, heldBack } = sender;

  const parts = [
    `${counts.done} done`,
    counts.failed ? `${counts.failed} failed` : '',
    counts.invalid ? `${counts.invalid} invalid` : '',
    counts.unknown ? `${counts.unknown} unknown` : '',
    counts.skipped ? `${counts.skipped} already done` : '',
  ].filter(Boolean);
  ctx.note(`${spec.command}: ${parts.join(', ')} of ${total} rows${journal ? ` (journal: ${journal.path})` : ''}.`);
  if (heldBack.length) {
    ctx.note(
      `Rows ${heldBack.slice(0, 20).join(', ')}${heldBack.length > 20 ? ', ...' : ''} may have reached the service in an earlier run and were not sent again. ` +
        `Check them (${spec.command === 'message send' ? '`smslink message list --to <number>`' : '`smslink link list --sort createTs:desc`, looking for their fullLink'}), ` +
        'then rerun with --resend-unknown to send them.',
    );
  }
  if (interrupted) {
    ctx.note('Interrupted: no new requests were started; rerun the same command to continue.');
    return EXIT.INTERRUPTED;
  }
  return counts.failed || counts.invalid || counts.unknown ? EXIT.PARTIAL : EXIT.OK;
}

/**
 * Pass 2 of a run that sends: what happens to each row, from its check to
 * its result printed and journaled. A class of its own, apart from run(),
 * because V8 optimizes what runs for every row: small methods compile
 * quickly, where the whole of run() took ~50 ms of optimizing, twice, on a
 * 2-core machine whose other core serves the requests.
 */
class Sender {
  readonly counts: Record<RowState | 'skipped', number> = { sending: 0, done: 0, failed: 0, unknown: 0, invalid: 0, skipped: 0 };
  /** Rows whose outcome an earlier run left unknown, not resent. */
  readonly heldBack: number[] = [];
  /** Results not printed yet: they go out in batches (at most OUTPUT_BATCH rows or OUTPUT_FLUSH_MS old); one write per row costs more than the request. */
  #batch: Array<Record<string, unknown>> = [];
  #batchTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly spec: BulkSpec,
    private readonly client: SmsLinkClient,
    private readonly journal: Journal | undefined,
    private readonly writer: RowWriter,
    private readonly quiet: boolean,
    private readonly progress: Progress,
  ) {}

  /**
   * Checks each row and sends it, at most as many at once as the limiter
   * allows; a row done before, invalid or held back gets its outcome noted
   * instead. True when Ctrl-C stopped it before the last row.
   */
  async sendAll(rows: AsyncIterable<InputRow> | Iterable<InputRow>, rules: CheckContext, limiter: Limiter, resendUnknown: boolean): Promise<boolean> {
    const signal = this.ctx.io.signal;
    const journal = this.journal;
    const counts = this.counts;
    for await (const r of rows) {
      if (signal?.aborted) break;
      const previous = journal?.state(r.row);
      if (previous === 'done') {
        counts.skipped += 1;
        continue;
      }
      const checked = check(rules, this.spec, r.fields, r.error);
      if (!checked.input) {
        counts.invalid += 1;
        journal?.record(r.row, 'invalid', { error: describeProblems(checked.problems) });
        await this.#emit({ row: r.row, state: 'invalid', error: describeProblems(checked.problems) });
        continue;
      }
      if ((previous === 'unknown' || previous === 'sending') && !resendUnknown) {
        this.heldBack.push(r.row);
        counts.unknown += 1;
        await this.#emit({ row: r.row, state: 'unknown', error: 'outcome unknown from an earlier run; not resent (see --resend-unknown)' });
        continue;
      }
      await limiter.ready();
      // Ctrl-C: the rows not started yet are not started.
      if (signal?.aborted) break;
      const row = r.row;
      const input = checked.input;
      limiter.start(() => this.send(row, input).catch((err: unknown) => this.ctx.note(`row ${row}: ${(err as Error).message}`)));
    }
    // Those in flight finish, even after Ctrl-C.
    await limiter.idle();
    return signal?.aborted === true;
  }

  /** Sends one row that sendAll() checked, journals its outcome and prints its result. */
  async send(row: number, input: Record<string, unknown>): Promise<void> {
    let state: RowState;
    let out: Record<string, unknown>;
    let sent = false;
    try {
      // The row passed check() a moment ago: build its request without checking it again.
      const req = this.client.prepareChecked(this.spec.op, input);
      await this.journal?.sending(row);
      sent = true;
      const result = (await this.client.perform(this.spec.op, req)) as Record<string, unknown>;
      state = 'done';
      out = { row, state, ...result };
      this.journal?.record(row, 'done', { result });
    } catch (err) {
      const unknown = (err instanceof TransportError || err instanceof ApiError) && err.outcomeUnknown;
      // Anything unexpected after the request left counts as unknown: never resend blindly.
      state = unknown || (sent && !(err instanceof SmsLinkError)) ? 'unknown' : 'failed';
      const error = (err as Error).message;
      out = { row, state, error };
      this.journal?.record(row, state, { error });
    }
    const counts = this.counts;
    counts[state] += 1;
    await this.#emit(out);
    this.progress.update({ done: counts.done + counts.failed + counts.unknown, failed: counts.failed, unknown: counts.unknown });
  }

  async #emit(row: Record<string, unknown>): Promise<void> {
    // -q prints only results; errors go to stderr so they are not lost.
    if (this.quiet && row.state !== 'done') this.ctx.note(`row ${row.row}: ${row.state}: ${row.error}`);
    this.#batch.push(row);
    if (this.#batch.length >= OUTPUT_BATCH) await this.#flush();
    else this.#batchTimer ??= setTimeout(() => void this.#flush(), OUTPUT_FLUSH_MS);
  }

  /** A row's result is printed before its outcome is journaled: a rerun never skips a row whose result nobody saw. */
  async #flush(): Promise<void> {
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    const rows = this.#batch;
    this.#batch = [];
    if (rows.length) await this.writer.write(rows);
    this.journal?.flushOutcomes();
  }

  /** Prints and journals what is left, then closes the journal and the output. */
  async finish(): Promise<void> {
    this.progress.stop();
    await this.#flush();
    this.journal?.close();
    await this.writer.end();
  }
}

function countDone(journal: Journal, total: number): number {
  let done = 0;
  for (let row = 1; row <= total; row++) if (journal.state(row) === 'done') done += 1;
  return done;
}
