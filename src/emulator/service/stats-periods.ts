// Link/GetStats: the interval rules of service-api.md and the live row shape.
// Intervals are worked out in wall-clock time of the account zone, so a day
// or a month is a calendar day or month whatever daylight saving does.

import { statsSpan } from '../../catalog/link.js';
import type { StatsType } from '../../catalog/link.js';
import { DAY_MS, formatWall } from './time-zone.js';

export interface WallInterval {
  /** Wall ms, start included. */
  start: number;
  /** Wall ms, end excluded. */
  end: number;
}

const SECOND = 1000;

function floorPeriod(type: StatsType, wall: number): number {
  switch (type) {
    case 'minute':
      return Math.floor(wall / 60_000) * 60_000;
    case 'hourly':
      return Math.floor(wall / 3_600_000) * 3_600_000;
    case 'daily':
      return Math.floor(wall / DAY_MS) * DAY_MS;
    case 'monthly': {
      const d = new Date(wall);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
  }
}

function nextPeriod(type: StatsType, start: number): number {
  switch (type) {
    case 'minute':
      return start + 60_000;
    case 'hourly':
      return start + 3_600_000;
    case 'daily':
      return start + DAY_MS;
    case 'monthly': {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
  }
}

function label(type: StatsType, start: number): string {
  const s = formatWall(start);
  switch (type) {
    case 'monthly':
      return s.slice(0, 7);
    case 'daily':
      return s.slice(0, 10);
    case 'hourly':
      return `${s.slice(0, 13)}:00`;
    case 'minute':
      return s.slice(0, 16);
  }
}

/**
 * The interval a request asks for (service-api.md Link/GetStats):
 * 1. neither dateFrom nor dateTo: the last maximum interval (ending with the current period);
 * 2. only dateFrom, or dateTo further than the maximum from dateFrom: the maximum interval from dateFrom;
 * 3. only dateTo: the maximum interval ending at dateTo.
 * dateTo names a second and includes it.
 */
export function requestedInterval(type: StatsType, from: number | null, to: number | null, nowWall: number): WallInterval {
  if (from === null && to === null) {
    const end = nextPeriod(type, floorPeriod(type, nowWall));
    return { start: statsSpan(type, end, -1), end };
  }
  if (from !== null && (to === null || to > statsSpan(type, from))) return { start: from, end: statsSpan(type, from) };
  if (from === null) return { start: statsSpan(type, to! + SECOND, -1), end: to! + SECOND };
  return { start: from, end: to! + SECOND };
}

export interface Period {
  start: number;
  end: number;
  label: string;
}

/** Every period that overlaps the interval, empty ones included. */
export function periods(type: StatsType, interval: WallInterval): Period[] {
  const out: Period[] = [];
  for (let start = floorPeriod(type, interval.start); start < interval.end; ) {
    const end = nextPeriod(type, start);
    out.push({ start, end, label: label(type, start) });
    start = end;
  }
  return out;
}

/** Index of the period holding a wall time, or -1. */
export function periodIndex(list: Period[], wall: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (wall < list[mid].start) hi = mid - 1;
    else if (wall >= list[mid].end) lo = mid + 1;
    else return mid;
  }
  return -1;
}
