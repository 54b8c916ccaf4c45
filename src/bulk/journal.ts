// The bulk journal (docs/bulk.md, "Journals", "A damaged journal"): an
// append-only NDJSON file of each row's outcome by its key (identity.ts), so a
// rerun skips what was done, retries what failed and looks up what may have
// reached the service. A row's `sending` line is on disk before its request
// leaves; a tally beside the journal tells when it was cut or emptied since.

import { closeSync, constants, createReadStream, existsSync, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError } from '../exit-codes.js';
import { openPrivateFile, PrivateFileError, readPrivateFile, writePrivateFile } from '../private-files.js';
import { count, fileProblem } from '../output/words.js';
import { DigestSet, RowIndex, type RowState } from './identity.js';

export type { RowState } from './identity.js';
const VERSION = 2;

export interface JournalIdentity {
  command: string;
  /** What the user named as the input (for people reading the journal). */
  input: string;
  /** Where the rows are sent: the base URL, or `sandbox` for the emulator in the process. */
  target: string;
}

interface HeaderLine extends JournalIdentity {
  smslinkJournal: number;
  created: string;
}

/** A row an earlier run left without a known outcome, with what a lookup needs. */
export interface UnknownRow {
  key: string;
  row: number;
  /** When its request was about to leave (ms since the epoch), or the earliest it could have. */
  at: number;
  /** The latest it could have left, when only a span is known (a damaged journal's rows). */
  until?: number;
  /** The request's values. */
  input: Record<string, unknown>;
}

/** Why a run found its journal damaged (Journal.damage), and whether the damage is that the file was gone. */
export interface JournalDamage {
  why: string;
  missing: boolean;
}

/** What the journal held when last written: a journal shorter than this lost lines. */
interface Tally {
  smslinkJournalTally: number;
  /** When the journal was started (ms since the epoch): its rows were sent after. */
  created: number;
  bytes: number;
  lines: number;
}

/** The tally is written at most this often while rows go out (and when the journal closes). */
const TALLY_EVERY_MS = 500;

interface Entry {
  row?: unknown;
  key?: unknown;
  state?: unknown;
  at?: unknown;
  input?: unknown;
  fresh?: unknown;
  repaired?: unknown;
  until?: unknown;
  result?: Record<string, unknown>;
}

