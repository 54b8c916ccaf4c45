// Pass 2 of a bulk run that sends: what happens to each row, from its check
// to its outcome printed and journaled (docs/bulk.md).

import type { CheckContext } from '../catalog/rules.js';
import type { SmsLinkClient } from '../client/client.js';
import { ApiError, SmsLinkError, TransportError } from '../client/errors.js';
import type { ChangedRows } from './changed.js';
import type { InputRow } from './input.js';
import { canonical, DigestSet, wasSent, type RowIndex } from './identity.js';
import type { Journal, UnknownRow } from './journal.js';
import type { Limiter } from './limiter.js';
import type { Counts } from './progress.js';
import type { Reconciler } from './reconcile.js';
import type { Outcome, Results } from './results.js';
import { check, describeProblems, type BulkSpec } from './spec.js';

/** A row whose request is under way: its place in the output, and whether it left. */
interface Flight {
  row: number;
  key: string;
  place: number | undefined;
  sent: boolean;
}

/** A row of this run whose answer was lost, waiting for the lookup. */
interface Lost extends UnknownRow {
  place: number | undefined;
  error: string;
}

export interface SenderOptions {
  /** Send rows an earlier run left unknown without looking them up. */
  resendUnknown: boolean;
  /** Look up rows of unknown outcome (off with --no-reconcile). */
  reconcile: boolean;
  /** Why each row an earlier run left unknown is still unknown (its lookup failed), by key. */
  unsettled: Map<string, string>;
  /** Rows an earlier run sent that changed since (changed.ts), if any. */
  changed?: ChangedRows;
  /** Send the changed rows again (--resend-changed, or a yes at the terminal); else they are held back. */
  resendChanged: boolean;
}

/** Held rows named in the summary; the rest are counted. */
const HELD_NAMED = 20;

/**
 * An error that every further row would meet too, so the run stops rather
 * than try them all (as gh and stripe do): the key or account refused, or the
 * service out of reach (refused, no such host, TLS) with no row done while
 * this one was tried. Either way nothing was made, and the rerun sends the row.
 */
function failsEveryRow(err: unknown, noneDoneSince: boolean): boolean {
  if (err instanceof ApiError) return err.isAuth && !err.outcomeUnknown;
  return err instanceof TransportError && err.kind === 'connection' && !err.outcomeUnknown && noneDoneSince;
}

/**
 * A class of its own, apart from the run, because V8 optimizes what runs for
 * every row: small methods compile quickly, where one large function was
 * optimized twice, at a length that showed in `npm run bench -- --only bulk`
 * on a 2-core machine whose other core serves the requests
 * (`node --trace-opt` on the run shows it).
 */
export class Sender {
  readonly counts: Counts & { found: number } = { skipped: 0, done: 0, failed: 0, unknown: 0, invalid: 0, held: 0, inFlight: 0, found: 0 };
  /** Rows sent that no earlier run had sent or tried (on a rerun). */
  notSentBefore = 0;
  /** Rows an earlier run sent, changed since, and sent again. */
  resent = 0;
  /** The first rows held back (changed since an earlier run sent them). */
  readonly heldRows: number[] = [];
  /** This run's rows whose answer was lost. */
  readonly #lost: Lost[] = [];
  /**
   * Rows in flight, for a stop at once, each in a slot that the next row
   * reuses: a Map, set and deleted for every row, remakes its table as it
   * fills and empties, and those tables outlive young collections.
   */
  readonly #inFlight: Array<Flight | undefined> = [];
  readonly #freeSlots: number[] = [];
  /** Ids made by this run, when there is no journal to read them from. */
  readonly #ids: DigestSet | undefined;
  /** The second Ctrl-C came: nothing more is waited for, printed or journaled for the rows in flight. */
  #stopped = false;
  /** The error that stopped the run because every row would fail with it (see failsEveryRow). */
  #halt: SmsLinkError | undefined;
  #onStop: (() => void) | undefined;
  readonly #stop = new Promise<void>((resolve) => (this.#onStop = resolve));

