// The emulator as a test bench, while it runs: back to the seed (reset), the
// clock moved ahead, faults switched on or off, one message given its final
// status, readers waiting for a message. The library (reset() and friends),
// the control API and the inspector's buttons all come here.

import { ALL_TOPICS, type Activity, type LogEntry } from '../inspector/activity.js';
import { KeyRing } from '../service/api-keys.js';
import type { ShiftedClock } from './clock.js';
import { DEFAULT_FAULTS, faultInjector, faultItems, FAULT_KINDS, parseFaults, type FaultInjector, type FaultKind } from './faults.js';
import { pendingSeconds } from '../inspector/inspect.js';
import { applySeed, type SeedCounts } from './seed-apply.js';
import type { Seed } from './seed.js';
import type { ServerParts, ServiceHooks } from '../server.js';
import { forcedStages, type Forceable } from '../service/lifecycle.js';
import { Waiters } from './waiters.js';
import { quoted } from '../../output/text.js';

export interface FaultState {
  /** Probability (0..1) that a /service/ request gets a fault; 0 is off. */
  rate: number;
  /** The faults drawn from, one an item as `--faults` spells it: what setFaults() and POST /_emulator/faults take back. */
  kinds: string[];
  /** Faults injected since start, by kind. */
  counts: Record<FaultKind, number>;
}

/** The longest move of the clock at once: ten years. */
export const MAX_ADVANCE_S = 10 * 366 * 86_400;

export interface BenchParts {
  parts: ServerParts;
  clock: ShiftedClock;
  keys: string[];
  seed: Seed;
  /** Hooks the caller gave (startEmulator's `hooks`), run after the faults'. */
  hooks: ServiceHooks | null;
  faultSeed: number;
  activity: Activity | null;
}

/** Runs the hooks of `a`, then those of `b`, each step stopping at the first that took over. */
export function combineHooks(a: ServiceHooks | null, b: ServiceHooks | null): ServiceHooks | null {
  if (!a || !b) return a ?? b;
  return {
    before: async (x) => ((await a.before?.(x)) ?? false) || ((await b.before?.(x)) ?? false),
    after: async (x, answer) => ((await a.after?.(x, answer)) ?? false) || ((await b.after?.(x, answer)) ?? false),
  };
}

export class Bench {
  readonly #b: BenchParts;
  #accounts: number[] = [];
  #faults: FaultInjector | null = null;
  #rate = 0;
  #kinds = faultItems(DEFAULT_FAULTS);
  #closed = false;
  /** Counts of the injectors replaced so far. */
  readonly #earlier = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;

  /** Readers of the control API waiting for a message. */
  readonly waiters: Waiters;

  constructor(b: BenchParts) {
    this.#b = b;
    this.waiters = new Waiters(b.parts.settings.db);
  }

  get keys(): readonly string[] {
    return this.#b.keys;
  }

  /** Account id of each key, in the order of `keys`. */
  get accounts(): readonly number[] {
    return this.#accounts;
  }

