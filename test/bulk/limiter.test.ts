// How a bulk run paces requests: never more than --concurrency in flight,
// never more than --rate started in a second, and Ctrl-C ends a wait at once.
// The rate is checked on a fake clock (vitest's timers, performance.now
// included): each start lands on the millisecond the limiter chose, however
// busy the machine is.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter } from '../../src/bulk/limiter.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fake clock for one test: setTimeout and performance.now move only when the test moves them. */
function fakeClock() {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => void vi.useRealTimers());
}

/** Runs `work` to its end on the fake clock, moving it on as far as the timers it sets ask. */
async function onFakeClock<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const result = work.finally(() => (done = true));
  while (!done) await vi.runOnlyPendingTimersAsync();
  return result;
}

/** Starts `n` tasks the way the bulk run does; returns when all have ended. */
async function drive(limiter: Limiter, n: number, task: (i: number) => Promise<void>, signal?: AbortSignal): Promise<number> {
  let started = 0;
  for (let i = 0; i < n; i++) {
    await limiter.ready();
    if (signal?.aborted) break;
    started += 1;
    limiter.start(() => task(i));
  }
  await limiter.idle();
  return started;
}

describe('Limiter', () => {
  it('keeps at most `concurrency` tasks running, and runs them all', async () => {
    const limiter = new Limiter(4, 0);
    let running = 0;
    let most = 0;
    const ended: number[] = [];
    await drive(limiter, 40, async (i) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(i % 3);
      running -= 1;
      ended.push(i);
    });
    expect(most).toBe(4);
    expect(ended.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(limiter.running).toBe(0);
  });

  it('a task that fails frees its slot', async () => {
    const limiter = new Limiter(1, 0);
    const started = await drive(limiter, 3, () => Promise.reject(new Error('boom')));
    expect(started).toBe(3);
    expect(limiter.running).toBe(0);
  });

  describe('on a fake clock', () => {
    fakeClock();

    it('starts at most `rate` tasks in each second', async () => {
      const limiter = new Limiter(8, 3);
      const startedAt: number[] = [];
      const t0 = performance.now();
      await onFakeClock(drive(limiter, 7, async () => void startedAt.push(performance.now() - t0)));
      // 3 at once, 3 a second later, the last a second after that.
      expect(startedAt).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
    });

    it('no one-second window holds more than `rate` starts, whenever they come (a sliding window, not one per clock second)', async () => {
      const limiter = new Limiter(8, 3);
      const startedAt: number[] = [];
      const t0 = performance.now();
      const task = async () => void startedAt.push(performance.now() - t0);
      // One start, then a burst late in the first second: a window per second would let 3 more out at 1000 ms.
      await onFakeClock(drive(limiter, 1, task));
      await vi.advanceTimersByTimeAsync(800);
      await onFakeClock(drive(limiter, 6, task));
      expect(startedAt).toEqual([0, 800, 800, 1000, 1800, 1800, 2000]);
    });

    it('a request counts from its answer: one answered late (it reached the service late) holds the rate-th start after it a second past that answer', async () => {
      const limiter = new Limiter(8, 2);
      const startedAt: number[] = [];
      const t0 = performance.now();
      // The first request takes 300 ms (a connection to open, say); the others answer at once.
      await onFakeClock(
        drive(limiter, 4, async (i) => {
          startedAt.push(performance.now() - t0);
          if (i === 0) await sleep(300);
        }),
      );
      expect(startedAt).toEqual([0, 0, 1300, 1300]);
    });

    it('an abort ends a wait for the next second at once, and nothing more starts', async () => {
      const ac = new AbortController();
      const limiter = new Limiter(4, 1, ac.signal);
      let ended = false;
      const run = drive(limiter, 5, async () => undefined, ac.signal).finally(() => (ended = true));
      // The second start waits for the next second; 50 ms into it, Ctrl-C.
      await vi.advanceTimersByTimeAsync(50);
      expect(ended).toBe(false);
      ac.abort();
      await vi.advanceTimersByTimeAsync(0);
      expect(ended).toBe(true);
      expect(await run).toBe(1);
    });
  });

  it('run() gives callers that ask at once a slot each, never more than `concurrency`', async () => {
    const limiter = new Limiter(2, 0);
    let running = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.run(async () => {
          running += 1;
          most = Math.max(most, running);
          await sleep(5);
          running -= 1;
          return i;
        }),
      ),
    );
    expect(results).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('an abort ends a wait for a free slot at once: the slot is never freed, and the wait ends', async () => {
    const ac = new AbortController();
    const limiter = new Limiter(1, 0, ac.signal);
    let release: () => void = () => undefined;
    setTimeout(() => ac.abort(), 50);
    let started = 0;
    for (let i = 0; i < 3; i++) {
      await limiter.ready();
      if (ac.signal.aborted) break;
      started += 1;
      limiter.start(() => new Promise<void>((resolve) => (release = resolve)));
    }
    expect(started).toBe(1);
    expect(limiter.running).toBe(1);
    release();
    await limiter.idle();
  });
});