  constructor(
    private readonly keys: RowIndex,
    private readonly spec: BulkSpec,
    private readonly client: SmsLinkClient,
    private readonly journal: Journal | undefined,
    private readonly results: Results,
    private readonly reconciler: Reconciler,
    private readonly limiter: Limiter,
    private readonly signal: AbortSignal | undefined,
    private readonly opts: SenderOptions,
  ) {
    this.#ids = journal ? undefined : new DigestSet();
  }

  /**
   * Checks each row and sends it, at most as many at once as the limiter
   * allows; a row done before, invalid or held back gets its outcome noted
   * instead. Ends when every row is done, or on Ctrl-C once those in flight
   * are (at once on a stop()).
   */
  async sendAll(rows: AsyncIterable<InputRow> | Iterable<InputRow>, rules: CheckContext): Promise<void> {
    const { signal, journal, counts, limiter, results } = this;
    const before = journal?.counts();
    const rerun = before !== undefined && before.done + before.failed + before.unknown + before.sending > 0;
    for await (const r of rows) {
      if (signal?.aborted || this.#halt) break;
      const checked = check(rules, this.spec, r.fields, r.error);
      if (!checked.input) {
        counts.invalid += 1;
        void results.put(results.place(), { row: r.row, state: 'invalid', error: describeProblems(checked.problems) });
        continue;
      }
      const values = canonical(checked.input);
      const key = this.keys.key(values);
      const previous = journal?.state(key);
      if (previous === 'done') {
        counts.skipped += 1;
        continue;
      }
      if ((previous === 'unknown' || previous === 'sending') && !this.opts.resendUnknown) {
        counts.unknown += 1;
        void results.put(results.place(), { row: r.row, key, state: 'unknown', error: this.#whyHeldBack(key) });
        continue;
      }
      const changed = !wasSent(previous) && this.opts.changed?.holds(checked.input) === true;
      if (changed && !this.opts.resendChanged) {
        this.#hold(r.row, key);
        continue;
      }
      // -q and table print in input order: no row starts further ahead of the oldest one still out than the buffer holds.
      while (results.full && !signal?.aborted && !this.#halt) {
        if (this.#lost.some((l) => l.place === results.head)) await this.settleLost();
        else await limiter.ended();
      }
      await limiter.ready();
      // Ctrl-C, or a failure every row would meet: the rows not started yet are not started.
      if (signal?.aborted || this.#halt) break;
      if (changed) this.resent += 1;
      else if (rerun && previous === undefined) this.notSentBefore += 1;
      const row = r.row;
      const input = checked.input;
      const place = results.place();
      limiter.start(() => this.send(row, key, input, values, place));
    }
    // Those in flight finish, even after Ctrl-C; a stop() ends the wait at once.
    await Promise.race([limiter.idle(), this.#stop]);
  }

  /** A row an earlier run sent with other values: not sent again unasked. */
  #hold(row: number, key: string): void {
    this.counts.held = (this.counts.held ?? 0) + 1;
    if (this.heldRows.length < HELD_NAMED) this.heldRows.push(row);
    const error = 'an earlier run sent this row with other values: not sent again (--resend-changed sends it as it is now)';
    void this.results.put(this.results.place(), { row, key, state: 'held', error });
  }

  #whyHeldBack(key: string): string {
    const why = this.opts.unsettled.get(key);
    if (why) return `outcome unknown from an earlier run, and the lookup failed (${why}); not resent`;
    if (!this.opts.reconcile) return 'outcome unknown from an earlier run; not resent (lookups are off: --no-reconcile)';
    return 'outcome unknown from an earlier run, whose journal line gives nothing to look it up by; not resent (--resend-unknown sends it)';
  }

  /** Sends one row that sendAll() checked, and passes its outcome on. */
  async send(row: number, key: string, input: Record<string, unknown>, values: string, place: number | undefined): Promise<void> {
    const counts = this.counts;
    let outcome: Outcome;
    let sent = false;
    let at = 0;
    const flight: Flight = { row, key, place, sent: false };
    const doneBefore = counts.done;
    const slot = this.#freeSlots.pop() ?? this.#inFlight.length;
    this.#inFlight[slot] = flight;
    counts.inFlight += 1;
    try {
      // The row passed check() a moment ago: build its request without checking it again.
      const req = this.client.prepareChecked(this.spec.op, input);
      await this.journal?.sending(row, key, values);
      sent = flight.sent = true;
      at = Date.now();
      const result = (await this.client.perform(this.spec.op, req)) as Record<string, unknown>;
      outcome = { row, key, state: 'done', result };
      this.#ids?.add(String(result[this.reconciler.idField]));
    } catch (err) {
      const unknown = (err instanceof TransportError || err instanceof ApiError) && err.outcomeUnknown;
      // Anything unexpected after the request left counts as unknown: never resend blindly.
      const state = unknown || (sent && !(err instanceof SmsLinkError)) ? 'unknown' : 'failed';
      outcome = { row, key, state, error: (err as Error).message };
      if (!this.#halt && failsEveryRow(err, counts.done === doneBefore)) this.#halt = err as SmsLinkError;
    } finally {
      this.#inFlight[slot] = undefined;
      this.#freeSlots.push(slot);
      counts.inFlight -= 1;
    }
    if (this.#stopped) return;
    counts[outcome.state as 'done' | 'failed' | 'unknown'] += 1;
    // A lost answer waits for the lookup (at the end, or when the ordered output waits for it).
    if (outcome.state === 'unknown' && this.opts.reconcile) {
      this.#lost.push({ key, row, at, input, place, error: outcome.error! });
      return;
    }
    await this.results.put(place, outcome);
  }

  /** Looks up this run's rows whose answer was lost, and passes on what they turned out to be. */
  async settleLost(): Promise<void> {
    const lost = this.#lost.splice(0);
    if (lost.length === 0) return;
    const field = this.reconciler.idField;
    // This run's rows and the journal's claim what they made; so do the results not journaled yet.
    const claimed = this.journal ? await this.journal.claimedIds(field) : this.#ids!;
    for (const id of this.results.pendingIds(field)) claimed.add(id);
    const settled = await this.reconciler.settle(lost, claimed, (request) => this.limiter.run(request));
    if (this.#stopped) return;
    const counts = this.counts;
    for (const l of lost) {
      const s = settled.get(l.key) ?? { kind: 'failed', error: 'not looked up' };
      let outcome: Outcome;
      if (s.kind === 'found') {
        counts.unknown -= 1;
        counts.done += 1;
        counts.found += 1;
        outcome = { row: l.row, key: l.key, state: 'done', result: s.result, found: true };
      } else if (s.kind === 'absent') {
        counts.unknown -= 1;
        counts.failed += 1;
        outcome = { row: l.row, key: l.key, state: 'failed', error: `${l.error}; a lookup found no such ${this.reconciler.what}: it was not made, and the rerun sends it` };
      } else outcome = { row: l.row, key: l.key, state: 'unknown', error: `${l.error}; the lookup failed too (${s.error})` };
      void this.results.put(l.place, outcome);
    }
  }

  /** Rows whose answer was lost and that were not looked up (Ctrl-C): passed on as unknown. */
  giveUpLost(): void {
    for (const l of this.#lost.splice(0)) void this.results.put(l.place, { row: l.row, key: l.key, state: 'unknown', error: l.error });
  }

  /**
   * The second Ctrl-C: the rows in flight are unknown now (those whose
   * request had not left yet are simply not sent), and nothing more is
   * waited for. Returns how many were in flight.
   */
  stop(): number {
    if (this.#stopped) return 0;
    this.#stopped = true;
    const inFlight = this.#inFlight.filter((f) => f !== undefined).sort((a, b) => a.row - b.row);
    for (const { row, key, place, sent } of inFlight) {
      if (!sent) {
        void this.results.put(place, null);
        continue;
      }
      this.counts.unknown += 1;
      void this.results.put(place, { row, key, state: 'unknown', error: 'in flight when the run was stopped (Ctrl-C twice)' });
    }
    this.counts.inFlight = 0;
    this.giveUpLost();
    this.#onStop?.();
    return inFlight.filter((f) => f.sent).length;
  }

  /** The error that stopped the run because every row would fail with it; undefined while rows can succeed. */
  get halt(): SmsLinkError | undefined {
    return this.#halt;
  }

  get stopped(): boolean {
    return this.#stopped;
  }
}
