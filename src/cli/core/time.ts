// Times as a person types them on the command line, turned into the
// service's `YYYY-MM-DD HH:MM:SS`. One parser for every time flag: absolute
// dates with or without seconds, `now`, and times relative to now (7d, +2h).
// Wall times are the machine's local time, the clock the CLI already checks
// the deferred-send window with (and the sandbox's zone). Durations (90s, 10m)
// for waits and intervals.

import { formatDateTime, parseDateTime } from '../../catalog/rules.js';
import { UsageError } from '../../exit-codes.js';

export interface TimeRules {
  /**
   * Where a date alone (and a time without seconds) is filled to: the start
   * of the day (00:00:00, HH:MM:00) or its end (23:59:59, HH:MM:59). Without
   * it a date alone is refused: `--at 2026-12-01` names no moment.
   */
  fill?: 'start' | 'end';
  /** How an unsigned relative time counts: `ago` (7d is 7 days ago; the default) or `ahead` (2h is in 2 hours). */
  relative?: 'ago' | 'ahead';
}

/** m minutes, h hours, d days, w weeks. No months or years: their length varies, and `m` would be ambiguous. */
const RELATIVE = /^([+-]?)(\d{1,6})(m|h|d|w)$/;
const ABSOLUTE = /^(\d{4}-\d{2}-\d{2})(?:[ T]+(\d{2}:\d{2})(:\d{2})?)?$/;

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Moves `now` by a relative amount: minutes and hours as elapsed time, days and weeks on the calendar (same clock time). */
function shift(now: Date, amount: number, unit: string): Date {
  if (unit === 'm') return new Date(now.getTime() + amount * MINUTE);
  if (unit === 'h') return new Date(now.getTime() + amount * HOUR);
  const d = new Date(now.getTime());
  d.setDate(d.getDate() + amount * (unit === 'w' ? 7 : 1));
  return d;
}

/** A wire time that names a real moment, else null. */
const real = (wire: string): string | null => (parseDateTime(wire) ? wire : null);

/**
 * `text` as `YYYY-MM-DD HH:MM:SS` in local time, or null when it is not a
 * time this parser reads (or names no real moment, like 2026-02-30).
 */
export function parseTime(text: string, now: Date, rules: TimeRules = {}): string | null {
  const s = text.trim();
  if (s.toLowerCase() === 'now') return formatDateTime(now);
  const rel = RELATIVE.exec(s);
  if (rel) {
    const [, sign, count, unit] = rel;
    const ahead = sign === '+' || (sign === '' && rules.relative === 'ahead');
    const moved = shift(now, (ahead ? 1 : -1) * Number(count), unit);
    return Number.isNaN(moved.getTime()) ? null : real(formatDateTime(moved));
  }
  const abs = ABSOLUTE.exec(s);
  if (!abs) return null;
  const [, day, hourMinute, seconds] = abs;
  if (!hourMinute) return rules.fill ? real(`${day} ${rules.fill === 'start' ? '00:00:00' : '23:59:59'}`) : null;
  return real(`${day} ${hourMinute}${seconds ?? (rules.fill === 'end' ? ':59' : ':00')}`);
}

/** The forms a time flag accepts, for its error message. */
export function timeForms(rules: TimeRules = {}): string {
  const absolute = `${rules.fill ? 'YYYY-MM-DD, ' : ''}"YYYY-MM-DD HH:MM:SS", "YYYY-MM-DD HH:MM"`;
  return rules.relative === 'ahead'
    ? `${absolute}, or a time from now such as +2h, +90m, +3d (m minutes, h hours, d days, w weeks)`
    : `${absolute}, now, or a time ago such as 7d, -2w, 12h, 30m (m minutes, h hours, d days, w weeks; +1d is ahead)`;
}

/** Parses a time flag's value; a value it cannot read is a usage error that names the flag and lists the forms. */
export function timeFlag(flag: string, value: string, now: Date, rules: TimeRules = {}): string {
  const parsed = parseTime(value, now, rules);
  if (parsed === null) throw new UsageError(`${flag}: invalid value "${value}": must be a real time: ${timeForms(rules)}`);
  return parsed;
}

/** The relative forms a date flag takes besides YYYY-MM-DD, for its error message. */
export const DAY_FORMS = 'or a time from now such as +30d, 2w, 36h (h hours, d days, w weeks)';

/**
 * A date flag's value (`--expires`): a time from now such as +30d, 2w, 36h
 * as the date it falls on; anything else as typed, for the catalog's check
 * (YYYY-MM-DD) to name along with every other problem.
 */
export function dayOf(value: string, now: Date): string {
  const s = value.trim();
  const parsed = RELATIVE.test(s) ? parseTime(s, now, { relative: 'ahead' }) : null;
  return parsed === null ? value : parsed.slice(0, 10);
}

/** A wire time as milliseconds on a wall clock (UTC arithmetic, so a day is always 24 hours). */
export function wallMs(wire: string): number {
  const p = parseDateTime(wire);
  if (!p) throw new RangeError(`not a wire time: ${wire}`);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The wire time of a wall-clock millisecond count (inverse of wallMs). */
export function wireOf(wall: number): string {
  return formatDateTime(new Date(wall), true);
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Durations like 90s, 10m, 1h, 500ms (a bare number is seconds). */
export function parseDuration(value: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m || Number(m[1]) <= 0) throw new UsageError(`${flag}: invalid value "${value}": must be a duration such as 90s, 10m or 1h`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 's']);
}

/** Waits ms, or less when the signal aborts (no listener is left behind). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  const { setTimeout: wait } = await import('node:timers/promises');
  await wait(ms, undefined, { signal }).catch(() => undefined);
}
