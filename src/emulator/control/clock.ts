// The emulator's sense of "now". Everything time-dependent (lifecycle,
// expiry, click times, deferred sends) reads one Clock, so tests can drive
// time by hand with ManualClock and get the same answers every run.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: number | Date = Date.UTC(2025, 0, 15, 10, 0, 0)) {
    this.#ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#ms;
  }

  /** Moves the clock forward (or back, with a negative value) by `ms`. */
  advance(ms: number): number {
    this.#ms += ms;
    return this.#ms;
  }

  set(ms: number | Date): number {
    this.#ms = typeof ms === 'number' ? ms : ms.getTime();
    return this.#ms;
  }
}

/**
 * The emulator's clock: another clock moved ahead by the control API
 * (`POST /_emulator/clock`), so pending messages can be delivered now while
 * the clock underneath (the system's, or a test's ManualClock) keeps going.
 */
export class ShiftedClock implements Clock {
  /** How far ahead of `base` this clock is, in ms. */
  shiftMs = 0;

  constructor(readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.shiftMs;
  }
}
