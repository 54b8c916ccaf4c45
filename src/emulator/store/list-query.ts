// What Link/List and Message/List ask of the database: conditions (fixed SQL
// fragments, their values bound, never spliced), the order and the page. The
// handlers fill one in from validated input (service/list-query.ts); the
// pager (pager.ts) finds the page.

import type { SqlValue } from './connection.js';

/** One key of an ORDER BY: a column of the table and its direction. */
export interface SortKey {
  column: string;
  desc: boolean;
}

export class ListQuery {
  readonly where: string[] = [];
  readonly params: SqlValue[] = [];
  /** The order, ending with id, which makes it total; newest id first until sortBy. */
  order: SortKey[] = [{ column: 'id', desc: true }];

  /** `page` counts from 0; a page past the end is empty. */
  constructor(
    readonly pageSize: number,
    readonly page: number,
  ) {}

  /** Adds a condition and the values of its `?`s. */
  add(sql: string, ...params: SqlValue[]): void {
    this.where.push(sql);
    this.params.push(...params);
  }

  /**
   * Orders by `keys`; ties go by id in the direction of the last key (so one
   * (account_id, column) index, which ends with the row id, serves the whole order).
   */
  sortBy(keys: readonly SortKey[]): void {
    const upToId = keys.findIndex((k) => k.column === 'id');
    const order = upToId >= 0 ? keys.slice(0, upToId + 1) : [...keys, { column: 'id', desc: keys.at(-1)?.desc ?? true }];
    this.order = order;
  }
}
