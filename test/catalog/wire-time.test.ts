// The contract writes GetSMSStatus's times `YYYY-MM-DD HH-MM-SS` and Message/List's
// `HH:MM:SS`: message get narrows Message/List by the first, and the mirror keeps
// both in the second form, through one rule.
import { describe, expect, it } from 'vitest';
import { wireTime } from '../../src/catalog/rules.js';

describe('wireTime', () => {
  it('reads both of the contract\'s forms as the one Message/List takes', () => {
    expect(wireTime('2026-11-02 10-15-00')).toBe('2026-11-02 10:15:00');
    expect(wireTime('2026-11-02 10:15:00')).toBe('2026-11-02 10:15:00');
    expect(wireTime(' 2026-11-02T10:15:00 ')).toBe('2026-11-02 10:15:00');
  });

  it('gives nothing for what is not a time (null, a date alone, another form)', () => {
    for (const v of [null, undefined, '', '2026-11-02', '02.11.2026 10:15', 1_700_000_000]) expect(wireTime(v)).toBeUndefined();
  });
});
