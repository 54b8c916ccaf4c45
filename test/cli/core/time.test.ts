// The one parser of typed times (src/cli/time.ts): what each form becomes
// on the wire against a fixed clock, and what is refused.
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/exit-codes.js';
import { parseTime, timeFlag, wallMs, wireOf } from '../../../src/cli/core/time.js';

// Local time: the CLI sends the machine's wall clock.
const NOW = new Date(2026, 10, 20, 14, 30, 15);

describe('parseTime', () => {
  it.each([
    ['now', {}, '2026-11-20 14:30:15'],
    ['NOW', {}, '2026-11-20 14:30:15'],
    ['7d', {}, '2026-11-13 14:30:15'],
    ['-7d', {}, '2026-11-13 14:30:15'],
    ['+1d', {}, '2026-11-21 14:30:15'],
    ['2w', {}, '2026-11-06 14:30:15'],
    ['90m', {}, '2026-11-20 13:00:15'],
    ['12h', {}, '2026-11-20 02:30:15'],
    ['30d', {}, '2026-10-21 14:30:15'],
    [' 7d ', {}, '2026-11-13 14:30:15'],
    // One rule for every flag: without a sign back, with + ahead.
    ['2h', {}, '2026-11-20 12:30:15'],
    ['+2h', {}, '2026-11-20 16:30:15'],
    ['+90m', {}, '2026-11-20 16:00:15'],
    ['-2h', {}, '2026-11-20 12:30:15'],
    // HH:MM is today at that time, past or not.
    ['09:00', {}, '2026-11-20 09:00:00'],
    ['09:00', { fill: 'end' }, '2026-11-20 09:00:59'],
    ['23:15:30', { fill: 'end' }, '2026-11-20 23:15:30'],
    ['2026-11-24 03:00', {}, '2026-11-24 03:00:00'],
    ['2026-11-24 03:00', { fill: 'start' }, '2026-11-24 03:00:00'],
    ['2026-11-24 03:00', { fill: 'end' }, '2026-11-24 03:00:59'],
    ['2026-11-24 03:00:07', { fill: 'end' }, '2026-11-24 03:00:07'],
    ['2026-11-24T03:00', {}, '2026-11-24 03:00:00'],
    ['2026-11-24', { fill: 'start' }, '2026-11-24 00:00:00'],
    ['2026-11-24', { fill: 'end' }, '2026-11-24 23:59:59'],
  ] as const)('%j with %j is %s', (text, rules, wire) => {
    expect(parseTime(text, NOW, rules)).toBe(wire);
  });

  it('crosses month and year ends on the calendar', () => {
    expect(parseTime('1d', new Date(2026, 2, 1, 9, 0, 0))).toBe('2026-02-28 09:00:00');
    expect(parseTime('+1w', new Date(2026, 11, 28, 23, 59, 59))).toBe('2027-01-04 23:59:59');
  });

  it.each([
    ['2026-11-24', {}],
    ['2026-02-30 10:00', {}],
    ['2026-11-24 24:00', {}],
    ['2026-11-24 3:00', {}],
    ['2026-11-24 03:00:00Z', {}],
    ['tomorrow', {}],
    ['7D', {}],
    ['7 days', {}],
    ['1mo', {}],
    ['1y', {}],
    ['7', {}],
    ['d', {}],
    ['', {}],
    ['1234567d', {}],
    ['999999w', {}],
    ['24:00', {}],
    ['9:00', {}],
    ['09:60', {}],
  ] as const)('%j (%j) is not a time', (text, rules) => {
    expect(parseTime(text, NOW, rules)).toBeNull();
  });

  describe('across a daylight saving change', () => {
    const zone = process.env.TZ;
    afterEach(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });

    it('counts days on the calendar (same clock time) and hours as elapsed time', () => {
      // Europe/Berlin moves from 02:00 to 03:00 on 2026-03-29: that day has 23 hours.
      process.env.TZ = 'Europe/Berlin';
      const now = new Date(2026, 2, 29, 12, 0, 0);
      expect(parseTime('1d', now)).toBe('2026-03-28 12:00:00');
      expect(parseTime('24h', now)).toBe('2026-03-28 11:00:00');
    });
  });
});

describe('timeFlag', () => {
  it('returns the wire time', () => {
    expect(timeFlag('--since', '2d', NOW)).toBe('2026-11-18 14:30:15');
  });

  it('refuses what it cannot read with the flag, the value and the accepted forms', () => {
    const err = (() => {
      try {
        timeFlag('--since', 'last week', NOW, { fill: 'start' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe(
      '--since: invalid value "last week": must be a time: YYYY-MM-DD, "YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead); ' +
        'times: `smslink help time`',
    );
  });

  it('refuses a date alone where a moment is needed (--at), without offering it', () => {
    expect(() => timeFlag('--at', '2026-12-01', NOW)).toThrow(
      '--at: invalid value "2026-12-01": must be a time: "YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead); times: `smslink help time`',
    );
  });
});

it('wallMs and wireOf turn wire times into wall milliseconds and back', () => {
  expect(wallMs('2026-11-20 14:30:15')).toBe(Date.UTC(2026, 10, 20, 14, 30, 15));
  expect(wireOf(wallMs('2028-02-29 23:59:59') + 1000)).toBe('2028-03-01 00:00:00');
});
