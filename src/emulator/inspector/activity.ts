// What the inspector watches: a log of the last requests and the pages open
// on it (server-sent events). The request path only pushes an entry into a
// ring; the rest (which pages are out of date, statuses come due, other
// processes' writes) happens on timers while a page is open, so the
// emulator's speed does not depend on whether anyone is watching.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS } from '../../catalog/index.js';
import type { Clock } from '../control/clock.js';
import type { Database } from '../store/database.js';

/** What a page shows; an event names the ones that changed. */
export type Topic = 'messages' | 'links' | 'campaigns' | 'accounts' | 'log' | 'controls';
export const ALL_TOPICS: readonly Topic[] = ['messages', 'links', 'campaigns', 'accounts', 'log', 'controls'];

export interface LogEntry {
  /** Emulator time of the request. */
  at: number;
  /** `Module/Operation` as the caller spelled it, or the path of a short-link visit. */
  op: string;
  visit: boolean;
  /** A request of the test-control API (`POST /_emulator/...`): no key, no envelope; `status` says how it went. */
  control?: boolean;
  /** The key presented, as given: masked when shown, never kept past the ring. */
  key: unknown;
  /** The envelope's code; null when no envelope was sent. */
  code: number | null;
  /** HTTP status sent; 0 when the connection was dropped or left hanging. */
  status: number;
  /** The fault injected, if any. */
  fault: string | null;
  /** Milliseconds from the request read in full to its answer written (a fault's delay included). */
  ms: number;
  /** The query string and form body as sent (the key in them is masked when shown); the ring keeps at most KEPT_CHARS of each. */
  query: string;
  body: string;
  /** The envelope answered; null when none was (a visit, a fault that answered itself). */
  answer: string | null;
}

/** How much of a request's query, body and answer the ring keeps: enough to read, never a megabyte per entry. */
export const KEPT_CHARS = 4096;

/** `text` when short, else a copy of its start: a slice alone would keep the whole string alive. */
function kept(text: string): string {
  return text.length <= KEPT_CHARS ? text : Buffer.from(text.slice(0, KEPT_CHARS)).toString();
}

/** The topics a request can change, one bit each. */
const DATA_TOPICS: readonly Topic[] = ['messages', 'links', 'campaigns', 'accounts'];
const bits = (...topics: Topic[]) => topics.reduce((b, t) => b | (1 << DATA_TOPICS.indexOf(t)), 0);

/** What a successful operation changes, by catalog id. */
const WRITES: Record<string, number> = {
  'link.create': bits('links'),
  'link.update': bits('links'),
  'link.delete': bits('links', 'campaigns'),
  'message.send': bits('messages', 'links', 'campaigns', 'accounts'),
};
/**
 * By the path as clients spell it (`Link/Create`) and in lower case, so the
 * request path looks one up without making a string; other spellings are
 * lower-cased first. Reads are there too, with no bits.
 */
const WRITE_BITS = new Map<string, number>();
for (const op of OPERATIONS) {
  const path = `${op.module}/${op.operation}`;
  for (const spelled of [path, path.toLowerCase()]) WRITE_BITS.set(spelled, WRITES[op.id] ?? 0);
}
const LINKS = bits('links');

const LOG_SIZE = 500;
/** How soon a page hears of a change to what it shows: one event for a burst. */
const FLUSH_MS = 50;
/**
 * How often a page hears of requests that changed nothing but the log: under
 * load a request log redrawn 20 times a second would compete with the
 * requests for the CPU, and no one reads faster.
 */
const LOG_EVERY_MS = 1000;
const HEARTBEAT_MS = 20_000;
/** How often a database file is looked at for other processes' writes (--sandbox commands). */
const COMMIT_POLL_MS = 500;
/** Longest wait for a status to come due before looking again (the clock may be moved meanwhile). */
const MAX_DUE_WAIT_MS = 30_000;
const MAX_WATCHERS = 64;

export class Activity {
  readonly #ring: Array<LogEntry | undefined> = new Array(LOG_SIZE);
  /** Entries recorded so far; the newest is at (#count - 1) % LOG_SIZE. */
  #count = 0;
  /** Entries looked at by #flush so far. */
  #flushed = 0;
  /** When the last event went out (performance.now()). */
  #lastSent = 0;
  readonly #pending = new Set<Topic>();
  /** Topics changed by requests since the last event, as bits of DATA_TOPICS. */
  #dirty = 0;
  readonly #watchers = new Set<ServerResponse>();
  #flushTimer: NodeJS.Timeout | null = null;
  #dueTimer: NodeJS.Timeout | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #commitPoll: NodeJS.Timeout | null = null;
  /** The database's data_version when last looked at. */
  #dataVersion = 0;
  #closed = false;

  constructor(
    readonly db: Database,
    readonly clock: Clock,
  ) {}

