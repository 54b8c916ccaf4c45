// `smslink link create <fullLink>`: one short link; with --from-file, one per
// row of a file (src/bulk).

import { linkCreate } from '../../catalog/link.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { BULK_STOPS_HELP, bulkFlags, bulkHost, bulkOptions, columnSpec, rejectBulkFlagsWithoutFile } from '../shared/bulk.js';
import { dryRun } from '../shared/dry-run.js';
import { inputFrom } from '../shared/operation.js';
import { ALLOW_PAST, checkExpiry, pastExpiry } from './expiry.js';

async function bulkCreate(ctx: RunContext, opts: CliValues): Promise<number> {
  const { runBulk } = await import('../../bulk/engine.js');
  const defaults = inputFrom(linkCreate, [], opts, ['fullLink'], ctx.now());
  checkExpiry(ctx.now(), defaults, opts);
  const spec = columnSpec(
    ctx,
    'link create',
    linkCreate,
    { columns: { fullLink: 'fullLink', status: 'status', expirationDate: 'expirationDate', comment: 'comment' }, required: ['fullLink'], defaults },
    {
      // A row's date in the past is refused as --expires is (the empty cells --expires fills were checked above).
      fill(input, fields, problems) {
        const rule = pastExpiry(ctx.now(), input.expirationDate, fields.expirationDate, opts);
        if (rule !== undefined) problems.push({ column: 'expirationDate', rule });
      },
      resultColumns: ['id', 'code', 'shortLink'],
      primary: 'shortLink',
    },
  );
  return runBulk(bulkHost(ctx), spec, bulkFlags(opts));
}

async function create(ctx: RunContext, opts: CliValues, fullLink: string | undefined): Promise<number> {
  if (opts.fromFile !== undefined) {
    if (fullLink !== undefined) throw new UsageError('give either <fullLink> or --from-file, not both');
    return bulkCreate(ctx, opts);
  }
  rejectBulkFlagsWithoutFile(opts);
  if (fullLink === undefined) throw new UsageError('link create: give the URL to shorten, as in `smslink link create https://example.com/page`, or --from-file FILE');
  const input = { fullLink, ...inputFrom(linkCreate, [], opts, ['fullLink'], ctx.now()) };
  checkExpiry(ctx.now(), input, opts);
  const view = await ctx.view(linkCreate);
  if (ctx.globals.dryRun) return (await dryRun(ctx, linkCreate, input), EXIT.OK);
  await renderRecord(ctx.stdout, view, await (await ctx.client()).call(linkCreate, input));
  return EXIT.OK;
}

export const LINK_CREATE: CommandDef = {
  path: ['link', 'create'],
  operation: linkCreate,
  // Optional here, for --from-file.
  skip: ['fullLink'],
  flags: (cmd) => bulkOptions(cmd.argument('[fullLink]', 'the URL to shorten (https://... or www....); or use --from-file').option(...ALLOW_PAST)),
  about: `With --from-file, each row of a CSV (header: fullLink, and optionally status,
expirationDate, comment) or NDJSON file, or each object of a JSON array (.json,
as jq writes it), becomes one link; --status, --expires and --comment fill
empty cells. Results stream as rows finish; a journal
beside the file makes a rerun skip what was done. The file is read as UTF-8
(or UTF-16 with a BOM); name any other encoding with --encoding.
${BULK_STOPS_HELP}`,
  examples: [
    'smslink link create https://example.com/spring-sale',
    'smslink link create www.example.com/a --expires 2026-12-31 --comment "winter promo"',
    'smslink link create https://example.com/x --status inactive -q   # prints the short link only',
    'smslink link create --from-file links.csv --concurrency 8 -o csv > created.csv',
    'smslink link create --from-file links.csv --validate-only',
    'smslink link create --from-file links.json   # [{"fullLink": "https://..."}, ...]',
    'smslink link create --from-file links.csv --encoding windows-1251   # saved by a spreadsheet',
  ],
  run: (ctx, opts, [fullLink]) => create(ctx, opts, fullLink as string | undefined),
};
