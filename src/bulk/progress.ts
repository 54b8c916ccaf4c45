// Progress of a bulk run on stderr: a bar redrawn every 100 ms on a terminal,
// a plain line every few seconds otherwise. It is drawn on a timer from the
// run's counts, not when rows finish, so it shows from the first request and
// keeps moving (its rate, its in-flight count) while requests hang.

import type { OutStream } from '../output/format.js';

export interface Counts {
  /** Rows skipped as done by an earlier run. */
  skipped: number;
  done: number;
  failed: number;
  /** Rows whose request may or may not have reached the service. */
  unknown: number;
  invalid: number;
  inFlight: number;
}

const REDRAW_MS = 100;
const CLEAR = '\r\x1b[2K';

/** A duration as a person reads it: 45s, 3m05s, 1h02m; `?` when unknown. */
export function eta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

export class Progress {
  readonly #started = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #drawn = false;

  constructor(
    private readonly out: OutStream,
    private readonly tty: boolean,
    /** Rows in the input; a function when the count is learnt on the way (sync's pages). */
    private readonly rows: number | (() => number),
    private readonly counts: () => Counts,
    private readonly lineEveryMs = 5000,
  ) {}

  get total(): number {
    return typeof this.rows === 'number' ? this.rows : this.rows();
  }

  line(): string {
    const c = this.counts();
    const sent = c.done + c.failed + c.unknown;
    const finished = sent + c.skipped + c.invalid;
    const seconds = (Date.now() - this.#started) / 1000;
    const rate = seconds > 0 ? sent / seconds : 0;
    const left = (this.total - finished) / (rate || Infinity);
    const parts = [
      `${finished}/${this.total}`,
      `${rate.toFixed(rate < 10 ? 1 : 0)}/s`,
      `ETA ${eta(left)}`,
      c.skipped ? `${c.skipped} already done` : '',
      `${c.done} done`,
      `${c.failed} failed`,
      `${c.unknown} unknown`,
      c.invalid ? `${c.invalid} invalid` : '',
      `${c.inFlight} in flight`,
    ].filter(Boolean);
    if (!this.tty) return `progress: ${parts.join(', ')}`;
    const width = 24;
    const filled = this.total > 0 ? Math.min(width, Math.round((finished / this.total) * width)) : 0;
    return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${parts.join('  ')}`;
  }

  /** Draws now, then on a timer until stop(). */
  start(): void {
    if (this.#timer) return;
    if (this.tty) this.#draw();
    this.#timer = setInterval(() => (this.tty ? this.#draw() : this.out.write(`${this.line()}\n`)), this.tty ? REDRAW_MS : this.lineEveryMs);
    // The bar never keeps a finished run alive.
    this.#timer.unref();
  }

  #draw(): void {
    this.out.write(`${CLEAR}${this.line()}`);
    this.#drawn = true;
  }

  /** Takes the bar off the line, so that a message can be printed; the next redraw puts it back. */
  clear(): void {
    if (this.tty && this.#drawn) this.out.write(CLEAR);
    this.#drawn = false;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.clear();
  }
}
