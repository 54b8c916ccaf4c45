// `smslink link update <link>`: changes a link's status, expiry or comment.
// The service clears the expiry whenever it is not sent, so the current one
// is read and resent unless the command changes it.

import { linkGet, linkUpdate } from '../../catalog/link.js';
import type { Link } from '../../catalog/types.js';
import { ApiError } from '../../client/errors.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { invalidValue } from '../../output/words.js';
import { printDryRun } from '../shared/dry-run.js';
import { inputFrom } from '../shared/operation.js';
import { ALLOW_PAST, checkExpiry } from './expiry.js';
import { getInput, linkNotFound, parseLinkRef, readLink } from './ref.js';

/** The flags of `link update` that change something. */
const UPDATE_FLAGS = '--status, --expires, --no-expiry or --comment';

async function update(ctx: RunContext, opts: CliValues, typed: string): Promise<number> {
  if (opts.expires !== undefined && opts.expiry === false) throw new UsageError('use either --expires or --no-expiry, not both');
  const ref = parseLinkRef(typed);
  const changes = inputFrom(linkUpdate, [undefined], opts, [], ctx.now());
  delete changes.id;
  if (Object.keys(changes).length === 0 && opts.expiry !== false) throw new UsageError(`link update ${typed}: nothing to change; give ${UPDATE_FLAGS}`);
  // The service reads an empty parameter as one not given (real-service-notes.md): the link would keep its comment.
  if (changes.comment === '') {
    throw new UsageError(invalidValue('--comment', '', 'the service reads an empty comment as none given and keeps the current one; it cannot clear a comment'));
  }
  checkExpiry(ctx.now(), changes, opts);
  const view = await ctx.view(linkUpdate);
  const client = await ctx.client();
  // Check what the user typed before reading anything.
  client.prepare(linkUpdate, { ...changes, id: 'id' in ref ? ref.id : 1 });
  const keepCurrent = opts.expires === undefined && opts.expiry !== false;
  const readFirst = keepCurrent || !('id' in ref);
  if (ctx.globals.dryRun) {
    const requests = readFirst ? [client.prepare(linkGet, getInput(ref))] : [];
    requests.push(client.prepare(linkUpdate, { ...changes, id: 'id' in ref ? ref.id : 1 }));
    const notes: string[] = [];
    if (!('id' in ref)) notes.push(`Link/Get finds the id of "${typed}" first (id 1 above stands for it)`);
    if (keepCurrent) notes.push('its expirationDate, status and comment are resent unless given');
    await printDryRun(ctx, requests, notes.length ? { note: notes.join('; ') } : {});
    return EXIT.OK;
  }
  let current: Link | undefined;
  if (readFirst) current = await readLink(client, ref);
  const id = current?.id ?? (ref as { id: number }).id;
  const input: Record<string, unknown> = { ...changes, id };
  if (keepCurrent && current) {
    // Link/Update clears the expiry when data[expirationDate] is omitted (service-api.md): resend the current one.
    if (current.expirationDate) input.expirationDate = current.expirationDate;
    input.status ??= current.status;
    if (current.comment !== null && current.comment !== undefined) input.comment ??= current.comment;
  }
  let result: { shortLink?: string | null };
  try {
    result = await client.call(linkUpdate, input);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) throw await linkNotFound(client, [ref.typed]);
    throw err;
  }
  // The live service answers `true`: unless the link was read before, read it back to show it as it now is.
  const after = result.shortLink || current ? undefined : await client.call(linkGet, { id });
  const shown: Record<string, unknown> = { id, shortLink: result.shortLink ?? after?.shortLink ?? current?.shortLink ?? null };
  // What the service now holds: read back, or what was sent (the expiry is cleared when not sent).
  shown.status = after?.status ?? input.status;
  shown.expirationDate = after ? after.expirationDate : (input.expirationDate ?? null);
  shown.comment = after?.comment ?? input.comment ?? current?.comment;
  await renderRecord(ctx.stdout, view, Object.fromEntries(Object.entries(shown).filter(([, v]) => v !== undefined)));
  return EXIT.OK;
}

export const LINK_UPDATE: CommandDef = {
  path: ['link', 'update'],
  operation: linkUpdate,
  flags: (cmd) => cmd.option('--no-expiry', 'remove the expiry date: the link works indefinitely').option(...ALLOW_PAST),
  about: `Link/Update on the service clears the expiry date whenever it is not sent.
smslink protects you from that: without --expires it first reads the link
and resends its current expiry date, status and comment. Use --no-expiry to
remove the expiry on purpose.`,
  examples: [
    'smslink link update 417863 --status inactive',
    'smslink link update https://sho.rt/ddoj --comment "spring"',
    'smslink link update 417863 --expires 2026-12-31',
    'smslink link update 417863 --no-expiry',
    'smslink link update 417863 --comment "moved to spring campaign"',
  ],
  run: (ctx, opts, [ref]) => update(ctx, opts, ref as string),
};
