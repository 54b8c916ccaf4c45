// Where each row's outcome goes once it is known: printed, then journaled
// (docs/bulk.md, "Journals"). A row is journaled done only once its result
// was printed: a rerun never skips a row whose result nobody saw.

import type { RowWriter } from '../output/format.js';
import type { Journal, RowState } from './journal.js';

/** How long the first line written to a pipe is left alone (see flush()). */
const PIPE_SETTLE_MS = 100;

export interface Outcome {
  row: number;
  /** The row's journal key; none for a row that could not be read or checked. */
  key?: string;
  /** `held`: an earlier run sent the row with other values (it is not sent, nor journaled). */
  state: Exclude<RowState, 'sending'> | 'held';
  /** The operation's data (done). */
  result?: Record<string, unknown>;
  error?: string;
  /** Done according to a lookup, after the answer was lost. */
  found?: boolean;
}

/**
 * ndjson, csv, tsv and json print rows as they finish (each carries its row
 * number); -q and the table print them in input order, through a reorder
 * buffer that holds at most `window` rows: the run starts no row further
 * ahead of the oldest one still out (full()).
 *
 * Rows finishing in one turn of the event loop are printed in one write at
 * the end of that turn (setImmediate): soon enough that a closed output pipe
 * is noticed on the first result written after it closed, and the run's
 * slot of a row is reused only once its result is written (put() resolves
 * then).
 */
export class Results {
  /** Rows whose outcome is unknown in the end, for the summary. */
  readonly unknownRows: number[] = [];
  /** Outcomes to print at the end of this turn. */
  #batch: Outcome[] = [];
  #flushed: Promise<void> | undefined;
  /** Ordered output: the next place to give out and the next to print; outcomes waiting for those before them. */
  #issued = 0;
  #next = 0;
  readonly #held = new Map<number, Outcome | null>();
  /** Output to a pipe, nothing written yet. */
  #pipeFirst: boolean;

  constructor(
    private readonly writer: RowWriter,
    private readonly journal: Journal | undefined,
    private readonly opts: {
      /** In input order (-q, table), holding at most `window` rows; otherwise as they finish. */
      ordered: boolean;
      window: number;
      /** -q: a row without a result is said on stderr, where it is not lost. */
      quiet: boolean;
      note: (message: string) => void;
      /** The output is a pipe, whose reader may go away. */
      pipe?: boolean;
    },
  ) {
    this.#pipeFirst = opts.pipe === true;
  }

  /** A place in the output for a row about to be sent or reported, in input order (undefined when the order does not matter). */
  place(): number | undefined {
    return this.opts.ordered ? this.#issued++ : undefined;
  }

  /** True when the reorder buffer is full: no further row may start before the oldest one still out is done. */
  get full(): boolean {
    return this.opts.ordered && this.#issued - this.#next >= this.opts.window;
  }

  /** The place the ordered output waits for. */
  get head(): number {
    return this.#next;
  }

  /**
   * A row's outcome, for the place place() gave it (if any). Resolves once
   * it is written, or held for the rows before it; `null` gives up a place
   * that prints nothing (a row stopped before it was sent).
   */
  put(place: number | undefined, outcome: Outcome | null): Promise<void> {
    if (outcome?.state === 'unknown') this.unknownRows.push(outcome.row);
    if (this.opts.quiet && outcome && outcome.state !== 'done') this.opts.note(`row ${outcome.row}: ${outcome.state}: ${outcome.error}`);
    if (place === undefined) {
      if (outcome) this.#batch.push(outcome);
    } else {
      this.#held.set(place, outcome);
      while (this.#held.has(this.#next)) {
        const next = this.#held.get(this.#next);
        this.#held.delete(this.#next++);
        if (next) this.#batch.push(next);
      }
    }
    if (this.#batch.length === 0) return Promise.resolve();
    this.#flushed ??= new Promise<void>((resolve) => setImmediate(() => this.flush().then(resolve, resolve)));
    return this.#flushed;
  }

  /** The `field` of the results not journaled yet: ids a lookup must not take for a lost row. */
  pendingIds(field: string): string[] {
    return [...this.#batch, ...this.#held.values()].flatMap((o) => (o?.result?.[field] !== undefined ? [String(o.result[field])] : []));
  }

  /** Prints what is ready, then journals it. */
  async flush(): Promise<void> {
    if (this.#pipeFirst && this.#batch.length) {
      // A reader such as `head -1` goes away after the first line, and only a write after that tells:
      // the first line goes out alone, and nothing else is written (or started: the slots wait) for a
      // moment, so that the next write finds the pipe closed before more requests leave.
      this.#pipeFirst = false;
      await this.#write([this.#batch.shift()!]);
      await new Promise((resolve) => setTimeout(resolve, PIPE_SETTLE_MS));
    }
    const rows = this.#batch;
    this.#batch = [];
    this.#flushed = undefined;
    await this.#write(rows);
  }

  async #write(rows: Outcome[]): Promise<void> {
    if (rows.length) await this.writer.write(rows.map(toOutput));
    const journal = this.journal;
    if (!journal) return;
    for (const o of rows) {
      if (o.state !== 'held') journal.record(o.row, o.key, o.state, o.result ? { result: o.result, ...(o.found ? { found: true } : {}) } : { error: o.error });
    }
    journal.flushOutcomes();
  }

  /** Prints everything still held, in order, whatever is missing before it (the run is over), then flushes. */
  async finish(): Promise<void> {
    // No request starts any more: nothing for a pause after the first line to hold back.
    this.#pipeFirst = false;
    for (const place of [...this.#held.keys()].sort((a, b) => a - b)) {
      const outcome = this.#held.get(place);
      if (outcome) this.#batch.push(outcome);
    }
    this.#held.clear();
    await this.flush();
  }
}

function toOutput(o: Outcome): Record<string, unknown> {
  return o.result ? { row: o.row, state: o.state, ...o.result } : { row: o.row, state: o.state, error: o.error };
}
