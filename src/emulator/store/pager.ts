// Pages of Link/List and Message/List in time that does not grow with the
// account: the total is counted once and kept until the next write, and a
// page is read from the sort key of the row before it (keyset).
// docs/emulator-reference.md, "What a list page costs".

import type { SqlValue } from './connection.js';
import type { ListQuery, SortKey } from './list-query.js';
import type { Raw } from './rows.js';
import type { StatementCache } from './statements.js';

/** The sort key of a row (its values of the query's order, id last): a page starts after it. */
type Key = SqlValue[];

/** The start of the list, before its first row. */
const START = null;

/** A run of rows in the query's order: those after a key that share its first keys. */
interface Part {
  where: string[];
  params: SqlValue[];
  /** ORDER BY of the part: the keys after those it holds equal. */
  order: readonly SortKey[];
}

/** Queries whose page starts are kept, and pages kept of each: enough for a few lists followed at once. */
const QUERIES_KEPT = 32;
const PAGES_KEPT = 64;
const TOTALS_KEPT = 256;

const orderBy = (keys: readonly SortKey[]) => (keys.length === 0 ? '' : ` ORDER BY ${keys.map((k) => `${k.column} ${k.desc ? 'DESC' : 'ASC'}`).join(', ')}`);

/**
 * The rows after `after` in `order`, as parts in that order: first those
 * equal to it but in id, then those equal in all but the last sort key, ...,
 * then those after it in the first key. Each part is one index range: the
 * equal keys, then a range on the next. SQL puts NULL before any value: after
 * a NULL going up come the values, after a value going down come the NULLs
 * (of the `nullable` columns).
 */
function partsAfter(order: readonly SortKey[], nullable: ReadonlySet<string>, after: Key | typeof START): Part[] {
  if (after === START) return [{ where: [], params: [], order }];
  const parts: Part[] = [];
  for (let i = order.length - 1; i >= 0; i--) {
    const where: string[] = [];
    const params: SqlValue[] = [];
    for (let j = 0; j < i; j++) {
      if (after[j] === null) where.push(`${order[j].column} IS NULL`);
      else {
        where.push(`${order[j].column} = ?`);
        params.push(after[j]);
      }
    }
    const { column, desc } = order[i];
    const value = after[i];
    if (value === null) {
      if (!desc) parts.push({ where: [...where, `${column} IS NOT NULL`], params, order: order.slice(i) });
    } else {
      parts.push({ where: [...where, `${column} ${desc ? '<' : '>'} ?`], params: [...params, value], order: order.slice(i) });
      // Only where NULLs can be: SQLite walks the whole account to find none in a NOT NULL column.
      if (desc && nullable.has(column)) parts.push({ where: [...where, `${column} IS NULL`], params, order: order.slice(i + 1) });
    }
  }
  return parts;
}

/** A list of one account, as the pager reads it. */
interface Listing {
  table: string;
  nullable: ReadonlySet<string>;
  /** The columns of a row, then the sort key's. */
  select: string;
  keys: string;
  where: string[];
  params: SqlValue[];
  q: ListQuery;
}

/**
 * The sort key a page starts after is remembered from the page served
 * before it, so following pages is one index seek a page. A page no earlier
 * page led to skips rows once.
 */
export class Pager {
  readonly #statements: StatementCache;
  /** Totals by table, conditions and values. */
  readonly #totals = new Map<string, number>();
  /** By query (conditions, values, order, page size): the key each page starts after. */
  readonly #starts = new Map<string, Map<number, Key>>();
  /** The columns that may hold NULL, by table (the schema's, read once). */
  readonly #nullable = new Map<string, ReadonlySet<string>>();

  constructor(statements: StatementCache) {
    this.#statements = statements;
  }

