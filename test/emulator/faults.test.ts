import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFaults, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { encodeParams, serviceQuery } from '../helpers/emulator.js';

const dir = mkdtempSync(join(tmpdir(), 'smslink-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let dbCount = 0;

/** A faulty emulator and a clean one on the same database, to see what the faulty one really did. */
async function pair(opts: EmulatorOptions): Promise<{ faulty: RunningEmulator; clean: RunningEmulator; close(): Promise<void> }> {
  const db = join(dir, `f${dbCount++}.db`);
  const faulty = await startEmulator({ port: 0, db, apiKeys: ['k'], ...opts });
  const clean = await startEmulator({ port: 0, db, apiKeys: ['k'] });
  return { faulty, clean, close: async () => void (await Promise.all([faulty.close(), clean.close()])) };
}

interface Outcome {
  status?: number;
  text?: string;
  error?: string;
  headers?: Record<string, unknown>;
  ms: number;
}

/** One Link/Create; an answer is waited for as long as it takes (a stalled one: until the emulator closes). */
async function create(url: string, n: number): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await request(`${url}/service/Link/Create?${serviceQuery('k')}`, {
      method: 'POST',
      body: encodeParams({ data: { fullLink: `https://example.com/${n}` } }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text(), ms: performance.now() - started };
  } catch (err) {
    return { error: (err as Error).name, ms: performance.now() - started };
  }
}

async function linkCount(url: string): Promise<number> {
  const res = await request(`${url}/service/Link/List?${serviceQuery('k')}`, { method: 'POST', body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return Number(((await res.body.json()) as { data: { totalItemCount: string } }).data.totalItemCount);
}

describe('fault injection', () => {
  it('503 and code30 strike before the operation: nothing is done', async () => {
    for (const [fault, check] of [
      ['503', (o: Outcome) => expect([o.status, o.headers?.['retry-after']]).toEqual([503, '1'])],
      ['code30', (o: Outcome) => expect([o.status, JSON.parse(o.text!).code]).toEqual([200, 30])],
    ] as const) {
      const p = await pair({ faultRate: 1, faults: fault });
      try {
        check(await create(p.faulty.url, 1));
        expect(await linkCount(p.clean.url)).toBe(0);
        expect(p.faulty.faultCounts()[fault]).toBe(1);
      } finally {
        await p.close();
      }
    }
  });

  it('reset, 500, 502 and truncated strike after the operation: it was done', async () => {
    const checks: Record<string, (o: Outcome) => void> = {
      reset: (o) => expect(o.error).toBeDefined(),
      '500': (o) => expect(o.status).toBe(500),
      '502': (o) => expect([o.status, o.text]).toEqual([502, expect.stringContaining('Bad Gateway')]),
      truncated: (o) => {
        expect(o.status).toBe(200);
        expect(() => JSON.parse(o.text!)).toThrow();
        expect(o.text).toMatch(/^\{"code":0/);
      },
    };
    for (const [fault, check] of Object.entries(checks)) {
      const p = await pair({ faultRate: 1, faults: fault });
      try {
        check(await create(p.faulty.url, 1));
        expect(await linkCount(p.clean.url), fault).toBe(1);
      } finally {
        await p.close();
      }
    }
  });

  it('stall strikes after the operation and holds the answer; closing drops it rather than sit out the grace', async () => {
    // A grace longer than the test may take: a close that waited for the stalled answer would time the test out.
    const p = await pair({ faultRate: 1, faults: 'stall', limits: { closeGraceMs: 600_000 } });
    try {
      const pending = create(p.faulty.url, 1);
      await expect.poll(() => p.faulty.faultCounts().stall, { timeout: 10_000 }).toBe(1);
      expect(await linkCount(p.clean.url)).toBe(1);
      await p.faulty.close();
      // No answer ever came: the connection was cut.
      expect(await pending).toMatchObject({ error: expect.any(String) });
    } finally {
      await p.close();
    }
  });

  it('delays answers by the latency range', async () => {
    const p = await pair({ faultRate: 1, faults: 'latency:150-200ms' });
    try {
      const o = await create(p.faulty.url, 1);
      expect(JSON.parse(o.text!).code).toBe(0);
      // A lower bound a busy machine cannot break: the answer is held 150 ms at least, and the time counted encloses it.
      expect(o.ms).toBeGreaterThanOrEqual(140);
    } finally {
      await p.close();
    }
  });

  it('draws the same faults for the same seed, at about the given rate, and never on short links', async () => {
    const run = async (seed: number) => {
      const p = await pair({ faultRate: 0.2, faults: '503,code30,500,502', faultSeed: seed });
      try {
        const outcomes: string[] = [];
        for (let i = 0; i < 200; i++) {
          const o = await create(p.faulty.url, i);
          outcomes.push(o.status === 200 ? String(JSON.parse(o.text!).code) : String(o.status));
        }
        const code = ((await request(`${p.clean.url}/service/Link/Get?${serviceQuery('k')}&id=${await linkCount(p.clean.url)}`).then((r) => r.body.json())) as { data: { code: string } }).data.code;
        for (let i = 0; i < 50; i++) expect((await request(`${p.faulty.url}/${code}`)).statusCode).toBe(302);
        return outcomes;
      } finally {
        await p.close();
      }
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    expect(await run(7)).not.toEqual(first);
    const faulted = first.filter((o) => o !== '0').length;
    expect(faulted).toBeGreaterThan(20);
    expect(faulted).toBeLessThan(60);
  });

  it('parses fault lists and refuses unknown ones', () => {
    expect(parseFaults('latency:10-20ms, reset,503')).toEqual([{ kind: 'latency', minMs: 10, maxMs: 20 }, { kind: 'reset' }, { kind: '503' }]);
    expect(parseFaults(['latency:30ms'])).toEqual([{ kind: 'latency', minMs: 30, maxMs: 30 }]);
    expect(() => parseFaults('explode')).toThrow(/unknown fault "explode"/);
    expect(() => parseFaults('latency:20-10ms')).toThrow(/low to high/);
    expect(() => parseFaults('')).toThrow(/empty/);
  });

  it('refuses a fault rate outside 0..1', async () => {
    await expect(startEmulator({ port: 0, faultRate: 1.5 })).rejects.toThrow(/faultRate/);
  });
});
