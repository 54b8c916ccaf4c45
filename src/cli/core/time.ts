// Times as typed on the command line, as the service's `YYYY-MM-DD
// HH:MM:SS`: one parser and one rule for every time flag (TIME_HELP, `smslink
// help time`; 7d back, +2h ahead), in the machine's local time, the clock the
// deferred-send window is checked with (and the sandbox's zone). Durations
// (90s, 10m) for waits and intervals.

import { formatDateTime, parseDateTime } from '../../catalog/rules.js';
import { TIMES } from '../../catalog/shared.js';
import { UsageError } from '../../exit-codes.js';
import { ago, fromNow } from '../../output/words.js';

export interface TimeRules {
  /**
   * Where a date alone (and a time without seconds) is filled to: the start
   * of the day (00:00:00, HH:MM:00) or its end (23:59:59, HH:MM:59). Without
   * it a date alone is refused: `--at 2026-12-01` names no moment.
   */
  fill?: 'start' | 'end';
}

/** The one place the forms of a time and the rule of a sign are written; every time flag's help points here. */
export const TIME_HELP = `Times

Every time flag (--since, --until, --created-from, --created-to, --sent-from,
--sent-to and the other message list ranges, --at, --expires, sync --since)
takes the same forms, in your machine's local time:

  2026-12-01             a day: from its start, or to its end for --until
                         and the -to flags
  "2026-12-01 09:00"     a time (seconds may follow: 09:00:30)
  09:00                  today at that time
  now                    now
  7d  12h  30m  2w       that long ago (d days, h hours, m minutes, w weeks)
  +2h  +3d               that long from now

A time without a sign counts back: --since 7d is 7 days ago, and -7d is the
same. Ahead takes a +: --at +2h sends in 2 hours (--at 2h would be 2 hours
ago, and is refused). A flag the service takes as a day (--created-from,
--expires) uses the day the time falls on. Days and weeks move on the
calendar (the same clock time); minutes and hours are elapsed time.
`;


/** m minutes, h hours, d days, w weeks. No months or years: their length varies, and `m` would be ambiguous. */
const RELATIVE = /^([+-]?)(\d{1,6})(m|h|d|w)$/;
const ABSOLUTE = /^(\d{4}-\d{2}-\d{2})(?:[ T]+(\d{2}:\d{2})(:\d{2})?)?$/;
const CLOCK = /^(\d{2}:\d{2})(:\d{2})?$/;

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

/** A time of day, filled to its minute's start or end when it has no seconds. */
const clockTime = (hourMinute: string, seconds: string | undefined, fill: TimeRules['fill']) => `${hourMinute}${seconds ?? (fill === 'end' ? ':59' : ':00')}`;

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
    const moved = shift(now, (sign === '+' ? 1 : -1) * Number(count), unit);
    return Number.isNaN(moved.getTime()) ? null : real(formatDateTime(moved));
  }
  const clock = CLOCK.exec(s);
  if (clock) return real(`${formatDateTime(now).slice(0, 10)} ${clockTime(clock[1], clock[2], rules.fill)}`);
  const abs = ABSOLUTE.exec(s);
  if (!abs) return null;
  const [, day, hourMinute, seconds] = abs;
  if (!hourMinute) return rules.fill ? real(`${day} ${rules.fill === 'start' ? '00:00:00' : '23:59:59'}`) : null;
  return real(`${day} ${clockTime(hourMinute, seconds, rules.fill)}`);
}

/** Whether a time was typed as an amount back or ahead of now (7d, 12h, +2h), not as a date, a clock time or `now`. */
export function isRelativeTime(text: string): boolean {
  return RELATIVE.test(text.trim());
}

/** The forms a time flag accepts, for its error message. */
export function timeForms(rules: TimeRules = {}): string {
  return `${rules.fill ? 'YYYY-MM-DD, ' : ''}"YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead); ${TIMES}`;
}

/**
 * Why a value is no time, for every time and date flag: one written in a
 * form that names no real moment (2026-02-30, 25:00) is said to be so; any
 * other value, the forms.
 */
export function timeRule(value: string, rules: TimeRules = {}): string {
  const s = value.trim();
  const abs = ABSOLUTE.exec(s);
  const what = abs && (abs[2] || rules.fill) ? (abs[2] ? 'a real date and time' : 'a real date') : CLOCK.test(s) ? 'a real time of day' : 'a time';
  return `must be ${what}: ${timeForms(rules)}`;
}

/** Parses a time flag's value; a value it cannot read is a usage error that names the flag and lists the forms. */
export function timeFlag(flag: string, value: string, now: Date, rules: TimeRules = {}): string {
  const parsed = parseTime(value, now, rules);
  if (parsed === null) throw new UsageError(`${flag}: invalid value "${value}": ${timeRule(value, rules)}`);
  return parsed;
}

/**
 * A date flag's value (`--expires`, `--created-from`): any time form, as the
 * day it falls on; anything else as typed, for the catalog's check
 * (YYYY-MM-DD) to name along with every other problem.
 */
export function dayOf(value: string, now: Date): string {
  return parseTime(value, now, { fill: 'start' })?.slice(0, 10) ?? value;
}

/**
 * What a typed time stood for, for a message that quotes it as typed:
 * `2 h ago, 2026-11-26 20:22:59` for a relative one, the wire time for
 * another form; nothing when it was typed as the wire writes it.
 */
export function meaning(typed: string, wire: string, now: Date): string | undefined {
  const s = typed.trim();
  if (s === wire) return undefined;
  const rel = RELATIVE.exec(s);
  if (!rel) return wire;
  const seconds = Math.round(Math.abs(wallMs(wire) - wallMs(formatDateTime(now))) / 1000);
  return `${rel[1] === '+' ? fromNow(seconds) : ago(seconds)}, ${wire}`;
}

/** A typed time for a message: quoted as typed, with what it stood for: `"+7d" (in 7 d, 2026-12-03 19:10:43)`. */
export function quoteTime(typed: string, wire: string, now: Date): string {
  const stood = meaning(typed, wire, now);
  return `"${typed}"${stood === undefined ? '' : ` (${stood})`}`;
}

/** One end of a time range as the user gave it: the flag, what was typed, and the time it stood for. */
export interface TypedTime {
  flag: string;
  typed: string;
  wire: string;
}

/** The refusal of a range that ends before it starts, both ends quoted as typed: `--until: invalid value "8d" (...): must not be before --since "7d" (...)`. */
export function reversedRange(from: TypedTime, to: TypedTime, now: Date): UsageError {
  return new UsageError(`${to.flag}: invalid value ${quoteTime(to.typed, to.wire, now)}: must not be before ${from.flag} ${quoteTime(from.typed, from.wire, now)}`);
}

/**
 * For a time refused for being past where only the future will do (--at,
 * --expires): the same time ahead, when it was typed without a sign, which
 * counts back (`2h` -> ` (did you mean +2h? ...)`); else nothing.
 */
export function aheadHint(typed: string): string {
  const rel = RELATIVE.exec(typed.trim());
  return rel && rel[1] === '' ? ` (did you mean +${typed.trim()}? a time without + counts back)` : '';
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
  if (!m) throw new UsageError(`${flag}: invalid value "${value}": must be a duration such as 90s, 10m or 1h`);
  if (Number(m[1]) <= 0) throw new UsageError(`${flag}: invalid value "${value}": must be more than 0, such as 90s, 10m or 1h`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 's']);
}

/** Waits ms, or less when the signal aborts (no listener is left behind). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  const { setTimeout: wait } = await import('node:timers/promises');
  await wait(ms, undefined, { signal }).catch(() => undefined);
}
