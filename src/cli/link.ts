// `smslink link ...`: the seven Link operations.

import type { Command } from 'commander';
import { linkCampaign, linkCreate, linkDelete, linkGet, linkList, linkStats, linkUpdate } from '../catalog/link.js';
import type { CampaignLink, DeleteLinksResult, Link, LinkStatsResult } from '../catalog/types.js';
import type { RunContext } from './context.js';
import { callOperation, collectIds, prepareChunks, dryRun, mapLimit, parseConcurrency, printDryRun } from './common.js';
import { EXIT, PartialError, UsageError } from './exit.js';
import { ApiError } from '../client/errors.js';
import { addParams, examples, inputFrom, type CliValues } from './operation.js';
import { bulkFlags, bulkOptions, columnSpec, rejectBulkFlagsWithoutFile } from './bulk.js';
import { listPages, pagingOptions } from './paging.js';
import type { Reach, Runner } from './run.js';
import { askFirst, idList, plural, YES_OPTION } from './prompt.js';

async function render(ctx: RunContext, op: typeof linkCreate | typeof linkGet | typeof linkUpdate, record: object): Promise<void> {
  const { renderRecord } = await import('../output/format.js');
  await renderRecord(ctx.stdout, await ctx.view(op), record as Record<string, unknown>);
}

async function renderList(ctx: RunContext, op: typeof linkCampaign, rows: object[], what: string): Promise<void> {
  const { renderRows } = await import('../output/format.js');
  const view = await ctx.view(op);
  if (rows.length === 0 && view.format === 'table' && !view.quiet) {
    ctx.note(`No ${what} found.`);
    return;
  }
  await renderRows(ctx.stdout, view, rows as Record<string, unknown>[]);
}

async function bulkCreate(ctx: RunContext, opts: CliValues): Promise<number> {
  const { runBulk } = await import('../bulk/run.js');
  const defaults = inputFrom(linkCreate, [], opts, ['fullLink']);
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
  return runBulk(ctx, spec, bulkFlags(opts));
}

/** `link get <ref>`: all digits = id, a URL = shortLink, otherwise code; flags force it. */
export function refInput(ref: string, opts: CliValues): Record<string, unknown> {
  const forced = (['id', 'code', 'shortLink'] as const).filter((k) => opts[k] === true);
  if (forced.length > 1) throw new UsageError('use only one of --id, --code, --short-link');
  const kind = forced[0] ?? (/^\d+$/.test(ref) ? 'id' : /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^www\./i.test(ref) ? 'shortLink' : 'code');
  return { [kind]: ref };
}

async function update(ctx: RunContext, id: string, opts: CliValues): Promise<number> {
  if (opts.expires !== undefined && opts.expiry === false) throw new UsageError('use either --expires or --no-expiry, not both');
  const input = inputFrom(linkUpdate, [id], opts);
  const client = await ctx.client();
  // Check what the user typed before reading anything.
  client.prepare(linkUpdate, input);
  const keepCurrent = opts.expires === undefined && opts.expiry !== false;
  if (ctx.globals.dryRun) {
    const requests = keepCurrent ? [client.prepare(linkGet, { id: input.id })] : [];
    requests.push(client.prepare(linkUpdate, input));
    await printDryRun(
      ctx,
      requests,
      keepCurrent ? { note: 'Link/Get runs first; its expirationDate, status and comment are resent unless given' } : {},
    );
    return EXIT.OK;
  }
  let current: Link | undefined;
  if (keepCurrent) {
    // Link/Update clears the expiry when data[expirationDate] is omitted (service-api.md): resend the current one.
    current = await client.getLink({ id: Number(input.id) });
    if (current.expirationDate) input.expirationDate = current.expirationDate;
    input.status ??= current.status;
    if (current.comment !== null && current.comment !== undefined) input.comment ??= current.comment;
  }
  const result = await client.updateLink(input as never);
  // The live service answers `true`: unless the link was read before, read it back to show it as it now is.
  const after = result.shortLink || current ? undefined : await client.getLink({ id: Number(input.id) });
  const shown: Record<string, unknown> = { id: Number(input.id), shortLink: result.shortLink ?? after?.shortLink ?? current?.shortLink ?? null };
  // What the service now holds: read back, or what was sent (the expiry is cleared when not sent).
  shown.status = after?.status ?? input.status;
  shown.expirationDate = after ? after.expirationDate : (input.expirationDate ?? null);
  shown.comment = after?.comment ?? input.comment ?? current?.comment;
  await render(ctx, linkUpdate, Object.fromEntries(Object.entries(shown).filter(([, v]) => v !== undefined)));
  return EXIT.OK;
}

