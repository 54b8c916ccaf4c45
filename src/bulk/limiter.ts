// How a bulk run paces its requests: at most `concurrency` in flight and,
// with --rate, at most `rate` started in any one second: a sliding window
// over the last `rate` starts, so no second (the first one included) ever
// holds more. The run asks for a slot before it takes the next row, so
// nothing waits in a queue: on Ctrl-C the rows not yet started are simply
// never started.
//
// p-queue did this before, for about 12 µs of CPU per request (its queue,
// events and a promise chain per task): some 5% of a bulk run's CPU time,
// which is what the run's throughput is bound by on a machine it shares with
// the service. This needs under 1 µs.

/**
 * The window --rate counts starts in. A start is counted when the row's
 * request is handed over; it reaches the service a moment later, and not
 * always equally late: the extra 50 ms keep that jitter from putting N+1
 * requests into one second as the service counts them.
 */
export const RATE_WINDOW_MS = 1050;

/** A lookup asked for a slot after Ctrl-C: it is not started. */
export class StoppedError extends Error {
  constructor() {
    super('stopped before this request was sent');
  }
}

export class Limiter {
  #running = 0;
  /** Those waiting (the run's loop, lookups, idle()), woken when a request ends or on abort. */
  #waiters: Array<() => void> = [];
  /** With --rate: when each of the last `rate` requests started, a ring; #next is the oldest once it is full. */
  readonly #starts: number[];
  #next = 0;

  constructor(
    private readonly concurrency: number,
    /** Requests started per second at most; 0: no limit. */
    private readonly rate: number,
    private readonly signal?: AbortSignal,
  ) {
    this.#starts = [];
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
    this.#take();
    task().then(this.#ended, this.#ended);
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
    this.#take();
    try {
      return await task();
    } finally {
      this.#ended();
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

  #take(): void {
    this.#running += 1;
    if (this.rate > 0) {
      this.#starts[this.#next] = Date.now();
      this.#next = (this.#next + 1) % this.rate;
    }
  }

  readonly #ended = () => {
    this.#running -= 1;
    this.#notify();
  };

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** How long until the rate allows one more start: 0 when it does now. */
  #rateWait(): number {
    if (this.rate <= 0 || this.#starts.length < this.rate) return 0;
    return Math.max(0, this.#starts[this.#next] + RATE_WINDOW_MS - Date.now());
  }

  /** Waits for a request to end, the rate window to move on, or an abort. */
  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wait = this.#running >= this.concurrency ? 0 : this.#rateWait();
      const timer = wait > 0 ? setTimeout(wake, wait) : undefined;
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
