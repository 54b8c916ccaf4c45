// The WHERE and ORDER BY of Link/List and Message/List: fixed SQL fragments
// with their values bound, never spliced, assembled from input the catalog
// has already validated. The database runs them (Database.listLinks,
// listMessages), caching each statement by its text.

import { parseDate, parseDateTime } from '../../catalog/rules.js';
import type { SqlValue } from '../store/connection.js';
import type { EmulatorSettings } from './handler.js';
import { wallOf } from './time-zone.js';

export class ListQuery {
  readonly where: string[] = [];
  readonly params: SqlValue[] = [];
  orderBy = '';
  readonly limit: number;
  readonly offset: number;

  /** A query of the page that `pageSize` and `currentPage` name (25 a page from page 0 by default). */
  constructor(v: Record<string, unknown>) {
    this.limit = (v.pageSize as number | undefined) ?? 25;
    const currentPage = (v.currentPage as number | undefined) ?? 0;
    this.offset = Math.min(currentPage * this.limit, Number.MAX_SAFE_INTEGER);
  }

  /** Adds a condition and the values of its `?`s. */
  add(sql: string, ...params: SqlValue[]): void {
    this.where.push(sql);
    this.params.push(...params);
  }

  /**
   * ORDER BY from a validated sort map; fields come from the catalog's list,
   * columns from a fixed table. Ties go by id in the direction of the last
   * field, so one (account_id, column) index serves the whole order.
   */
  sort(sort: unknown, columns: Record<string, string>, fallback: string): void {
    const parts = Object.entries((sort ?? {}) as Record<string, 'ASC' | 'DESC'>).map(([field, dir]) => `${columns[field]} ${dir === 'DESC' ? 'DESC' : 'ASC'}`);
    this.orderBy = parts.length === 0 ? fallback : `${parts.join(', ')}, id ${parts.at(-1)!.endsWith('DESC') ? 'DESC' : 'ASC'}`;
  }
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