async function remove(ctx: RunContext, ids: string[], opts: CliValues = {}): Promise<number> {
  const input = { ids: await collectIds(ctx, ids) };
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkDelete, input), EXIT.OK);
  const declined = await askFirst(ctx, opts, `Delete ${plural(input.ids.length, 'link')} (${idList(input.ids)})?`, 'Nothing deleted.');
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
  const view = await ctx.view(linkDelete);
  if (view.format === 'table' && !view.quiet) {
    if (result.processed.length) ctx.stdout.write(`Deleted ${result.processed.length} link${result.processed.length === 1 ? '' : 's'}: ${result.processed.join(', ')}\n`);
  } else {
    await renderRecord(ctx.stdout, view, { processed: result.processed, notProcessed: left.map(Number) });
  }
  if (left.length) throw new PartialError(`not deleted (not found, or not yours): ${left.join(', ')}`);
  return EXIT.OK;
}

async function stats(ctx: RunContext, ids: string[], opts: CliValues): Promise<number> {
  const all = await collectIds(ctx, ids);
  const base = inputFrom(linkStats, [all], opts);
  const client = await ctx.client();
  const { parts, prepared } = prepareChunks(client, linkStats, all, base);
  if (ctx.globals.dryRun) return (await printDryRun(ctx, prepared), EXIT.OK);
  const concurrency = parseConcurrency(opts.concurrency);
  const { keyStats, mergeStats, statsColumns, renderStatsChart } = await import('../output/stats.js');
  const answers = await mapLimit(parts, concurrency, async (ids) =>
    keyStats(ids.map(Number), (await client.getLinkStats({ ...base, ids: ids.map(Number) } as never)) as LinkStatsResult),
  );
  const merged = mergeStats(answers);
  const view = await ctx.view(linkStats, { columns: statsColumns(merged.ids), primary: 'clicks' });
  if (view.quiet) {
    ctx.stdout.write(merged.ids.map((id) => `${id} ${merged.totals[id]?.clicks ?? 0}`).join('\n') + '\n');
  } else if (view.format === 'table' && !view.fields) {
    renderStatsChart(ctx.stdout, merged, view.paint, view.width);
  } else {
    const { renderRows } = await import('../output/format.js');
    await renderRows(ctx.stdout, view, merged.rows);
  }
  return EXIT.OK;
}

