// How a bulk run paces its requests: at most `concurrency` in flight and,
// with --rate, at most `rate` started in each one-second window. The run
// asks for a slot before it takes the next row, so nothing waits in a queue:
// on Ctrl-C the rows not yet started are simply never started.
//
// p-queue did this before, for about 12 µs of CPU per request (its queue,
// events and a promise chain per task): some 5% of a bulk run's CPU time,
// which is what the run's throughput is bound by on a machine it shares with
// the service. This needs under 1 µs.

export class Limiter {
  #running = 0;
  /** The one waiter (the run's loop, then idle()), woken when a request ends or on abort. */
  #wake: (() => void) | undefined;
  #windowStart = 0;
  #startedInWindow = 0;

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
   * is free now, so the common case costs no promise.
   */
  ready(): Promise<void> | undefined {
    if (this.signal?.aborted) return undefined;
    if (this.#running < this.concurrency && this.#rateAllows()) return undefined;
    return this.#waitForSlot();
  }

  /** Runs a request in the slot that ready() gave. */
  start(task: () => Promise<void>): void {
    this.#running += 1;
    this.#startedInWindow += 1;
    task().then(this.#ended, this.#ended);
  }

  /** Resolves when every started request has ended. */
  async idle(): Promise<void> {
    while (this.#running > 0) await new Promise<void>((resolve) => (this.#wake = resolve));
  }

  readonly #ended = () => {
    this.#running -= 1;
    this.#notify();
  };

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #rateAllows(): boolean {
    if (this.rate <= 0) return true;
    const now = Date.now();
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#startedInWindow = 0;
    }
    return this.#startedInWindow < this.rate;
  }

  async #waitForSlot(): Promise<void> {
    while (!this.signal?.aborted) {
      if (this.#running >= this.concurrency) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      if (this.#rateAllows()) return;
      // This second's starts are used up: wait for the next window (or an abort).
      const wait = this.#windowStart + 1000 - Date.now();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.#wake = undefined;
          resolve();
        }, wait);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
