// `smslink link delete <link...>`: deletes links, after a question at a
// terminal. A delete that was retried may have been done by the attempt whose
// answer was lost: links then found gone count as deleted.

import { linkDelete, linkGet } from '../../catalog/link.js';
import { ApiError } from '../../client/errors.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { askFirst, canConfirm, idList, YES_OPTION } from '../core/prompt.js';
import { EXIT, PartialError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { count } from '../../output/words.js';
import { dryRun } from '../shared/dry-run.js';
import { collectIds } from '../shared/ids.js';
import { linkNotFound, linksNotFound, parseLinkRef, resolveLinks } from './ref.js';

async function deleteLinks(ctx: RunContext, opts: CliValues, refs: string[]): Promise<number> {
  const view = await ctx.view(linkDelete);
  const typed = await collectIds(ctx, refs);
  const client = await ctx.client();
  // No ids at all (an empty stdin) is the catalog's to refuse, naming the argument.
  if (typed.length === 0) client.prepare(linkDelete, { ids: [] });
  // Only ids go into Link/Delete: a dry run shows them as typed when they are, else resolves nothing.
  if (ctx.globals.dryRun && typed.every((t) => /^\d+$/.test(t))) return (await dryRun(ctx, linkDelete, { ids: typed }), EXIT.OK);
  // Before a question, every link is read, so that nothing is asked about a link that does not exist;
  // without one, Link/Delete itself says which ids it did not find.
  const asks = opts.yes !== true && canConfirm(ctx) && !ctx.globals.dryRun;
  const { links, missing } = await resolveLinks(client, typed, { check: asks, concurrency: 4 });
  if (links.length === 0) throw await linkNotFound(client, missing);
  const input = { ids: links.map((l) => String(l.id)) };
  if (ctx.globals.dryRun) {
    await dryRun(ctx, linkDelete, input);
    // As the run itself would end: the links not found named, exit 5.
    if (missing.length) throw new PartialError(await linksNotFound(client, missing));
    return EXIT.OK;
  }
  if (missing.length && asks) ctx.note(await linksNotFound(client, missing));
  const declined = await askFirst(ctx, opts, `Delete ${count(links.length, 'link')} (${idList(links.map((l) => l.typed))})?`, 'Nothing deleted.');
  if (declined !== undefined) return declined;
  const retriedBefore = ctx.retried;
  const result = await client.call(linkDelete, input);
  const processed = new Set(result.processed.map(String));
  let left = input.ids.filter((id) => !processed.has(String(Number(id))));
  if (left.length && ctx.retried > retriedBefore) {
    // The delete was retried: a first attempt whose answer was lost may have deleted these already.
    const gone = await Promise.all(left.map((id) => client.call(linkGet, { id: Number(id) }).then(() => false, (err: unknown) => err instanceof ApiError && err.isNotFound)));
    const deleted = left.filter((_, i) => gone[i]);
    if (deleted.length) {
      ctx.note(`${deleted.join(', ')}: not found after a retried delete; taken as deleted by the first attempt, whose answer was lost`);
      for (const id of deleted) result.processed.push(Number(id));
      left = left.filter((_, i) => !gone[i]);
    }
  }
  // Links the service did not delete are named as they were typed, in the order typed, with those not found before.
  const notDeleted = [...missing, ...links.filter((l) => left.includes(String(l.id))).map((l) => l.typed)].sort((a, b) => typed.indexOf(a) - typed.indexOf(b));
  if (result.processed.length === 0) throw await linkNotFound(client, notDeleted);
  if (view.format === 'table' && !view.quiet) ctx.stdout.write(`Deleted ${count(result.processed.length, 'link')}: ${result.processed.join(', ')}\n`);
  // notProcessed holds ids as the service gives them, and a code or short link not found as typed.
  else await renderRecord(ctx.stdout, view, { processed: result.processed, notProcessed: notDeleted.map((t) => { const ref = parseLinkRef(t); return 'id' in ref ? ref.id : t; }) });
  if (notDeleted.length) throw new PartialError(await linksNotFound(client, notDeleted));
  return EXIT.OK;
}

export const LINK_DELETE: CommandDef = {
  path: ['link', 'delete'],
  operation: linkDelete,
  alias: 'rm',
  flags: (cmd) => cmd.option(...YES_OPTION),
  about: `On a terminal it first asks "Delete 2 links (417863, 417864)? [y/N]"; any
answer but y or yes deletes nothing and exits 2. --yes skips the question;
nothing is asked when stdin is not a terminal (a pipe, a script) or with
--dry-run. Before the question, each link is looked up: nothing is asked
about a link that does not exist. Exit code 0 when every link was deleted, 6
when none was found (nothing asked, nothing deleted), 5 when some were not
(named on stderr, and in notProcessed as typed); --dry-run ends the same way.`,
  examples: [
    'smslink link delete 417863',
    'smslink link delete 417863 --yes',
    'smslink link delete 417863 417864,417865',
    'smslink link delete ddoj https://sho.rt/ddok --yes',
    'smslink link list --query old -q | smslink link delete -',
  ],
  run: (ctx, opts, [refs]) => deleteLinks(ctx, opts, refs as string[]),
};
