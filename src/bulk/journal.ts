// The bulk journal: an append-only NDJSON file recording each row's outcome,
// so a rerun skips what was done, retries what failed and never resends what
// may have reached the service. A row is marked `sending` before its request
// leaves and gets its outcome after; a `sending` row without an outcome (the
// process was killed) counts as unknown. A row's `sending` line is on disk
// before its request leaves: sending() resolves once it is, and the lines of
// all rows that start in one turn of the event loop go out in one
// synchronous write (one write per row was a large part of the CPU time of
// a bulk run). Outcomes are written in batches
// by flushOutcomes(), which the bulk run calls right after it printed those
// rows: a row is never journaled done before its result was shown, and if
// the process dies in between, those rows read as unknown on the rerun:
// held back, never sent twice.

import { closeSync, openSync, readSync, writeSync, createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError } from '../cli/exit.js';

export type RowState = 'sending' | 'done' | 'failed' | 'unknown' | 'invalid';
const CODES: Record<RowState, number> = { sending: 1, done: 2, failed: 3, unknown: 4, invalid: 5 };
const NAMES: ReadonlyArray<RowState | undefined> = [undefined, 'sending', 'done', 'failed', 'unknown', 'invalid'];

export interface JournalIdentity {
  command: string;
  inputHash: string;
  input: string;
  /** Where the rows are sent: the base URL, or `sandbox` for the emulator in the process. */
  target: string;
  /** Digest of what shapes every row's request besides its cells: the flag values that fill empty cells, --text. */
  shape: string;
}

interface HeaderLine extends JournalIdentity {
  smslinkJournal: 1;
  created: string;
}

export class Journal {
  #states = new Uint8Array(1024);
  readonly #fd: number;
  #closed = false;
  #pending: string[] = [];
  /** `sending` lines not yet written, and the promise their rows wait on. */
  #sending: string[] = [];
  #sendingWritten: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly scrub: (text: string) => string,
  ) {
    this.#fd = fd;
  }

  /**
   * Opens (or creates) a journal. Refuses the input file itself, a file that
   * is not a journal, and a journal written for another input, command,
   * service or set of flag values: the rows it records as done were done
   * there, with those values, and skipping them here would send nothing.
   */
  static async open(
    path: string,
    identity: JournalIdentity,
    opts: { inputPath?: string; scrub?: (text: string) => string } = {},
  ): Promise<Journal> {
    if (opts.inputPath && resolve(opts.inputPath) === resolve(path)) throw new UsageError('--journal must not be the input file itself');
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      // a new journal
    }
    let fd: number;
    try {
      fd = openSync(path, 'a', 0o600);
    } catch (err) {
      throw new UsageError(`--journal: cannot write "${path}": ${(err as Error).message}`);
    }
    const journal = new Journal(path, fd, opts.scrub ?? ((t) => t));
    try {
      if (size > 0) {
        await journal.#load(identity);
        // A line cut short by a crash must not run into the next one.
        const last = Buffer.alloc(1);
        const fdr = openSync(path, 'r');
        try {
          readSync(fdr, last, 0, 1, size - 1);
        } finally {
          closeSync(fdr);
        }
        if (last.toString() !== '\n') writeSync(fd, '\n');
      }
      else journal.#append({ smslinkJournal: 1, ...identity, created: new Date().toISOString() } satisfies HeaderLine);
    } catch (err) {
      journal.close();
      throw err;
    }
    return journal;
  }

  async #load(identity: JournalIdentity): Promise<void> {
    const lines = createInterface({ input: createReadStream(this.path, 'utf8'), crlfDelay: Infinity });
    let first = true;
    for await (const line of lines) {
      if (!line.trim()) continue;
      let entry: Record<string, unknown> | null = null;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // a line cut short by a crash: its row stays as the line before said
      }
      if (first) {
        first = false;
        const header = entry as unknown as HeaderLine | null;
        if (header?.smslinkJournal !== 1) throw new UsageError(`--journal: "${this.path}" is not an smslink journal; choose another file`);
        if (header.command !== identity.command)
          throw new UsageError(`--journal: "${this.path}" was written by \`smslink ${header.command}\`, not \`smslink ${identity.command}\`; use another --journal`);
        if (header.inputHash !== identity.inputHash)
          throw new UsageError(
            `--journal: "${this.path}" belongs to a different input (${header.input}, ${header.inputHash.slice(0, 19)}...); ` +
              'the file changed since that run. Use another --journal, or delete this one to start over',
          );
        // Journals written before these were recorded have neither: they are taken as they are.
        if (header.target !== undefined && header.target !== identity.target)
          throw new UsageError(
            `--journal: "${this.path}" records a run against ${header.target}, not ${identity.target}; ` +
              'its rows were not sent here. Use another --journal, or delete this one to start over',
          );
        if (header.shape !== undefined && header.shape !== identity.shape)
          throw new UsageError(
            `--journal: "${this.path}" records a run with other values of the flags that fill every row (or another --text); ` +
              'the rows it marks done were sent with those. Use another --journal, or delete this one to start over',
          );
        continue;
      }
      if (!entry) continue;
      const row = Number(entry.row);
      const state = CODES[entry.state as RowState];
      if (Number.isInteger(row) && row > 0 && state) this.#set(row, state);
    }
  }

  #set(row: number, code: number): void {
    if (row >= this.#states.length) {
      let size = this.#states.length;
      while (size <= row) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#states);
      this.#states = grown;
    }
    this.#states[row] = code;
  }

  #append(entry: object): void {
    if (this.#closed) return;
    writeSync(this.#fd, `${this.scrub(JSON.stringify(entry))}\n`);
  }

  /** Writes the outcomes noted since the last call, in one system call, secrets taken out (once for the batch). */
  flushOutcomes(): void {
    if (this.#closed || this.#pending.length === 0) return;
    writeSync(this.#fd, this.scrub(this.#pending.join('')));
    this.#pending = [];
  }

  state(row: number): RowState | undefined {
    const code = row < this.#states.length ? this.#states[row] : 0;
    return NAMES[code];
  }

  /**
   * Marks a row as being sent; resolves once that is on disk, and only then
   * may its request leave. Rejects when the line could not be written (the
   * journal was closed, the disk is full): the row must not be sent.
   */
  sending(row: number): Promise<void> {
    this.#set(row, CODES.sending);
    // A row number and a state: nothing that could hold a secret.
    this.#sending.push(`{"row":${row},"state":"sending"}\n`);
    this.#sendingWritten ??= new Promise<void>((resolve, reject) => {
      // After the poll phase: every row started by the answers that came in this turn shares one write.
      setImmediate(() => {
        const lines = this.#sending;
        this.#sending = [];
        this.#sendingWritten = undefined;
        try {
          if (this.#closed) throw new Error('the journal was closed before this row could be marked as sending');
          writeSync(this.#fd, lines.join(''));
          resolve();
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    return this.#sendingWritten;
  }

  /** Notes a row's outcome (or that it is invalid); written by the next flushOutcomes(). */
  record(row: number, state: Exclude<RowState, 'sending'>, detail: Record<string, unknown> = {}): void {
    this.#set(row, CODES[state]);
    if (!this.#closed) this.#pending.push(`${JSON.stringify({ row, state, ...detail })}\n`);
  }

  close(): void {
    if (this.#closed) return;
    this.flushOutcomes();
    this.#closed = true;
    closeSync(this.#fd);
  }
}