  /** Creates the accounts (in key order) and the key ring, then writes the seed. The database must be empty for a seed. */
  open(withSeed: boolean): SeedCounts {
    const { parts, clock, keys } = this.#b;
    const db = parts.settings.db;
    const now = clock.now();
    parts.keys = new KeyRing(keys, (digest) => db.account(digest, now));
    // The ring made each key's account: asked again by key, not hashed and looked up twice.
    this.#accounts = keys.map((k) => parts.keys.account(k)!);
    if (!withSeed) return { links: 0, campaigns: 0, messages: 0 };
    return applySeed(parts.settings, this.#b.seed, (key) => this.#accounts[key === null ? 0 : keys.indexOf(key)], now);
  }

  /** Empties the database and writes the seed again; the clock goes back to the one underneath, the request log is cleared. */
  reset(): SeedCounts {
    this.#b.clock.shiftMs = 0;
    this.#b.parts.settings.db.reset();
    const counts = this.open(true);
    this.#b.activity?.clearLog();
    this.#b.activity?.changed(ALL_TOPICS);
    return counts;
  }

  /** Moves the clock `seconds` ahead; what comes due is applied. Returns the new time (ms). */
  advance(seconds: number): number {
    if (!(Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_ADVANCE_S)) {
      throw new RangeError(`advance must be a number of seconds from 0 to ${MAX_ADVANCE_S} (got ${seconds})`);
    }
    this.#b.clock.shiftMs += Math.round(seconds * 1000);
    const now = this.#b.clock.now();
    this.#b.parts.settings.db.advance(now);
    this.#b.activity?.clockMoved();
    return now;
  }

  /** Gives every message on its way its final status now; the clock stays where it is. Returns how many messages changed. */
  deliver(): number {
    const delivered = this.#b.parts.settings.db.deliverNow(this.#b.clock.now());
    this.#b.activity?.clockMoved();
    return delivered;
  }

  /**
   * Gives one message (any account's) `status` now, as its lifecycle would
   * (lifecycle.ts forcedStages): the clock stays. Returns the status it had,
   * and whether it changed (not when it already had that status); null when
   * there is no such message.
   */
  setStatus(id: number, status: Forceable): { previous: string; changed: boolean } | null {
    const db = this.#b.parts.settings.db;
    const now = this.#b.clock.now();
    db.advance(now);
    const found = db.messageSlots(id);
    if (!found) return null;
    if (found.status === status) return { previous: status, changed: false };
    db.replanMessage(id, forcedStages(found.slots, status, now), now);
    this.#b.activity?.clockMoved();
    return { previous: found.status, changed: true };
  }

  /** Puts a request of the control API in the request log (the inspector's, serve's lines). */
  record(entry: LogEntry): void {
    this.#b.parts.record?.(entry);
  }

  /** Seconds the clock must move for every message on its way to reach its final status. */
  pendingSeconds(): number {
    return pendingSeconds(this.#b.parts.settings);
  }

  /** Switches faults on (rate > 0, drawn from `kinds`, default all but stall) or off (rate 0). Throws RangeError for bad values. */
  setFaults(rate: number, kinds?: string | readonly string[]): FaultState {
    if (!(typeof rate === 'number' && rate >= 0 && rate <= 1)) throw new RangeError(`rate must be a probability from 0 to 1 (got ${quoted(rate)})`);
    const list = kinds === undefined ? this.#kinds : faultItems(kinds);
    parseFaults(list);
    this.#retire();
    this.#rate = rate;
    this.#kinds = list;
    this.#faults = rate > 0 ? faultInjector({ faultRate: rate, faults: list, seed: this.#b.faultSeed }) : null;
    // No hooks at all keeps the request path synchronous (server.ts).
    this.#b.parts.hooks = combineHooks(this.#faults, this.#b.hooks);
    this.#b.activity?.changed(['controls']);
    return this.faults();
  }

  faults(): FaultState {
    const counts = { ...this.#earlier };
    for (const k of FAULT_KINDS) counts[k] += this.#faults?.counts[k] ?? 0;
    return { rate: this.#rate, kinds: [...this.#kinds], counts };
  }

  #retire(): void {
    if (!this.#faults) return;
    for (const k of FAULT_KINDS) this.#earlier[k] += this.#faults.counts[k];
    this.#faults.dispose();
    this.#faults = null;
  }

  /** Whether the emulator is closing (dispose() was called). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Refuses a library call (`method`) once the emulator is closing: it would reach a closed database, or arm faults no request meets. */
  whileOpen(method: string): void {
    if (this.#closed) throw new Error(`${method}: the emulator is closed`);
  }

  /** Drops requests held by a `stall` fault and answers readers still waiting (the emulator is closing). */
  dispose(): void {
    this.#closed = true;
    this.#retire();
    this.waiters.close();
  }
}