export class Journal {
  /** Earlier runs' rows, by key (shared with the run, which keys its rows in it). This run's rows get no state there: each key comes once per run. */
  readonly #index: RowIndex;
  /** Earlier runs' rows of unknown outcome. */
  readonly #unknown = new Map<string, UnknownRow>();
  readonly #fd: number;
  #closed = false;
  #pending: string[] = [];
  /** `sending` lines not yet written, and the promise their rows wait on. */
  #sending: string[] = [];
  #sendingWritten: Promise<void> | undefined;
  /** Ids of the results recorded, once a lookup asked for them. */
  #claimed: { field: string; ids: DigestSet } | undefined;
  /** Lines of rows in the file (the header not counted), for the tally. */
  #lines = 0;
  #created = Date.now();
  #tallyAt = 0;
  /** Why the journal is damaged (it lost lines it had), if it is. */
  damage: string | undefined;
  /** The damage is that the file was gone (deleted or moved) while its tally stayed: said as missing, not as empty. */
  missing = false;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly scrub: (text: string) => string,
    index: RowIndex,
  ) {
    this.#fd = fd;
    this.#index = index;
  }

  /**
   * Opens (or creates) a journal. Refuses the input file itself, a file that
   * is not a journal, and a journal of another command or service: the rows
   * it records as done were done there, and skipping them here would leave
   * them unsent.
   */
  static async open(
    path: string,
    identity: JournalIdentity,
    opts: { inputPath?: string; scrub?: (text: string) => string; index?: RowIndex } = {},
  ): Promise<Journal> {
    if (opts.inputPath && resolve(opts.inputPath) === resolve(path)) throw new UsageError('--journal must not be the input file itself');
    const tally = readTally(path);
    // Only for the words: a journal gone and one emptied are dealt with alike.
    const existed = existsSync(path);
    let fd: number;
    try {
      // Read and written through this descriptor only: what was checked is what is read (docs/security.md, "Files").
      fd = openPrivateFile(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
    } catch (err) {
      if (err instanceof PrivateFileError) throw err;
      throw new UsageError(fileProblem('--journal', path, err, 'write'));
    }
    const journal = new Journal(path, fd, opts.scrub ?? ((t) => t), opts.index ?? new RowIndex());
    try {
      const size = fstatSync(fd).size;
      if (tally) journal.#created = tally.created;
      const cut = cutHeader(fd, size);
      if (size > 0 && !cut) {
        await journal.#load(identity);
        if (tally && (size < tally.bytes || journal.#lines < tally.lines)) {
          journal.damage ??= `it holds ${count(journal.#lines, 'line')} of rows (${size} bytes), where it last held ${tally.lines} (${tally.bytes} bytes)`;
        }
        // A line cut short by a crash must not run into the next one.
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last.toString() !== '\n') writeSync(fd, '\n');
      } else {
        if (cut) {
          journal.damage = `its first line, the header, is cut short after ${count(size, 'byte')}`;
          // Without a tally, nothing says when its rows were sent: since ever. (Not the file's birth time: a journal copied,
          // restored or moved is born after its rows were sent, and a lookup from then would miss them and send them again.)
          if (!tally) journal.#created = 0;
          ftruncateSync(fd, 0);
        } else if (tally && !existed) {
          journal.missing = true;
          journal.damage = `its tally, ${path}.tally, says it held ${count(tally.lines, 'line')} of rows`;
        } else if (tally) journal.damage = `it is empty, where it last held ${count(tally.lines, 'line')} of rows`;
        journal.#append({ smslinkJournal: VERSION, ...identity, created: new Date(journal.#created).toISOString() } satisfies HeaderLine);
      }
      // A damaged journal keeps its old tally until suspect() has journaled what the damage may have lost.
      if (!journal.damage) journal.#writeTally();
    } catch (err) {
      // Refused or failed: nothing more is written (no tally beside a file that is not this run's journal).
      journal.#closed = true;
      closeSync(fd);
      throw err;
    }
    return journal;
  }

  #checkHeader(header: HeaderLine | null, identity: JournalIdentity): void {
    const path = this.path;
    if (typeof header?.smslinkJournal !== 'number') throw new UsageError(`--journal: "${path}" is not an smslink journal; choose another file`);
    if (header.smslinkJournal !== VERSION)
      throw new UsageError(
        `--journal: "${path}" was written by an earlier smslink, which knew rows by their position in the file; ` +
          'finish that run with the smslink that wrote it, or give this run its own --journal FILE (rows that journal records as done would then be sent again)',
      );
    if (header.command !== identity.command)
      throw new UsageError(`--journal: "${path}" was written by \`smslink ${header.command}\`, not \`smslink ${identity.command}\`; give this run its own --journal FILE`);
    if (header.target !== identity.target)
      throw new UsageError(
        `--journal: "${path}" records a run against ${header.target}, not ${identity.target}: its rows were sent there, not here. ` +
          'Give this run its own --journal FILE',
      );
  }

  /**
   * The journal's lines from its start, through a descriptor of their own,
   * opened and checked as the journal was: a loop that stops early closes it
   * (the journal's own stays open for writing).
   */
  async *#readLines(): AsyncGenerator<string> {
    const input = createReadStream(this.path, { fd: openPrivateFile(this.path, constants.O_RDONLY), encoding: 'utf8' });
    try {
      yield* createInterface({ input, crlfDelay: Infinity });
    } finally {
      input.destroy();
    }
  }

  async #load(identity: JournalIdentity): Promise<void> {
    const lines = this.#readLines();
    let first = true;
    let n = 0;
    for await (const line of lines) {
      n += 1;
      if (!line.trim()) continue;
      let entry: Entry | null = null;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        // A line cut short (a crash, a full disk): what came after it on that line is lost.
        this.damage ??= `line ${n} is cut short`;
      }
      if (first) {
        first = false;
        this.#checkHeader(entry as unknown as HeaderLine | null, identity);
        const created = Date.parse((entry as unknown as HeaderLine).created);
        if (Number.isFinite(created)) this.#created = created;
        continue;
      }
      if (entry) {
        this.#lines += 1;
        this.#apply(entry);
      }
    }
  }

  /** Records how long the journal is now (atomically: a tally is never half written). */
  #writeTally(): void {
    if (this.#closed) return;
    this.#tallyAt = Date.now();
    const tally: Tally = { smslinkJournalTally: 1, created: this.#created, bytes: fstatSync(this.#fd).size, lines: this.#lines };
    writePrivateFile(`${this.path}.tally`, `${JSON.stringify(tally)}\n`);
  }

  /**
   * Deals with a damaged journal: each row given (those of the input it does
   * not show as done) is journaled as sent at some time since the journal
   * began, its outcome unknown, so that a lookup settles it before it is
   * sent again; then the damage is marked as dealt with.
   */
  suspect(rows: Array<Pick<UnknownRow, 'key' | 'row' | 'input'>>): void {
    const until = Date.now();
    const lines: string[] = [];
    for (const r of rows) {
      const row = this.#unknown.get(r.key) ?? { ...r, at: this.#created, until };
      this.#index.setState(r.key, 'sending');
      this.#unknown.set(r.key, row);
      lines.push(`${JSON.stringify({ row: r.row, key: r.key, state: 'sending', at: row.at, ...(row.until === undefined ? {} : { until: row.until }), input: row.input })}\n`);
    }
    lines.push(`${JSON.stringify({ repaired: this.damage ?? true, at: new Date(until).toISOString() })}\n`);
    writeSync(this.#fd, this.scrub(lines.join('')));
    this.#lines += lines.length;
    this.damage = undefined;
    this.#writeTally();
  }

  #apply(entry: Entry): void {
    // Damage before this line was dealt with by the run that wrote it (suspect()).
    if (entry.repaired !== undefined) {
      this.damage = undefined;
      return;
    }
    if (entry.fresh === true) {
      // --fresh: what came before no longer counts as done (its ids still count as taken: claimedIds()), nor what damage lost.
      this.#index.clearStates();
      this.#unknown.clear();
      this.damage = undefined;
      return;
    }
    const { key, row } = entry;
    const state = entry.state as RowState;
    if (typeof key !== 'string' || typeof row !== 'number' || !STATES.has(state)) return;
    try {
      this.#index.setState(key, state);
    } catch {
      // a key that is no digest: not a line this journal's runs wrote
      return;
    }
    if (state === 'sending' && typeof entry.at === 'number' && entry.input && typeof entry.input === 'object') {
      this.#unknown.set(key, { key, row, at: entry.at, ...(typeof entry.until === 'number' ? { until: entry.until } : {}), input: entry.input as Record<string, unknown> });
    } else if (state === 'done' || state === 'failed') this.#unknown.delete(key);
  }

  #append(entry: object): void {
    if (this.#closed) return;
    writeSync(this.#fd, `${this.scrub(JSON.stringify(entry))}\n`);
    if (!('smslinkJournal' in entry)) this.#lines += 1;
  }

  /** What an earlier run recorded for a row, if anything. */
  state(key: string): RowState | undefined {
    return this.#index.state(key);
  }

  /** How many rows earlier runs left in each state. */
  counts(): Record<RowState, number> {
    const counts: Record<RowState, number> = { sending: 0, done: 0, failed: 0, unknown: 0, invalid: 0 };
    this.#index.forEachState((state) => (counts[state] += 1));
    return counts;
  }

  /** Rows earlier runs left of unknown outcome (sent, no answer), with their values. */
  unknownRows(): UnknownRow[] {
    return [...this.#unknown.values()].filter((u) => {
      const state = this.state(u.key);
      return state === 'sending' || state === 'unknown';
    });
  }

  /**
   * The values of each row earlier runs sent, or may have, that `take` says
   * to read (once per key: the last `sending` line of a row sent several
   * times says the same), read from the file.
   */
  async *sentValues(take: (key: string) => boolean): AsyncGenerator<{ key: string; row: number; input: Record<string, unknown> }> {
    this.flushOutcomes();
    const lines = this.#readLines();
    for await (const line of lines) {
      if (!line.includes('"sending"')) continue;
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        continue; // a line cut short by a crash
      }
      const { key, row, input } = entry;
      if (entry.state !== 'sending' || typeof key !== 'string' || typeof row !== 'number' || !input || typeof input !== 'object') continue;
      let wanted: boolean;
      try {
        wanted = take(key);
      } catch {
        continue; // a key that is no digest
      }
      if (wanted) yield { key, row, input: input as Record<string, unknown> };
    }
  }

  /** Starts over (--fresh): every row counts as not sent. Earlier lines stay, so their ids still count as taken. */
  fresh(): void {
    this.#append({ fresh: true, at: new Date().toISOString() });
    // Nothing before a fresh start counts, what damage lost included.
    this.damage = undefined;
    this.#index.clearStates();
    this.#unknown.clear();
  }

  /**
   * The `field` of every result the journal holds (link or message ids):
   * what a lookup must not take for a lost row. Read from the file the first
   * time a lookup needs it (most runs never do), then kept up to date.
   */
  async claimedIds(field: string): Promise<DigestSet> {
    if (this.#claimed) return this.#claimed.ids;
    this.flushOutcomes();
    const ids = new DigestSet();
    const lines = this.#readLines();
    for await (const line of lines) {
      if (!line.includes('"done"')) continue;
      try {
        const id = (JSON.parse(line) as Entry).result?.[field];
        if (id !== undefined && id !== null) ids.add(String(id));
      } catch {
        // a line cut short by a crash
      }
    }
    this.#claimed = { field, ids };
    return ids;
  }

  /**
   * Writes the outcomes noted since the last call, in one system call, secrets
   * taken out (once for the batch). The run calls it right after it printed
   * those rows: a row is never journaled done before its result was shown, and
   * a process killed in between leaves the row to a lookup, not to a resend.
   */
  flushOutcomes(): void {
    if (this.#closed || this.#pending.length === 0) return;
    writeSync(this.#fd, this.scrub(this.#pending.join('')));
    this.#lines += this.#pending.length;
    this.#pending = [];
    if (!this.damage && Date.now() - this.#tallyAt >= TALLY_EVERY_MS) this.#writeTally();
  }

  /**
   * Marks a row as being sent, with its values (`values`: canonical JSON);
   * resolves once that is on disk, and only then may its request leave.
   * Rejects when the line could not be written (the journal was closed, the
   * disk is full): the row must not be sent.
   */
  sending(row: number, key: string, values: string): Promise<void> {
    this.#sending.push(`{"row":${row},"key":"${key}","state":"sending","at":${Date.now()},"input":${values}}\n`);
    this.#sendingWritten ??= new Promise<void>((resolve, reject) => {
      // After the poll phase: every row started by the answers that came in this turn shares one write.
      setImmediate(() => {
        const lines = this.#sending;
        this.#sending = [];
        this.#sendingWritten = undefined;
        try {
          if (this.#closed) throw new Error('the journal was closed before this row could be marked as sending');
          writeSync(this.#fd, this.scrub(lines.join('')));
          this.#lines += lines.length;
          resolve();
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    return this.#sendingWritten;
  }

  /** Notes a row's outcome (or that it is invalid: no key); written by the next flushOutcomes(). */
  record(row: number, key: string | undefined, state: Exclude<RowState, 'sending'>, detail: Record<string, unknown> = {}): void {
    // Only earlier runs' rows are kept in memory: a lookup before the run settles them.
    if (key !== undefined && this.#index.state(key) !== undefined) {
      this.#index.setState(key, state);
      if (state !== 'unknown') this.#unknown.delete(key);
    }
    const id = this.#claimed && (detail.result as Record<string, unknown> | undefined)?.[this.#claimed.field];
    if (id !== undefined && id !== null) this.#claimed!.ids.add(String(id));
    if (!this.#closed) this.#pending.push(`${JSON.stringify(key === undefined ? { row, state, ...detail } : { row, key, state, ...detail })}\n`);
  }

  close(): void {
    if (this.#closed) return;
    this.flushOutcomes();
    // A damage not dealt with stays visible to the next run.
    if (!this.damage) this.#writeTally();
    this.#closed = true;
    closeSync(this.#fd);
  }
}

const STATES = new Set<unknown>(['sending', 'done', 'failed', 'unknown', 'invalid'] satisfies RowState[]);

/** How every header line begins (HeaderLine: smslinkJournal comes first). */
const HEADER_START = '{"smslinkJournal":';
/** A header is this long at most (its identity names a file and a URL); a longer first line is no cut header. */
const HEADER_MAX = 64 * 1024;

/**
 * Whether the file (`fd`, `size` bytes) is a journal cut inside its header
 * line: no line end, not a whole JSON line, and a prefix of how a header
 * begins (or begins so). Anything else that is not a journal is someone's file.
 */
function cutHeader(fd: number, size: number): boolean {
  if (size === 0 || size > HEADER_MAX) return false;
  const bytes = Buffer.alloc(size);
  readSync(fd, bytes, 0, size, 0);
  const text = bytes.toString('utf8');
  if (text.includes('\n')) return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    // not whole: cut short, or not ours
  }
  return text.length < HEADER_START.length ? HEADER_START.startsWith(text) : text.startsWith(HEADER_START);
}

/** The tally beside a journal, if there is one that can be read; one that is not the user's alone is refused, as the journal would be. */
function readTally(path: string): Tally | undefined {
  try {
    const tally = JSON.parse(readPrivateFile(`${path}.tally`) ?? 'null') as Tally | null;
    if (tally?.smslinkJournalTally === 1 && [tally.created, tally.bytes, tally.lines].every(Number.isFinite)) return tally;
  } catch (err) {
    if (err instanceof PrivateFileError) throw err;
    // damaged: as if there were none
  }
  return undefined;
}
