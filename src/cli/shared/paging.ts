// Listing with pages: one page by default, or --all / --limit to follow pages
// until totalItemCount is reached, writing items as each page arrives; a
// page of a longer list says so on stderr. Several values of a flag the wire
// takes one of (`--status undelivered,rejected`) are one list each, merged in
// the list's order as their pages arrive.

import type { Command } from 'commander';
import { columnsFor } from '../../catalog/columns.js';
import { PAGE_SIZES } from '../../catalog/shared.js';
import type { OperationSpec, Page } from '../../catalog/types.js';
import type { RunContext } from '../core/context.js';
import { dryRun } from './dry-run.js';
import { sayCurrency } from './currency.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { flagOf } from '../core/exit.js';
import { inputFrom, severalInputs } from './operation.js';
import type { CliValues, CommandDef } from '../core/command.js';
import { RowWriter } from '../../output/format.js';
import { allOfThem, count, showing } from '../../output/words.js';

/** The command of a list operation: one page, or --all / --limit pages; `what` names the items (`links`). */
export function listCommand(op: OperationSpec & { command: readonly string[] }, what: string, about: string | undefined, examples: readonly string[]): CommandDef {
  return {
    path: op.command,
    operation: op,
    alias: 'ls',
    flags: (cmd: Command) =>
      cmd
        .option('--all', 'follow every page until all items are listed (page size 100 unless given)')
        .option('--limit <n>', 'stop after n items (implies --all)'),
    about,
    examples,
    run: (ctx, opts) => listPages(ctx, op, inputFrom(op, [], opts, [], ctx.now()), opts, what),
  };
}

function parseLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--limit: invalid value "${value}": must be a whole number of 1 or more`);
  return n;
}

async function listPages(ctx: RunContext, op: OperationSpec, input: Record<string, unknown>, opts: CliValues, what: string): Promise<number> {
  const limit = parseLimit(opts.limit);
  const following = opts.all === true || limit !== undefined;
  // Always sent: the contract gives no default page size, and the footer's page count needs the real one.
  input.pageSize ??= following ? 100 : PAGE_SIZES[0];
  const several = severalInputs(op, input);
  if (several && input.currentPage !== undefined) {
    throw new UsageError(`--page cannot be combined with several ${flagOf(`${op.module}/${op.operation}`, several.param.key)} values (one list each, merged): use --limit <n> for the first n, or --all`);
  }
  if (ctx.globals.dryRun) return (await dryRun(ctx, op, several ? several.inputs.map((i) => ({ ...i, currentPage: 0 })) : input), EXIT.OK);
  ctx.page();
  // The fields sorted by stay in sight: `link list --sort expires` shows the expiry it is in the order of.
  const sorted = input.sort !== null && typeof input.sort === 'object' ? Object.keys(input.sort) : [];
  const view = await ctx.view(op, { columns: columnsFor(op, input), asked: sorted });
  await sayCurrency(ctx, view);
  const writer = new RowWriter(ctx.stdout, view, { holdJson: true });
  const pageSize = Number(input.pageSize);
  const firstPage = Number(input.currentPage ?? 0);
  let page = firstPage;
  let seen = 0;
  let total = 0;
  if (several) {
    // Every value is checked before the first request: a typo in the last one sends nothing.
    const client = await ctx.client();
    for (const i of several.inputs) client.prepare(op, i);
    const merged = await mergedLists(ctx, op, several.inputs, listOrder(input.sort));
    total = merged.total;
    const max = limit ?? (following ? Infinity : pageSize);
    let batch: Record<string, unknown>[] = [];
    for await (const item of merged.items) {
      batch.push(item);
      seen += 1;
      if (batch.length === pageSize) {
        await writer.write(batch);
        batch = [];
      }
      if (seen >= max) break; // before the merge reads on: no page past the last item shown
    }
    await writer.write(batch);
  } else {
    for await (const got of pagesOf(ctx, op, input, page)) {
      ({ page, total } = got);
      const take = limit !== undefined ? got.items.slice(0, limit - seen) : got.items;
      await writer.write(take);
      seen += take.length;
      if (!following || (limit !== undefined && seen >= limit)) break;
    }
  }
  await writer.end();
  const more = !following && seen < total;
  // Past the end is not a failure (a script paging until it finds nothing is done), but a person is told where the end is.
  if (seen === 0 && total > 0 && page * pageSize >= total) {
    const pages = Math.ceil(total / pageSize);
    ctx.note(`page ${page} is past the last page (${count(pages, 'page')}, ${total} ${what}); the last is --page ${pages - 1}${pageSize === PAGE_SIZES[0] ? '' : ` at --page-size ${pageSize}`}`);
  }
  // A script (stdout not a terminal) must not take one page for the whole list: stderr says so, stdout stays clean.
  else if (more && !ctx.io.stdout.isTTY) ctx.note(`${seen} of ${total} ${what} shown; add --all for every page`);
  else if (view.format === 'table' && !view.quiet) {
    if (seen === 0) ctx.note(`No ${what} found.`);
    else if (more && page * pageSize + seen < total) {
      const first = page * pageSize + 1;
      const next = several ? `--limit ${Math.min(total, seen + pageSize)}` : `--page ${page + 1}`;
      ctx.note(`${showing(first, seen, total, what)}. Next: \`${next}\`, or \`--all\` for every page.`);
    }
    // --limit asked for n; a person is told that there are more, and how to see them all.
    else if (limit !== undefined && firstPage * pageSize + seen < total) ctx.note(`${showing(firstPage * pageSize + 1, seen, total, what)}. ${allOfThem('--all')}`);
  }
  return EXIT.OK;
}

