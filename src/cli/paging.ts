// Listing with pages: one page by default, or --all / --limit to follow pages
// until totalItemCount is reached, streaming items as each page arrives. A
// page of a longer list says so on stderr, for people and scripts alike.

import type { Command } from 'commander';
import { PAGE_SIZES } from '../catalog/shared.js';
import type { OperationSpec, Page } from '../catalog/types.js';
import type { RunContext } from './context.js';
import { callOperation, dryRun } from './common.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { inputFrom, type CliValues, type OperationCommand } from './operation.js';
import { plural } from '../output/text.js';

/** The command of a list operation: one page, or --all / --limit pages; `what` names the items (`links`). */
export function listCommand(op: OperationSpec, what: string, about: string | undefined, examples: readonly string[]): OperationCommand {
  return {
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
  if (ctx.globals.dryRun) return (await dryRun(ctx, op, input), EXIT.OK);
  ctx.page();
  const { RowWriter } = await import('../output/format.js');
  const view = await ctx.view(op);
  const writer = new RowWriter(ctx.stdout, view, { holdJson: true });
  let page = Number(input.currentPage ?? 0);
  let seen = 0;
  let total = 0;
  const pageSize = Number(input.pageSize);
  for (;;) {
    const result = (await callOperation(ctx, op, { ...input, currentPage: page })) as Page<Record<string, unknown>> | null;
    const items = Array.isArray(result?.items) ? result.items : [];
    total = Number(result?.totalItemCount ?? items.length);
    const take = limit !== undefined ? items.slice(0, limit - seen) : items;
    await writer.write(take);
    seen += take.length;
    if (!following) break;
    const reached = page * pageSize + items.length >= total;
    if (items.length === 0 || reached || (limit !== undefined && seen >= limit)) break;
    page += 1;
  }
  await writer.end();
  const more = !following && seen < total;
  // Past the end is not a failure (a script paging until it finds nothing is done), but a person is told where the end is.
  if (seen === 0 && total > 0 && page * pageSize >= total) {
    const pages = Math.ceil(total / pageSize);
    ctx.note(`page ${page} is past the last page (${plural(pages, 'page')}, ${total} ${what}); the last is --page ${pages - 1}${pageSize === PAGE_SIZES[0] ? '' : ` at --page-size ${pageSize}`}`);
  }
  // A script (stdout not a terminal) must not take one page for the whole list: stderr says so, stdout stays clean.
  else if (more && !ctx.io.stdout.isTTY) ctx.note(`${seen} of ${total} ${what} shown; add --all for every page`);
  else if (view.format === 'table' && !view.quiet) {
    if (seen === 0) ctx.note(`No ${what} found.`);
    else if (more && page * pageSize + seen < total) {
      const first = page * pageSize + 1;
      ctx.tableNote(`Showing ${first}-${first + seen - 1} of ${total} ${what}. Next: --page ${page + 1}, or --all for every page.`);
    }
  }
  return EXIT.OK;
}
