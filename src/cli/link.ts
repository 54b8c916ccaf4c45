// `smslink link ...`: what the commands of the seven Link operations do
// beyond their catalog entries (src/cli/registrar.ts builds them).

import { parseDate } from '../catalog/rules.js';
import { linkCampaign, linkCreate, linkDelete, linkGet, linkList, linkStats, linkUpdate } from '../catalog/link.js';
import type { CampaignLink, DeleteLinksResult, Link } from '../catalog/types.js';
import type { RunContext } from './context.js';
import { callOperation, collectIds, dryRun, printDryRun } from './common.js';
import { LINK_STATS } from './link-stats.js';
import { EXIT, PartialError, UsageError } from '../exit-codes.js';
import { ApiError } from '../client/errors.js';
import { inputFrom, type CliValues, type NounCommands, type Positional } from './operation.js';
import { BULK_STOPS_HELP, bulkFlags, bulkHost, bulkOptions, columnSpec, rejectBulkFlagsWithoutFile } from './bulk.js';
import { listCommand } from './paging.js';
import { getInput, notFound, parseLinkRef, readLink, resolveLinkIds, type LinkRef } from './link-ref.js';
import { askFirst, idList, YES_OPTION } from './prompt.js';
import { plural } from '../output/text.js';

async function render(ctx: RunContext, op: typeof linkCreate | typeof linkGet | typeof linkUpdate, record: object): Promise<void> {
  const { renderRecord } = await import('../output/format.js');
  await renderRecord(ctx.stdout, await ctx.view(op), record as Record<string, unknown>);
}

async function renderList(ctx: RunContext, op: typeof linkCampaign, rows: object[], none: string): Promise<void> {
  const { renderRows } = await import('../output/format.js');
  const view = await ctx.view(op);
  if (rows.length === 0 && view.format === 'table' && !view.quiet) {
    ctx.note(none);
    return;
  }
  await renderRows(ctx.stdout, view, rows as Record<string, unknown>[]);
}

async function bulkCreate(ctx: RunContext, opts: CliValues): Promise<number> {
  const { runBulk } = await import('../bulk/engine.js');
  const defaults = inputFrom(linkCreate, [], opts, ['fullLink'], ctx.now());
  checkExpiry(ctx, defaults, opts);
  const spec = columnSpec(
    ctx,
    'link create',
    linkCreate,
    { columns: { fullLink: 'fullLink', status: 'status', expirationDate: 'expirationDate', comment: 'comment' }, required: ['fullLink'], defaults },
    {
      resultColumns: ['id', 'code', 'shortLink'],
      primary: 'shortLink',
    },
  );
  return runBulk(bulkHost(ctx), spec, bulkFlags(opts));
}

/** An expiry date before today makes a link that stops working at once: a mistake, unless --allow-past. */
function checkExpiry(ctx: RunContext, input: Record<string, unknown>, opts: CliValues): void {
  const date = input.expirationDate;
  // A date that is no date at all is the catalog's to report.
  if (typeof date !== 'string' || opts.allowPast === true || !parseDate(date)) return;
  const now = ctx.now();
  const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  if (date < today) throw new UsageError(`--expires: "${date}" is in the past: the link would stop working at once; give --allow-past if you mean it`);
}

const ALLOW_PAST = ['--allow-past', 'accept an --expires date in the past (the link stops working at once)'] as const;

/** `link get <ref>`: all digits = id, a URL = short link, otherwise a code; --id, --code, --short-link force it. */
function refOf(ref: string, opts: CliValues): LinkRef {
  const forced = (['id', 'code', 'shortLink'] as const).filter((k) => opts[k] === true);
  if (forced.length > 1) throw new UsageError('use only one of --id, --code, --short-link');
  return parseLinkRef(ref, forced[0]);
}

/** The flags of `link update` that change something. */
const UPDATE_FLAGS = '--status, --expires, --no-expiry or --comment';

