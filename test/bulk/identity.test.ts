// The index a bulk run keeps of its rows and of its journal's: every row is
// known again by its key however large the table grew, rows with the same
// values get keys of their own, and rows sent before whose values are gone
// from the file are found. A wrong answer here is a row skipped as done, or
// sent twice: these run in memory, over enough rows to make the table grow.
import { describe, expect, it } from 'vitest';
import { canonical, rowKey, RowIndex } from '../../src/bulk/identity.js';

const link = (i: number) => canonical({ fullLink: `https://example.com/${i}` });

describe('the index of rows', () => {
  it('keys 60,000 rows as the journal does, numbers repeated values, and keeps every state as it grows', () => {
    // No room made: from 1,024 slots the table doubles seven times.
    const index = new RowIndex();
    const keys: string[] = [];
    // Rows 45,000 on repeat the values of rows 0 to 14,999.
    for (let i = 0; i < 60_000; i++) keys.push(index.key(link(i % 45_000)));
    expect(keys[7]).toBe(rowKey(link(7)));
    expect(keys[45_007]).toBe(rowKey(link(7), 2));
    expect(new Set(keys).size).toBe(60_000);
    const states = ['done', 'failed', 'unknown', 'sending'] as const;
    keys.forEach((key, i) => index.setState(key, states[i % 4]));
    // What an earlier run recorded of rows this input does not have.
    for (let i = 0; i < 15_000; i++) index.setState(rowKey(link(1_000_000 + i)), 'done');
    expect(keys.every((key, i) => index.state(key) === states[i % 4])).toBe(true);
    expect(index.state(rowKey(link(1_000_007)))).toBe('done');
    expect(index.state(rowKey(link(2_000_000)))).toBeUndefined();
    expect(index.state(rowKey(link(7), 3))).toBeUndefined();
    const counts = new Map<string, number>();
    index.forEachState((s) => counts.set(s, (counts.get(s) ?? 0) + 1));
    expect(Object.fromEntries(counts)).toEqual({ done: 30_000, failed: 15_000, unknown: 15_000, sending: 15_000 });
    index.clearStates();
    expect(index.state(keys[0])).toBeUndefined();
    // Read again from the start, the rows get the same keys.
    index.restartCounts();
    expect(Array.from({ length: 60_000 }, (_, i) => index.key(link(i % 45_000)))).toEqual(keys);
  });

  it('finds the rows sent before whose values no row of the input has now, repeated ones included, and pairs each once', () => {
    const index = new RowIndex(10);
    // An earlier run sent rows 0 to 999, and twice the values of row 5; row 999 failed.
    for (let i = 0; i < 1000; i++) index.setState(rowKey(link(i)), i === 999 ? 'failed' : 'done');
    index.setState(rowKey(link(5), 2), 'done');
    // The input now has rows 500 to 1,099 once each.
    for (let i = 500; i < 1100; i++) index.key(link(i));
    // Gone: rows 0 to 499 and the second row with the values of row 5; not the failed row 999, which nobody got.
    expect(index.markGone()).toBe(501);
    expect(index.isGone(rowKey(link(3)))).toBe(true);
    expect(index.isGone(rowKey(link(5), 2))).toBe(true);
    expect(index.isGone(rowKey(link(600)))).toBe(false);
    expect(index.isGone(rowKey(link(999)))).toBe(false);
    index.pairGone(rowKey(link(3)));
    expect(index.isGone(rowKey(link(3)))).toBe(false);
    expect(index.state(rowKey(link(3)))).toBe('done');
  });

  it('refuses a key that is no digest, as a journal line forged or cut would carry', () => {
    const index = new RowIndex();
    expect(() => index.setState('not a digest', 'done')).toThrow('not a digest');
    expect(() => index.state('ééééééééééééééééééééé')).toThrow('not a digest');
  });
});
