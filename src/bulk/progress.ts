// Progress of a bulk run on stderr: a redrawn bar on a terminal (done/total,
// rate, ETA, failures), a plain line every few seconds otherwise.

import type { OutStream } from '../output/format.js';

export interface Counts {
  /** Rows finished, whatever their outcome. */
  done: number;
  failed: number;
  /** Rows whose request may or may not have reached the service. */
  unknown: number;
}

function eta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

export class Progress {
  #last = 0;
  readonly #started = Date.now();
  #drawn = false;

  constructor(
    private readonly out: OutStream,
    private readonly tty: boolean,
    /** Rows this run will send (unknown when 0). */
    private readonly total: number,
    private readonly lineEveryMs = 5000,
  ) {}

  #line({ done, failed, unknown }: Counts): string {
    const seconds = (Date.now() - this.#started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = this.total > 0 ? (this.total - done) / (rate || Infinity) : NaN;
    const parts = [
      this.total > 0 ? `${done}/${this.total}` : `${done}`,
      `${rate.toFixed(rate < 10 ? 1 : 0)}/s`,
      this.total > 0 ? `ETA ${eta(left)}` : '',
      `${failed} failed`,
      unknown ? `${unknown} unknown` : '',
    ].filter(Boolean);
    if (!this.tty) return `progress: ${parts.join(', ')}`;
    const width = 24;
    const filled = this.total > 0 ? Math.round((done / this.total) * width) : 0;
    return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${parts.join('  ')}`;
  }

  update(counts: Counts): void {
    const now = Date.now();
    if (now - this.#last < (this.tty ? 100 : this.lineEveryMs)) return;
    this.#last = now;
    if (this.tty) {
      this.out.write(`\r\x1b[2K${this.#line(counts)}`);
      this.#drawn = true;
    } else if (now - this.#started >= this.lineEveryMs) {
      this.out.write(`${this.#line(counts)}\n`);
    }
  }

  stop(): void {
    if (this.tty && this.#drawn) this.out.write('\r\x1b[2K');
  }
}
