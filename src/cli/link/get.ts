// `smslink link get <link>`: one link, named by its id, code or short link.

import { linkGet } from '../../catalog/link.js';
import type { CommandDef, CliValues } from '../core/command.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { dryRun } from '../shared/dry-run.js';
import { getInput, parseLinkRef, readLink, type LinkRef } from './ref.js';

/** All digits = id, a URL = short link, otherwise a code; the catalog's --id, --code and --short-link say which it is. */
function refOf(typed: string, opts: CliValues): LinkRef {
  const forced = (['id', 'code', 'shortLink'] as const).filter((k) => opts[k] === true);
  if (forced.length > 1) throw new UsageError('use only one of --id, --code, --short-link');
  return parseLinkRef(typed, forced[0]);
}

export const LINK_GET: CommandDef = {
  path: ['link', 'get'],
  operation: linkGet,
  flags: (cmd) => cmd.argument('<link>', 'link id (all digits), short link (a URL) or code'),
  examples: ['smslink link get 417863', 'smslink link get ddoj', 'smslink link get https://sho.rt/ddoj', 'smslink link get 1234 --code', 'smslink link get 417863 --jq .shortLink'],
  async run(ctx, opts, [typed]) {
    const ref = refOf(typed as string, opts);
    if (ctx.globals.dryRun) return (await dryRun(ctx, linkGet, getInput(ref)), EXIT.OK);
    ctx.page();
    const view = await ctx.view(linkGet);
    await renderRecord(ctx.stdout, view, await readLink(await ctx.client(), ref));
    return EXIT.OK;
  },
};