/** The pages of a list from `first` on, until one is empty or totalItemCount is reached. */
async function* pagesOf(ctx: RunContext, op: OperationSpec, input: Record<string, unknown>, first: number) {
  const pageSize = Number(input.pageSize);
  for (let page = first; ; page++) {
    const result = (await (await ctx.client()).call(op, { ...input, currentPage: page })) as Page<Record<string, unknown>> | null;
    const items = Array.isArray(result?.items) ? result.items : [];
    const total = Number(result?.totalItemCount ?? items.length);
    yield { page, items, total };
    if (items.length === 0 || page * pageSize + items.length >= total) return;
  }
}

/**
 * Several lists merged in `order` (each already in it, as the service sorts
 * it), read a page of each at a time as the merge reaches it: a long --all
 * streams, and --limit n reads no further into any list than n items. The
 * total is the sum of their totalItemCounts.
 */
async function mergedLists(ctx: RunContext, op: OperationSpec, inputs: Record<string, unknown>[], order: (a: Record<string, unknown>, b: Record<string, unknown>) => number) {
  const lists = inputs.map((input) => ({ pages: pagesOf(ctx, op, input, 0), items: [] as Record<string, unknown>[], at: 0, done: false, total: 0 }));
  /** Reads the list's next page once the one it holds is used up. */
  const fill = async (list: (typeof lists)[number]) => {
    while (list.at >= list.items.length && !list.done) {
      const next = await list.pages.next();
      if (next.done) {
        list.done = true;
      } else {
        ({ items: list.items, total: list.total } = next.value);
        list.at = 0;
      }
    }
  };
  // One after another, as the requests of a single list go.
  for (const list of lists) await fill(list);
  async function* items() {
    for (;;) {
      let first: (typeof lists)[number] | undefined;
      for (const list of lists) if (list.at < list.items.length && (!first || order(list.items[list.at], first.items[first.at]) < 0)) first = list;
      if (!first) return;
      yield first.items[first.at++];
      await fill(first);
    }
  }
  return { total: lists.reduce((sum, l) => sum + l.total, 0), items: items() };
}

/**
 * The order the service gives a list, to merge several into one: by the
 * --sort fields, ties by id in the direction of the last one; without
 * --sort, newest (highest id) first. A missing value comes first going up,
 * as SQL puts NULLs (the emulator's ORDER BY, src/emulator/service/list-query.ts).
 */
export function listOrder(sort: unknown): (a: Record<string, unknown>, b: Record<string, unknown>) => number {
  const fields = Object.entries((sort ?? {}) as Record<string, string>).map(([field, dir]) => [field, dir.toUpperCase() === 'DESC' ? -1 : 1] as const);
  const keys = [...fields, ['id', fields.length ? fields[fields.length - 1][1] : -1] as const];
  return (a, b) => {
    for (const [field, sign] of keys) {
      const c = compareValues(a[field], b[field]);
      if (c !== 0) return sign * c;
    }
    return 0;
  };
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