async function update(ctx: RunContext, opts: CliValues, typed: string): Promise<number> {
  if (opts.expires !== undefined && opts.expiry === false) throw new UsageError('use either --expires or --no-expiry, not both');
  const ref = parseLinkRef(typed);
  const changes = inputFrom(linkUpdate, [undefined], opts, [], ctx.now());
  delete changes.id;
  if (Object.keys(changes).length === 0 && opts.expiry !== false) throw new UsageError(`link update ${typed}: nothing to change; give ${UPDATE_FLAGS}`);
  checkExpiry(ctx, changes, opts);
  await ctx.view(linkUpdate);
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
    result = await client.updateLink(input as never);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) throw notFound(ref);
    throw err;
  }
  // The live service answers `true`: unless the link was read before, read it back to show it as it now is.
  const after = result.shortLink || current ? undefined : await client.getLink({ id });
  const shown: Record<string, unknown> = { id, shortLink: result.shortLink ?? after?.shortLink ?? current?.shortLink ?? null };
  // What the service now holds: read back, or what was sent (the expiry is cleared when not sent).
  shown.status = after?.status ?? input.status;
  shown.expirationDate = after ? after.expirationDate : (input.expirationDate ?? null);
  shown.comment = after?.comment ?? input.comment ?? current?.comment;
  await render(ctx, linkUpdate, Object.fromEntries(Object.entries(shown).filter(([, v]) => v !== undefined)));
  return EXIT.OK;
}

async function deleteLinks(ctx: RunContext, opts: CliValues, refs: string[]): Promise<number> {
  const view = await ctx.view(linkDelete);
  const typed = await collectIds(ctx, refs);
  const client = await ctx.client();
  // Only ids go into Link/Delete: a dry run shows them as typed when they are, else resolves nothing.
  if (ctx.globals.dryRun && typed.every((t) => /^\d+$/.test(t))) return (await dryRun(ctx, linkDelete, { ids: typed }), EXIT.OK);
  const input = { ids: (await resolveLinkIds(client, typed)).map(String) };
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkDelete, input), EXIT.OK);
  const declined = await askFirst(ctx, opts, `Delete ${plural(typed.length, 'link')} (${idList(typed)})?`, 'Nothing deleted.');
  if (declined !== undefined) return declined;
  const retriedBefore = ctx.retried;
  const result = await callOperation<DeleteLinksResult>(ctx, linkDelete, input);
  const processed = new Set(result.processed.map(String));
  let left = input.ids.filter((id) => !processed.has(String(Number(id))));
  if (left.length && ctx.retried > retriedBefore) {
    // The delete was retried: a first attempt whose answer was lost may have deleted these already.
    const client = await ctx.client();
    const gone = await Promise.all(left.map((id) => client.getLink({ id: Number(id) }).then(() => false, (err: unknown) => err instanceof ApiError && err.isNotFound)));
    const deleted = left.filter((_, i) => gone[i]);
    if (deleted.length) {
      ctx.note(`${deleted.join(', ')}: not found after a retried delete; taken as deleted by the first attempt, whose answer was lost`);
      for (const id of deleted) result.processed.push(Number(id));
      left = left.filter((_, i) => !gone[i]);
    }
  }
  const { renderRecord } = await import('../output/format.js');
  if (view.format === 'table' && !view.quiet) {
    if (result.processed.length) ctx.stdout.write(`Deleted ${result.processed.length} link${result.processed.length === 1 ? '' : 's'}: ${result.processed.join(', ')}\n`);
  } else {
    await renderRecord(ctx.stdout, view, { processed: result.processed, notProcessed: left.map(Number) });
  }
  if (left.length) throw new PartialError(`not deleted (not found, or not yours): ${left.join(', ')}`);
  return EXIT.OK;
}

async function create(ctx: RunContext, opts: CliValues, fullLink: string | undefined): Promise<number> {
  if (opts.fromFile !== undefined) {
    if (fullLink !== undefined) throw new UsageError('give either <fullLink> or --from-file, not both');
    return bulkCreate(ctx, opts);
  }
  rejectBulkFlagsWithoutFile(opts);
  if (fullLink === undefined) throw new UsageError('link create: give the URL to shorten (smslink link create https://example.com/page), or --from-file FILE');
  const input = { fullLink, ...inputFrom(linkCreate, [], opts, ['fullLink'], ctx.now()) };
  checkExpiry(ctx, input, opts);
  await ctx.view(linkCreate);
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkCreate, input), EXIT.OK);
  await render(ctx, linkCreate, await callOperation(ctx, linkCreate, input));
  return EXIT.OK;
}

async function get(ctx: RunContext, opts: CliValues, ref: string): Promise<number> {
  const input = getInput(refOf(ref, opts));
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkGet, input), EXIT.OK);
  ctx.page();
  await render(ctx, linkGet, await readLink(await ctx.client(), refOf(ref, opts)));
  return EXIT.OK;
}

