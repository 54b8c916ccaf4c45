// The parts of Link/List and Message/List that read the wire's values: the
// page asked for, the sort map as columns, LIKE patterns and the instants of
// date criteria. The handlers add their conditions to the ListQuery
// (store/list-query.ts) these make.

import { parseDate, parseDateTime } from '../../catalog/rules.js';
import { ListQuery, type SortKey } from '../store/list-query.js';
import type { EmulatorSettings } from './handler.js';
import { wallOf } from './time-zone.js';

/** A query of the page that `pageSize` and `currentPage` name (25 a page from page 0 by default). */
export function listQuery(v: Record<string, unknown>): ListQuery {
  return new ListQuery((v.pageSize as number | undefined) ?? 25, (v.currentPage as number | undefined) ?? 0);
}

/**
 * The keys of a validated sort map (fields from the catalog's list, columns
 * from a fixed table), or `fallback` without one. Ties go by id (ListQuery.sortBy).
 */
export function sortKeys(sort: unknown, columns: Record<string, string>, fallback: SortKey[]): SortKey[] {
  const keys = Object.entries((sort ?? {}) as Record<string, 'ASC' | 'DESC'>).map(([field, dir]) => ({ column: columns[field], desc: dir === 'DESC' }));
  return keys.length === 0 ? fallback : keys;
}

/** A LIKE pattern (with ESCAPE '\') that finds `text` anywhere. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** First instant of a `YYYY-MM-DD` day, or of the second after a `YYYY-MM-DD HH:MM:SS` (for "up to and including"). */
export function instantOf(s: EmulatorSettings, value: string, endOfSecond = false): number {
  const parts = parseDateTime(value) ?? parseDate(value)!;
  return s.tz.fromWall(wallOf(parts)) + (endOfSecond ? 1000 : 0);
}
