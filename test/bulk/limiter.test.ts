// How a bulk run paces requests: never more than --concurrency in flight,
// never more than --rate started in a second, and Ctrl-C ends a wait at once.
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/bulk/limiter.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  it('starts at most `rate` tasks in each second', async () => {
    const limiter = new Limiter(8, 3);
    const startedAt: number[] = [];
    const t0 = Date.now();
    await drive(limiter, 7, async () => {
      startedAt.push(Date.now() - t0);
    });
    // 3 at once, 3 a second later, the last a second after that.
    expect(startedAt.filter((t) => t < 900)).toHaveLength(3);
    expect(startedAt.filter((t) => t >= 950 && t < 1900)).toHaveLength(3);
    expect(startedAt.filter((t) => t >= 1950)).toHaveLength(1);
  });

  it('no one-second window holds more than `rate` starts, whenever they come (a sliding window, not one per clock second)', async () => {
    const limiter = new Limiter(8, 3);
    const startedAt: number[] = [];
    const t0 = Date.now();
    const task = async () => void startedAt.push(Date.now() - t0);
    // One start, then a burst late in the first second: a window per second would let 3 more out at 1000 ms.
    await drive(limiter, 1, task);
    await sleep(800);
    await drive(limiter, 6, task);
    expect(startedAt).toHaveLength(7);
    for (let i = 3; i < startedAt.length; i++) expect(startedAt[i] - startedAt[i - 3], `start ${i}`).toBeGreaterThanOrEqual(1000);
  });

  it('a request counts from its answer: one answered late (it reached the service late) holds the rate-th start after it a second past that answer', async () => {
    const limiter = new Limiter(8, 2);
    const startedAt: number[] = [];
    const t0 = performance.now();
    // The first request takes 300 ms (a connection to open, say); the others answer at once.
    await drive(limiter, 4, async (i) => {
      startedAt.push(performance.now() - t0);
      if (i === 0) await sleep(300);
    });
    expect(startedAt[2]).toBeGreaterThanOrEqual(1300);
    expect(startedAt[3] - startedAt[1]).toBeGreaterThanOrEqual(1000);
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

  it('an abort ends a wait for the next second at once, and nothing more starts', async () => {
    const ac = new AbortController();
    const limiter = new Limiter(4, 1, ac.signal);
    setTimeout(() => ac.abort(), 50);
    const t0 = Date.now();
    const started = await drive(limiter, 5, async () => undefined, ac.signal);
    expect(started).toBe(1);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it('an abort ends a wait for a free slot at once', async () => {
    const ac = new AbortController();
    const limiter = new Limiter(1, 0, ac.signal);
    let release: () => void = () => undefined;
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 50);
    let started = 0;
    for (let i = 0; i < 3; i++) {
      await limiter.ready();
      if (ac.signal.aborted) break;
      started += 1;
      limiter.start(() => new Promise<void>((resolve) => (release = resolve)));
    }
    expect(started).toBe(1);
    expect(Date.now() - t0).toBeLessThan(500);
    release();
    await limiter.idle();
  });
});
