// How a bulk run paces its requests: at most `concurrency` in flight and,
// with --rate, at most `rate` in any one second as the service counts them.
// The run asks for a slot before it takes the next row, so nothing waits in
// a queue: on Ctrl-C the rows not yet started are never started (docs/bulk.md).

const WINDOW_MS = 1000;
const LATE_MS = 1000;

/** A lookup asked for a slot after Ctrl-C: it is not started. */
export class StoppedError extends Error {
  constructor() {
    super('stopped before this request was sent');
  }
}

/** When a request started and, once it has, when its answer came. */
interface Start {
  at: number;
  end?: number;
}

/**
 * A request reaches the service some time after it starts (a connection to
 * open, a TLS handshake, a module to load for the first one) and before its
 * answer comes back. So the `rate`-th start after a request waits until a
 * second after that request's answer: however late it arrived, the two are
 * a second apart at the service. An answer that takes longer than LATE_MS
 * counts as arrived by then, so that a request that hangs does not hold up
 * the others.
 *
 * p-queue did this before, with a queue, events and a promise chain per
 * task: a share of a bulk run's CPU time that shows in its throughput, which
 * CPU bounds on a machine it shares with the service. This needs none of
 * them; `npm run bench -- --only bulk` with either one remeasures it.
 */
export class Limiter {
  #running = 0;
  /** Those waiting (the run's loop, lookups, idle()), woken when a request ends or on abort. */
  #waiters: Array<() => void> = [];
  /** With --rate: the last `rate` requests, a ring; #next is the oldest once it is full. */
  readonly #starts: Start[] = [];
  #next = 0;

  constructor(
    private readonly concurrency: number,
    /** Requests started per second at most; 0: no limit. */
    private readonly rate: number,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener('abort', () => this.#notify(), { once: true });
  }

  get running(): number {
    return this.#running;
  }

  /**
   * Resolves when one more request may start; at once when the signal is
   * aborted (the caller checks it and starts nothing). Undefined when a slot
   * is free now, so the common case costs no promise. The caller starts its
   * request (start()) as soon as this resolves: one caller at a time.
   */
  ready(): Promise<void> | undefined {
    if (this.signal?.aborted) return undefined;
    if (this.#running < this.concurrency && this.#rateWait() === 0) return undefined;
    return this.#waitForSlot();
  }

  /** Runs a request in the slot that ready() gave. */
  start(task: () => Promise<void>): void {
    const started = this.#take();
    const ended = () => this.#ended(started);
    task().then(ended, ended);
  }

  /**
   * Runs one request in a slot of its own, waiting for it as long as needed:
   * for callers that ask at the same time (lookups). Throws StoppedError
   * after an abort, before anything is sent.
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    for (;;) {
      if (this.signal?.aborted) throw new StoppedError();
      if (this.#running < this.concurrency && this.#rateWait() === 0) break;
      await this.#sleep();
    }
    const started = this.#take();
    try {
      return await task();
    } finally {
      this.#ended(started);
    }
  }

  /** Resolves when every started request has ended. */
  async idle(): Promise<void> {
    while (this.#running > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves when a request ends (or on abort): for a caller waiting on something a request's end may change. */
  ended(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #take(): Start | undefined {
    this.#running += 1;
    if (this.rate <= 0) return undefined;
    const started: Start = { at: performance.now() };
    this.#starts[this.#next] = started;
    this.#next = (this.#next + 1) % this.rate;
    return started;
  }

  #ended(started: Start | undefined): void {
    if (started) started.end = performance.now();
    this.#running -= 1;
    this.#notify();
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** How long until the rate allows one more start: 0 when it does now. */
  #rateWait(): number {
    if (this.rate <= 0 || this.#starts.length < this.rate) return 0;
    const oldest = this.#starts[this.#next];
    const arrivedBy = Math.min(oldest.end ?? Infinity, oldest.at + LATE_MS);
    return Math.max(0, arrivedBy + WINDOW_MS - performance.now());
  }

  /** Waits for a request to end, the rate window to move on (also when the oldest request ends), or an abort. */
  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      // With a slot free, what is waited for is the rate: a timer always, however little is left.
      const timer = this.#running >= this.concurrency ? undefined : setTimeout(wake, Math.max(1, Math.ceil(this.#rateWait())));
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      this.#waiters.push(wake);
    });
  }

  async #waitForSlot(): Promise<void> {
    while (!this.signal?.aborted) {
      if (this.#running < this.concurrency && this.#rateWait() === 0) return;
      await this.#sleep();
    }
  }
}