  #nullableOf(table: string): ReadonlySet<string> {
    let columns = this.#nullable.get(table);
    if (!columns) {
      const info = this.#statements.get(`PRAGMA table_info(${table})`).all() as Array<{ name: string; notnull: number; pk: number }>;
      columns = new Set(info.filter((c) => c.notnull === 0 && c.pk === 0).map((c) => c.name));
      this.#nullable.set(table, columns);
    }
    return columns;
  }

  /** Every write calls this: kept totals and page starts may no longer be true. */
  forget(): void {
    this.#totals.clear();
    this.#starts.clear();
  }

  /** The page `q` asks for of the account's rows of `table` (each `columns`, then the sort key's values) and how many rows match in all. */
  list(table: string, columns: string, accountId: number, q: ListQuery): { rows: Raw[]; total: number } {
    const keys = q.order.map((k) => k.column).join(', ');
    const l: Listing = { table, nullable: this.#nullableOf(table), select: `${columns}, ${keys}`, keys, where: ['account_id = ?', ...q.where], params: [accountId, ...q.params], q };
    const filter = `${table}\n${l.where.join(' AND ')}\n${JSON.stringify(l.params)}`;
    const total = this.#total(l, filter);
    if (q.page * q.pageSize >= total) return { rows: [], total };
    const starts = this.#startsOf(`${filter}\n${orderBy(q.order)}\n${q.pageSize}`);
    const from = q.page === 0 ? START : (starts.get(q.page) ?? this.#skipTo(l, starts));
    // Written since the total was counted (another connection): past the end now.
    if (from === undefined) return { rows: [], total };
    const rows = this.#read(l, from);
    if (from !== START) remember(starts, q.page, from);
    if (rows.length === q.pageSize) remember(starts, q.page + 1, rows[rows.length - 1].slice(-q.order.length) as Key);
    return { rows, total };
  }

  #total(l: Listing, filter: string): number {
    let total = this.#totals.get(filter);
    if (total === undefined) {
      total = (this.#statements.get(`SELECT count(*) AS n FROM ${l.table} WHERE ${l.where.join(' AND ')}`).get(...l.params) as { n: number }).n;
      if (this.#totals.size >= TOTALS_KEPT) this.#totals.clear();
      this.#totals.set(filter, total);
    }
    return total;
  }

  #startsOf(query: string): Map<number, Key> {
    let starts = this.#starts.get(query);
    if (starts) this.#starts.delete(query);
    else starts = new Map();
    // Most recently used last; the least recently used goes first.
    this.#starts.set(query, starts);
    if (this.#starts.size > QUERIES_KEPT) this.#starts.delete(this.#starts.keys().next().value!);
    return starts;
  }

  /** The rows of the page that starts after `from`. */
  #read(l: Listing, from: Key | typeof START): Raw[] {
    const rows: Raw[] = [];
    for (const part of partsAfter(l.q.order, l.nullable, from)) {
      const need = l.q.pageSize - rows.length;
      if (need === 0) break;
      const sql = `SELECT ${l.select} FROM ${l.table} WHERE ${[...l.where, ...part.where].join(' AND ')}${orderBy(part.order)} LIMIT ?`;
      for (const row of this.#statements.get(sql, true).all(...l.params, ...part.params, need) as Raw[]) rows.push(row);
    }
    return rows;
  }

  /**
   * Where page q.page starts, found by skipping rows from the nearest page
   * before it whose start is known (else from the first row); undefined past the end.
   */
  #skipTo(l: Listing, starts: Map<number, Key>): Key | undefined {
    let known = 0;
    for (const page of starts.keys()) if (page < l.q.page && page > known) known = page;
    let skip = (l.q.page - known) * l.q.pageSize;
    for (const part of partsAfter(l.q.order, l.nullable, known === 0 ? START : starts.get(known)!)) {
      const where = [...l.where, ...part.where].join(' AND ');
      const params = [...l.params, ...part.params];
      const row = this.#statements.get(`SELECT ${l.keys} FROM ${l.table} WHERE ${where}${orderBy(part.order)} LIMIT 1 OFFSET ?`, true).get(...params, skip - 1);
      if (row !== undefined) return row as Key;
      // Fewer than `skip` rows in this part: count them (no more than `skip`) and go on past them.
      skip -= (this.#statements.get(`SELECT count(*) AS n FROM ${l.table} WHERE ${where}`).get(...params) as { n: number }).n;
    }
    return undefined;
  }
}

/** Keeps where `page` starts; the page kept longest goes first. */
function remember(starts: Map<number, Key>, page: number, key: Key): void {
  starts.delete(page);
  starts.set(page, key);
  if (starts.size > PAGES_KEPT) starts.delete(starts.keys().next().value!);
}