async function campaign(ctx: RunContext, opts: CliValues, args: readonly Positional[]): Promise<number> {
  const input = inputFrom(linkCampaign, [...args], opts);
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkCampaign, input), EXIT.OK);
  ctx.page();
  await renderList(ctx, linkCampaign, await callOperation<CampaignLink[]>(ctx, linkCampaign, input), `no links in campaign ${input.campaignId}`);
  return EXIT.OK;
}

/** `smslink link ...`: what each Link operation's command adds to its catalog entry. */
export const LINK: NounCommands = {
  description: 'Create, find, change and delete short links',
  about: 'A link is named by its id (all digits), its code, or its short link.',
  examples: [
    'smslink link create https://example.com/spring-sale',
    'smslink link list --query spring',
    'smslink link stats ddoj --since 7d',
    'smslink link update https://sho.rt/ddoj --status inactive',
  ],
  commands: {
    [linkCreate.id]: {
      // Optional here, for --from-file.
      skip: ['fullLink'],
      flags: (cmd) => bulkOptions(cmd.argument('[fullLink]', 'the URL to shorten (https://... or www....); or use --from-file').option(...ALLOW_PAST)),
      about: `With --from-file, each row of a CSV (header: fullLink, and optionally status,
expirationDate, comment) or NDJSON file becomes one link; --status, --expires
and --comment fill empty cells. Results stream as rows finish; a journal
beside the file makes a rerun skip what was done. The file is read as UTF-8
(or UTF-16 with a BOM); name any other encoding with --encoding.
${BULK_STOPS_HELP}`,
      examples: [
        'smslink link create https://example.com/spring-sale',
        'smslink link create www.example.com/a --expires 2026-12-31 --comment "winter promo"',
        'smslink link create https://example.com/x --status inactive -q   # prints the short link only',
        'smslink link create --from-file links.csv --concurrency 8 -o csv > created.csv',
        'smslink link create --from-file links.csv --validate-only',
        'smslink link create --from-file links.csv --encoding windows-1251   # saved by a spreadsheet',
      ],
      run: (ctx, opts, [fullLink]) => create(ctx, opts, fullLink as string | undefined),
    },

    [linkGet.id]: {
      // One reference, whichever kind (refOf); the flags only say which it is.
      skip: ['id', 'code', 'shortLink'],
      flags: (cmd) =>
        cmd
          .argument('<ref>', 'link id (all digits), short link (a URL) or code')
          .option('--id', 'treat <ref> as an id')
          .option('--code', 'treat <ref> as a code')
          .option('--short-link', 'treat <ref> as a short link'),
      examples: ['smslink link get 417863', 'smslink link get ddoj', 'smslink link get https://sho.rt/ddoj', 'smslink link get 1234 --code', 'smslink link get 417863 --jq .shortLink'],
      run: (ctx, opts, [ref]) => get(ctx, opts, ref as string),
    },

    [linkList.id]: listCommand(linkList, 'links', undefined, [
      'smslink link list',
      'smslink link list --status active --sort clickCnt:desc --page-size 50',
      'smslink link list --created-from 2026-01-01 --query promo -o csv',
      'smslink link list --all -o ndjson > links.ndjson',
    ]),

    [linkUpdate.id]: {
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
    },

    [linkDelete.id]: {
      flags: (cmd) => cmd.option(...YES_OPTION),
      about: `On a terminal it first asks "Delete 2 links (417863, 417864)? [y/N]"; any
answer but y or yes deletes nothing and exits 2. --yes skips the question;
nothing is asked when stdin is not a terminal (a pipe, a script) or with
--dry-run. Exit code 0 when every id was deleted; otherwise the ids not
deleted are named on stderr and the exit code is 5.`,
      examples: [
        'smslink link delete 417863',
        'smslink link delete 417863 --yes',
        'smslink link delete 417863 417864,417865',
        'smslink link delete ddoj https://sho.rt/ddok --yes',
        'smslink link list --query old -q | smslink link delete -',
      ],
      run: (ctx, opts, [refs]) => deleteLinks(ctx, opts, refs as string[]),
    },

    [linkStats.id]: LINK_STATS,

    [linkCampaign.id]: {
      examples: ['smslink link campaign 9001', 'smslink link campaign 9001 -o csv --fields shortLink,clickCnt,redirectCnt'],
      run: campaign,
    },
  },
};
