// Progress of a bulk run on stderr: a bar redrawn every 100 ms on a terminal,
// a plain line every few seconds otherwise. It is drawn on a timer from the
// run's counts, not when rows finish, so it shows from the first request and
// keeps moving (its rate, its in-flight count) while requests hang.

import type { OutStream } from '../output/format.js';
import { cellWidth, truncate } from '../output/width.js';
import { duration } from '../output/words.js';

export interface Counts {
  /** Rows skipped as done by an earlier run. */
  skipped: number;
  done: number;
  failed: number;
  /** Rows whose request may or may not have reached the service. */
  unknown: number;
  invalid: number;
  /** Rows an earlier run sent that changed since, not sent again unasked. */
  held?: number;
  inFlight: number;
}

const REDRAW_MS = 100;
const CLEAR = '\r\x1b[2K';

/** Seconds the shown rate looks back over: recent enough to follow --rate, long enough not to jump. */
const RATE_WINDOW_MS = 5000;
const BAR = 24;

/** A piece of the terminal line, and how soon it gives way when the line is too wide (higher first). */
interface Piece {
  text: string;
  shed: number;
}

/**
 * The terminal line in at most `width` cells: pieces give way by their
 * `shed` (zero counts first, then the bar narrows, then in flight ...), and
 * what still does not fit is cut. A line that never wraps redraws in place.
 */
export function fitLine(pieces: Piece[], fraction: number, width: number): string {
  const bar = (cells: number) => {
    const filled = Math.min(cells, Math.max(0, Math.round(fraction * cells)));
    return `[${'█'.repeat(filled)}${'░'.repeat(cells - filled)}]`;
  };
  // The bar narrows, then goes, among the pieces: after zero counts (shed 9), before in flight (7), ETA and the rest.
  const steps = [...new Set([...pieces.map((p) => p.shed), 8.5, 7.5])].sort((a, b) => b - a);
  let line = '';
  for (const limit of [Infinity, ...steps]) {
    const shown = pieces.filter((p) => p.shed < limit);
    const cells = limit > 8.5 ? BAR : limit > 7.5 ? BAR / 2 : 0;
    line = [...(cells ? [bar(cells)] : []), shown.map((p) => p.text).join('  ')].join(' ');
    if (cellWidth(line) <= width || shown.length <= 1) break;
  }
  return truncate(line, width);
}

export class Progress {
  readonly #started = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #drawn = false;
  /** (time, requests sent) as drawn, over the last RATE_WINDOW_MS: what the rate is measured on. */
  #samples: Array<{ at: number; sent: number }> = [];

  constructor(
    private readonly out: OutStream,
    private readonly tty: boolean,
    /** Rows in the input; a function when the count is learnt on the way (sync's pages). */
    private readonly rows: number | (() => number),
    private readonly counts: () => Counts,
    private readonly lineEveryMs = 5000,
  ) {}

  /**
   * Requests per second over the last few seconds (never over less than one:
   * a first burst of --rate requests in 0.1 s is --rate a second, not ten times it).
   */
  #rate(sent: number): number {
    const now = Date.now();
    this.#samples.push({ at: now, sent });
    while (this.#samples.length > 2 && now - this.#samples[1].at >= RATE_WINDOW_MS) this.#samples.shift();
    const first = this.#samples[0].at === now ? { at: this.#started, sent: 0 } : this.#samples[0];
    return (sent - first.sent) / Math.max(1, (now - first.at) / 1000);
  }

  get total(): number {
    return typeof this.rows === 'number' ? this.rows : this.rows();
  }

  line(): string {
    const c = this.counts();
    const sent = c.done + c.failed + c.unknown;
    const finished = sent + c.skipped + c.invalid + (c.held ?? 0);
    const rate = this.#rate(sent);
    const left = (this.total - finished) / (rate || Infinity);
    const pieces: Piece[] = [
      { text: `${finished}/${this.total}`, shed: 0 },
      { text: `${rate.toFixed(rate < 10 ? 1 : 0)}/s`, shed: 3 },
      { text: `ETA ${duration(left)}`, shed: 4 },
      { text: c.skipped ? `${c.skipped} already done` : '', shed: 6 },
      { text: `${c.done} done`, shed: 5 },
      { text: `${c.failed} failed`, shed: c.failed ? 1 : 9 },
      { text: `${c.unknown} unknown`, shed: c.unknown ? 2 : 9 },
      { text: c.invalid ? `${c.invalid} invalid` : '', shed: 2 },
      { text: c.held ? `${c.held} held` : '', shed: 2 },
      { text: `${c.inFlight} in flight`, shed: 7 },
    ].filter((p) => p.text);
    if (!this.tty) return `progress: ${pieces.map((p) => p.text).join(', ')}`;
    // One cell short of the width: a line that fills the last column wraps on some terminals.
    const width = (this.out.columns || 80) - 1;
    return fitLine(pieces, this.total > 0 ? finished / this.total : 0, width);
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
