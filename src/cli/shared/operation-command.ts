// The command of a catalog operation that needs nothing of its own: input
// from its arguments and flags, --dry-run, one call, the result printed as
// a record or rows. An operation added to the catalog with a `command` gets
// this one until it is given a definition of its own (src/cli/commands.ts).

import { columnsFor } from '../../catalog/columns.js';
import type { OperationSpec } from '../../catalog/types.js';
import type { CommandDef } from '../core/command.js';
import { ApiError } from '../../client/errors.js';
import { EXIT, ExitError } from '../../exit-codes.js';
import { renderRecord, renderRows, type Row } from '../../output/format.js';
import { sayCurrency } from './currency.js';
import { dryRun } from './dry-run.js';
import { inputFrom } from './operation.js';

export interface OperationCommandExtras {
  about?: string;
  examples?: readonly string[];
  /** What a table says when there are no rows, from the input (`no links in campaign 9001`). */
  none?: (input: Record<string, unknown>) => string;
  /** What the service's not-found (code 2) means, from the input: exit 6 with these words (words.ts notFound). */
  notFound?: (input: Record<string, unknown>) => string;
}

export function operationCommand(op: OperationSpec & { command: readonly string[] }, extras: OperationCommandExtras = {}): CommandDef {
  return {
    path: op.command,
    operation: op,
    about: extras.about,
    examples: extras.examples ?? [],
    async run(ctx, opts, args) {
      const input = inputFrom(op, [...args], opts, [], ctx.now());
      const view = await ctx.view(op, { columns: columnsFor(op, input) });
      if (ctx.globals.dryRun) return (await dryRun(ctx, op, input), EXIT.OK);
      await sayCurrency(ctx, view);
      ctx.page();
      const result = await (await ctx.client()).call(op, input).catch((err: unknown) => {
        if (extras.notFound && err instanceof ApiError && err.isNotFound) throw new ExitError(extras.notFound(input), EXIT.NOT_FOUND);
        throw err;
      });
      if (op.output.rows === 'self') return (await renderRecord(ctx.stdout, view, result as Row), EXIT.OK);
      const rows = (op.output.rows === 'items' ? (result as { items?: Row[] }).items : result) as Row[] | undefined;
      if (!rows?.length && view.format === 'table' && !view.quiet) ctx.note(extras.none?.(input) ?? 'Nothing found.');
      else await renderRows(ctx.stdout, view, rows ?? []);
      return EXIT.OK;
    },
  };
}