/** Registers the noun; its subcommands as far as the run can reach them (see buildProgram in run.ts). */
export function registerLink(program: Command, runner: Runner, reach: Reach): void {
  const link = program.command('link').description('Create, find, change and delete short links');
  if (!reach.noun('link')) return;
  const verb = reach.among(link, ['create', 'get', 'list', 'update', 'delete', 'stats', 'campaign']);

  const createCommand = verb('create', linkCreate.summary);
  if (createCommand)
    bulkOptions(
      addParams(createCommand, linkCreate, ['fullLink']).argument(
        '[fullLink]',
        'the URL to shorten (https://... or www....); or use --from-file',
      ),
    )
      .addHelpText(
        'after',
        `
With --from-file, each row of a CSV (header: fullLink, and optionally status,
expirationDate, comment) or NDJSON file becomes one link; --status, --expires
and --comment fill empty cells. Results stream as rows finish; a journal
beside the file makes a rerun skip what was done.
${examples([
  'smslink link create https://example.com/spring-sale',
  'smslink link create www.example.com/a --expires 2026-12-31 --comment "winter promo"',
  'smslink link create https://example.com/x --status inactive -q   # prints the short link only',
  'smslink link create --from-file links.csv --concurrency 8 -o csv > created.csv',
  'smslink link create --from-file links.csv --validate-only',
])}`,
      )
      .action((fullLink: string | undefined, opts: CliValues, cmd: Command) =>
        runner(cmd, async (ctx) => {
          if (opts.fromFile !== undefined) {
            if (fullLink !== undefined) throw new UsageError('give either <fullLink> or --from-file, not both');
            return bulkCreate(ctx, opts);
          }
          rejectBulkFlagsWithoutFile(opts);
          const input = { fullLink, ...inputFrom(linkCreate, [], opts, ['fullLink']) };
          if (ctx.globals.dryRun) return (await dryRun(ctx, linkCreate, input), EXIT.OK);
          await render(ctx, linkCreate, await callOperation(ctx, linkCreate, input));
        }),
      );

  verb('get', linkGet.summary)
    ?.argument('<ref>', 'link id (all digits), short link (a URL) or code')
    .option('--id', 'treat <ref> as an id')
    .option('--code', 'treat <ref> as a code')
    .option('--short-link', 'treat <ref> as a short link')
    .addHelpText('after', examples(['smslink link get 417863', 'smslink link get ddoj', 'smslink link get https://sho.rt/ddoj', 'smslink link get 1234 --code']))
    .action((ref: string, opts: CliValues, cmd: Command) =>
      runner(cmd, async (ctx) => {
        const input = refInput(ref, opts);
        if (ctx.globals.dryRun) return (await dryRun(ctx, linkGet, input), EXIT.OK);
        await render(ctx, linkGet, await callOperation<Link>(ctx, linkGet, input));
      }),
    );

  const listCommand = verb('list', linkList.summary);
  if (listCommand)
    pagingOptions(addParams(listCommand, linkList))
      .addHelpText(
        'after',
        examples([
          'smslink link list',
          'smslink link list --status active --sort clickCnt:desc --page-size 50',
          'smslink link list --created-from 2026-01-01 --query promo -o csv',
          'smslink link list --all -o ndjson > links.ndjson',
        ]),
      )
      .action((opts: CliValues, cmd: Command) =>
        runner(cmd, (ctx) => listPages(ctx, linkList, inputFrom(linkList, [], opts), opts, 'links')),
      );

  const updateCommand = verb('update', linkUpdate.summary);
  if (updateCommand)
    addParams(updateCommand, linkUpdate)
      .option('--no-expiry', 'remove the expiry date: the link works indefinitely')
      .addHelpText(
        'after',
        `
Link/Update on the service clears the expiry date whenever it is not sent.
smslink protects you from that: without --expires it first reads the link
and resends its current expiry date, status and comment. Use --no-expiry to
remove the expiry on purpose.
${examples([
  'smslink link update 417863 --status inactive',
  'smslink link update 417863 --expires 2026-12-31',
  'smslink link update 417863 --no-expiry',
  'smslink link update 417863 --comment "moved to spring campaign"',
])}`,
      )
      .action((id: string, opts: CliValues, cmd: Command) => runner(cmd, (ctx) => update(ctx, id, opts)));

  const deleteCommand = verb('delete', linkDelete.summary);
  if (deleteCommand)
    addParams(deleteCommand, linkDelete)
      .option(...YES_OPTION)
      .addHelpText(
        'after',
        `
On a terminal it first asks "Delete 2 links (417863, 417864)? [y/N]"; any
answer but y or yes deletes nothing and exits 2. --yes skips the question;
nothing is asked when stdin is not a terminal (a pipe, a script) or with
--dry-run. Exit code 0 when every id was deleted; otherwise the ids not
deleted are named on stderr and the exit code is 5.
${examples([
        'smslink link delete 417863',
        'smslink link delete 417863 --yes',
        'smslink link delete 417863 417864,417865',
        'smslink link list --query old -q | smslink link delete -',
      ])}`,
      )
      .action((ids: string[], opts: CliValues, cmd: Command) => runner(cmd, (ctx) => remove(ctx, ids, opts)));

  const statsCommand = verb('stats', linkStats.summary);
  if (statsCommand)
    addParams(statsCommand, linkStats)
      .option('--concurrency <n>', 'requests in flight when more than 5 ids are given (default 4)')
      .addHelpText(
        'after',
        `
--from and --to take YYYY-MM-DD (filled to 00:00:00 and 23:59:59) or
"YYYY-MM-DD HH:MM:SS". Without them the service uses the longest interval of
the type: 3 years (monthly), 90 days (daily), 1 week (hourly), 3 hours
(minute). More than 5 ids are split into several requests and merged.
${examples([
  'smslink link stats 417863 --type daily --from 2026-10-01 --to 2026-10-31',
  'smslink link stats 417863 417864 --type monthly -o csv',
])}`,
      )
      .action((ids: string[], opts: CliValues, cmd: Command) => runner(cmd, (ctx) => stats(ctx, ids, opts)));

  const campaignCommand = verb('campaign', linkCampaign.summary);
  if (campaignCommand)
    addParams(campaignCommand, linkCampaign)
      .addHelpText('after', examples(['smslink link campaign 9001', 'smslink link campaign 9001 -o csv --fields shortLink,clickCnt,redirectCnt']))
      .action((campaignId: string, opts: CliValues, cmd: Command) =>
        runner(cmd, async (ctx) => {
          const input = inputFrom(linkCampaign, [campaignId], opts);
          if (ctx.globals.dryRun) return (await dryRun(ctx, linkCampaign, input), EXIT.OK);
          await renderList(ctx, linkCampaign, await callOperation<CampaignLink[]>(ctx, linkCampaign, input), 'links in this campaign');
        }),
      );
}

