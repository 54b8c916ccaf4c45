// Wall-clock time in the account's time zone. The database keeps instants (ms
// since the epoch); the wire speaks `YYYY-MM-DD HH:MM:SS` in the account zone.
// "Wall ms" below are the wall-clock fields of a zone written as if they were
// UTC, which makes calendar arithmetic (days, months) plain integer work.

import type { DateParts } from '../../catalog/rules.js';

const OFFSET_BUCKET_MS = 15 * 60_000;
const OFFSET_CACHE_LIMIT = 4096;

/** Every spelling of UTC in the time zone database (any letter case); Intl names each of them "UTC". */
const UTC_NAMES = new Set(
  ['UTC', 'UCT', 'GMT', 'GMT0', 'Greenwich', 'Universal', 'Zulu'].flatMap((n) => [n, `Etc/${n}`]).map((n) => n.toLowerCase()),
);

export function isUtcName(name: string): boolean {
  return UTC_NAMES.has(name.toLowerCase());
}

/** Whether a TimeZone can be made of `name`: a zone the runtime knows, or a spelling of UTC. */
export function knownTimeZone(name: string): boolean {
  try {
    new TimeZone(name);
    return true;
  } catch {
    return false;
  }
}

/** Converts between instants and wall-clock time of one IANA time zone. */
export class TimeZone {
  readonly name: string;
  readonly #fmt: Intl.DateTimeFormat | null;
  readonly #offsets = new Map<number, number>();

  /** Throws RangeError for a zone name the runtime does not know. */
  constructor(name: string) {
    // The first use of Intl loads ICU's zone data (sandbox.ts plainlyUtc says how to time it); UTC needs none of it.
    if (isUtcName(name)) {
      this.name = 'UTC';
      this.#fmt = null;
      return;
    }
    this.#fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    this.name = this.#fmt.resolvedOptions().timeZone;
    // Other names Intl knows as UTC (Etc/GMT+0 ...): no offsets to compute either.
    if (isUtcName(this.name)) this.#fmt = null;
  }

  /** Wall ms minus instant ms at this instant. Zone changes fall on quarter hours, so a bucket cache is exact. */
  offsetAt(instant: number): number {
    if (this.#fmt === null) return 0;
    const bucket = Math.floor(instant / OFFSET_BUCKET_MS);
    let offset = this.#offsets.get(bucket);
    if (offset === undefined) {
      const start = bucket * OFFSET_BUCKET_MS;
      const p: Record<string, number> = {};
      for (const part of this.#fmt.formatToParts(start)) if (part.type !== 'literal') p[part.type] = Number(part.value);
      // Years before 100 would be mangled by Date.UTC; the offset is what matters.
      const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
      offset = wall - start;
      if (this.#offsets.size >= OFFSET_CACHE_LIMIT) this.#offsets.clear();
      this.#offsets.set(bucket, offset);
    }
    return offset;
  }

  toWall(instant: number): number {
    return instant + this.offsetAt(instant);
  }

  /** The instant a wall-clock time names (the later reading in a backward shift, shifted forward in a gap). */
  fromWall(wall: number): number {
    if (this.#fmt === null) return wall;
    const first = wall - this.offsetAt(wall);
    const second = wall - this.offsetAt(first);
    return second;
  }

  /** CheckContext.toInstant for the catalog's rules. */
  toInstant = (p: DateParts): Date => new Date(this.fromWall(wallOf(p)));

  /** `YYYY-MM-DD HH:MM:SS` in this zone. */
  format(instant: number): string {
    return formatWall(this.toWall(instant));
  }
}

export function wallOf(p: DateParts): number {
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(p.hour, p.minute, p.second, 0);
  return d.getTime();
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
const pad4 = (n: number) => String(n).padStart(4, '0');

export function formatWall(wall: number): string {
  const d = new Date(wall);
  return `${pad4(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(
    d.getUTCMinutes(),
  )}:${pad2(d.getUTCSeconds())}`;
}

export const DAY_MS = 86_400_000;