  /** Called for every request answered (the hot path): one push. */
  record(entry: LogEntry): void {
    if (entry.query.length > KEPT_CHARS) entry.query = kept(entry.query);
    if (entry.body.length > KEPT_CHARS) entry.body = kept(entry.body);
    if (entry.answer !== null && entry.answer.length > KEPT_CHARS) entry.answer = kept(entry.answer);
    this.#ring[this.#count % LOG_SIZE] = entry;
    this.#count++;
    if (this.#watchers.size === 0) return;
    if (entry.visit) this.#dirty |= LINKS;
    else if (entry.code === 0) this.#dirty |= WRITE_BITS.get(entry.op) ?? WRITE_BITS.get(entry.op.toLowerCase()) ?? 0;
    if (this.#flushTimer === null) this.#flushTimer = setTimeout(this.#flush, FLUSH_MS);
  }

  /** The last `n` entries that `keep` takes, newest first, each with its number in the log (an id for as long as it is kept). */
  recent(n = LOG_SIZE, keep: (e: LogEntry) => boolean = () => true): Array<{ seq: number; entry: LogEntry }> {
    const out: Array<{ seq: number; entry: LogEntry }> = [];
    for (let i = this.#count - 1; i >= Math.max(0, this.#count - LOG_SIZE) && out.length < n; i--) {
      const entry = this.#ring[i % LOG_SIZE]!;
      if (keep(entry)) out.push({ seq: i, entry });
    }
    return out;
  }

  /** How many entries the log holds now (at most LOG_SIZE). */
  get size(): number {
    return Math.min(this.#count, LOG_SIZE);
  }

  clearLog(): void {
    this.#ring.fill(undefined);
    this.#count = 0;
    this.#flushed = 0;
  }

  /** Tells every page that `topics` changed (controls, reset, statuses come due). */
  changed(topics: readonly Topic[]): void {
    for (const t of topics) this.#pending.add(t);
    if (this.#watchers.size === 0) {
      this.#pending.clear();
      return;
    }
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer);
    this.#flushTimer = setTimeout(this.#flush, 0);
  }

  get watchers(): number {
    return this.#watchers.size;
  }

  /** Answers GET /_emulator/events: a server-sent event stream until the page goes away. */
  watch(req: IncomingMessage, res: ServerResponse): void {
    if (this.#closed || this.#watchers.size >= MAX_WATCHERS) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' });
      res.end('too many pages are watching; close some\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    // Reconnect soon after a restart of serve.
    res.write('retry: 1000\n\n');
    this.#watchers.add(res);
    if (this.#watchers.size === 1) this.#start();
    const gone = () => {
      this.#watchers.delete(res);
      if (this.#watchers.size === 0) this.#stop();
    };
    req.on('close', gone);
    res.on('close', gone);
  }

  /** Ends every stream and timer (the emulator is closing). */
  close(): void {
    this.#closed = true;
    for (const res of this.#watchers) res.end();
    this.#watchers.clear();
    this.#stop();
  }

  #start(): void {
    this.#flushed = this.#count;
    this.#dirty = 0;
    this.#heartbeat = setInterval(() => this.#send(': ping\n\n'), HEARTBEAT_MS);
    if (this.db.path !== ':memory:') {
      this.#dataVersion = this.db.dataVersion();
      this.#commitPoll = setInterval(() => {
        const version = this.db.dataVersion();
        if (version === this.#dataVersion) return;
        this.#dataVersion = version;
        this.changed(['messages', 'links', 'campaigns', 'accounts']);
      }, COMMIT_POLL_MS);
    }
    this.#scheduleDue();
  }

  #stop(): void {
    for (const t of [this.#flushTimer, this.#dueTimer]) if (t !== null) clearTimeout(t);
    for (const t of [this.#heartbeat, this.#commitPoll]) if (t !== null) clearInterval(t);
    this.#flushTimer = this.#dueTimer = this.#heartbeat = this.#commitPoll = null;
    this.#pending.clear();
  }

  #flush = (): void => {
    this.#flushTimer = null;
    if (this.#count > this.#flushed) this.#pending.add('log');
    DATA_TOPICS.forEach((t, i) => {
      if (this.#dirty & (1 << i)) this.#pending.add(t);
    });
    this.#dirty = 0;
    const requests = this.#count > this.#flushed;
    this.#flushed = this.#count;
    if (this.#pending.size === 0) return;
    const now = performance.now();
    if (this.#pending.size === 1 && this.#pending.has('log') && now - this.#lastSent < LOG_EVERY_MS) {
      // Looked at again soon: a write arriving meanwhile still goes out within FLUSH_MS.
      this.#flushTimer = setTimeout(this.#flush, FLUSH_MS);
      return;
    }
    this.#lastSent = now;
    this.#send(`event: change\ndata: ${JSON.stringify({ topics: [...this.#pending] })}\n\n`);
    this.#pending.clear();
    if (requests) this.#scheduleDue();
  };

  #send(text: string): void {
    for (const res of this.#watchers) res.write(text);
  }

  /** Wakes when the next planned status change of any message comes due, applies it and tells the pages. */
  #scheduleDue(): void {
    if (this.#dueTimer !== null) clearTimeout(this.#dueTimer);
    this.#dueTimer = null;
    if (this.#watchers.size === 0) return;
    const next = this.db.select('SELECT min(next_ts) AS t FROM messages WHERE next_ts IS NOT NULL')[0]?.t;
    if (typeof next !== 'number') return;
    const wait = Math.min(Math.max(next - this.clock.now(), 0) + 5, MAX_DUE_WAIT_MS);
    this.#dueTimer = setTimeout(() => {
      this.#dueTimer = null;
      if (this.db.advance(this.clock.now()) > 0) this.changed(['messages', 'campaigns']);
      this.#scheduleDue();
    }, wait);
  }

  /** After the clock moved or messages were delivered: whatever came due is applied and shown. */
  clockMoved(): void {
    this.db.advance(this.clock.now());
    this.changed(['messages', 'campaigns', 'links', 'controls']);
    this.#scheduleDue();
  }
}
