// `smslink report delivery` and `report links`: reports read from the local
// mirror that `sync` keeps (design: sync is one job, reporting another);
// `--sync` refreshes it first. A table and a chart for people; json, ndjson
// and csv for scripts, with the numbers unrounded by the table's words.

import type { Command } from 'commander';
import type { RunContext } from './context.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { helpWhenAlone } from './help.js';
import { examples, type CliValues } from './operation.js';
import type { Reach, Runner } from './run.js';
import { openMirror, runSync, syncFlags } from './mirror.js';
import { syncOptions } from './sync.js';
import { timeFlag } from './time.js';
import { formatDateTime } from '../catalog/rules.js';
import type { Row } from '../output/format.js';

const GROUPINGS = ['day', 'sender', 'country', 'operator'] as const;
const DELIVERY_COLUMNS = ['messages', 'segments', 'delivered', 'undelivered', 'rejected', 'expired', 'deleted', 'pending', 'deliveryRate', 'medianSeconds', 'p90Seconds', 'cost'];
const LINK_COLUMNS = ['id', 'shortLink', 'clicks', 'redirects', 'activeDays', 'clicksPerDay', 'busiestDay', 'fullLink', 'comment'];

/** --since and --until as wire times; --until defaults to now. */
function period(ctx: RunContext, opts: CliValues, defaultSince: string): { since: string; until: string } {
  const now = ctx.now();
  const since = timeFlag('--since', String(opts.since ?? defaultSince), now, { fill: 'start' });
  const until = opts.until === undefined ? formatDateTime(now) : timeFlag('--until', String(opts.until), now, { fill: 'end' });
  if (until < since) throw new UsageError(`--until (${until}) must not be before --since (${since})`);
  return { since, until };
}

/** The mirror, refreshed first with --sync (its --concurrency and --rate too). */
async function mirrorFor(ctx: RunContext, opts: CliValues) {
  if (!opts.sync) {
    const extra = ['concurrency', 'rate'].find((k) => opts[k] !== undefined);
    if (extra) throw new UsageError(`--${extra} only applies with --sync`);
    return openMirror(ctx, false);
  }
  const flags = syncFlags(ctx, { concurrency: opts.concurrency, rate: opts.rate });
  const mirror = await openMirror(ctx, true);
  await runSync(ctx, mirror, flags);
  return mirror;
}

async function delivery(ctx: RunContext, opts: CliValues): Promise<number> {
  const by = String(opts.by ?? 'day');
  if (!(GROUPINGS as readonly string[]).includes(by)) throw new UsageError(`--by: invalid value "${by}": must be one of ${GROUPINGS.join(', ')}`);
  const range = period(ctx, opts, '7d');
  const view = await ctx.view({ output: { rows: 'array', columns: [by, ...DELIVERY_COLUMNS], primary: by } });
  const mirror = await mirrorFor(ctx, opts);
  const { deliveryReport } = await import('../mirror/index.js');
  const rows = deliveryReport(mirror, by as (typeof GROUPINGS)[number], range);
  const records: Row[] = rows.map(({ group, ...rest }) => ({ [by]: group, ...rest }));
  const { renderRows } = await import('../output/format.js');
  if (view.format !== 'table' || view.quiet) return (await renderRows(ctx.stdout, view, records), EXIT.OK);
  ctx.page();
  if (rows.length === 0) return (ctx.note(`No messages sent from ${range.since} to ${range.until} in the mirror.`), EXIT.OK);
  const { eta } = await import('../bulk/progress.js');
  const seconds = (s: unknown) => (typeof s === 'number' ? eta(s) : null);
  const shown = records.map((r) => ({
    ...r,
    deliveryRate: typeof r.deliveryRate === 'number' ? `${(r.deliveryRate * 100).toFixed(1)}%` : null,
    medianSeconds: seconds(r.medianSeconds),
    p90Seconds: seconds(r.p90Seconds),
  }));
  await renderRows(ctx.stdout, view, shown);
  const { deliveryChart } = await import('../output/delivery-chart.js');
  ctx.stdout.write(
    `\n${deliveryChart(
      rows.map((r) => ({ label: r.group, delivered: r.delivered, failed: r.undelivered + r.rejected + r.expired + r.deleted, pending: r.pending, rate: r.deliveryRate })),
      view.paint,
      ctx.tableWidth() ?? 80,
    )}`,
  );
  ctx.note(`Messages sent from ${range.since} to ${range.until}, from the mirror (\`smslink sync --status\` says how old it is).`);
  return EXIT.OK;
}

async function links(ctx: RunContext, opts: CliValues): Promise<number> {
  const range = period(ctx, opts, '30d');
  const top = opts.top === undefined ? 10 : Number(opts.top);
  if (!Number.isInteger(top) || top < 1 || top > 1000) throw new UsageError(`--top: invalid value "${opts.top}": must be a whole number from 1 to 1000`);
  const view = await ctx.view({ output: { rows: 'array', columns: LINK_COLUMNS, primary: 'id' } });
  const mirror = await mirrorFor(ctx, opts);
  const { linksReport } = await import('../mirror/index.js');
  const rows = linksReport(mirror, range.since.slice(0, 10), range.until.slice(0, 10), top);
  const { renderRows } = await import('../output/format.js');
  if (view.format === 'table' && !view.quiet) {
    ctx.page();
    if (rows.length === 0) return (ctx.note(`No clicks from ${range.since.slice(0, 10)} to ${range.until.slice(0, 10)} in the mirror.`), EXIT.OK);
  }
  // csv and tables have no room for the per-day object: scripts take it from json or ndjson.
  const flat = view.format === 'json' || view.format === 'ndjson' ? rows : rows.map(({ daily: _daily, ...rest }) => rest);
  await renderRows(ctx.stdout, view, flat as unknown as Row[]);
  return EXIT.OK;
}

function reportFlags(cmd: Command, since: string): Command {
  return syncOptions(
    cmd
      .option('--since <time>', `from this time (default ${since}): 7d, 24h, 2025-01-01, "2025-01-01 08:00"`)
      .option('--until <time>', 'up to this time (default now)')
      .option('--sync', 'bring the mirror up to date first (as `smslink sync`)'),
  );
}

export function registerReport(program: Command, runner: Runner, reach: Reach): void {
  const report = helpWhenAlone(program.command('report'))
    .description('Reports from the local mirror (`smslink sync`): delivery, clicked links')
    .addHelpText('after', examples(['smslink sync && smslink report delivery --by country', 'smslink report links --since 7d', 'smslink report delivery --sync -o csv > week.csv']));
  if (!reach.noun('report')) return;
  const verb = reach.among(report, ['delivery', 'links']);
  const deliveryCmd = verb('delivery', 'Messages, segments, final statuses, delivery rate, time to final status and cost, per group');
  if (deliveryCmd) {
    reportFlags(deliveryCmd.option('--by <group>', `group by ${GROUPINGS.join(', ')} (default day)`), '7d')
      .addHelpText(
        'after',
        `
Counts messages sent in the period, per group: segments, each final status,
pending (not yet final), delivery rate (delivered ÷ messages with a final
status), median and p90 time from send to final status, and cost (price of
a segment × segments, in the account's currency). At a terminal, a table and
a bar chart; -o json, ndjson or csv give the numbers unrounded (rate as a
fraction, times in seconds).
${examples([
  'smslink report delivery',
  'smslink report delivery --by country --since 30d',
  'smslink report delivery --by operator --since 2025-01-01 --until 2025-01-31 -o csv',
  'smslink report delivery --sync --by sender --json',
])}`,
      )
      .action((opts: CliValues, c: Command) => runner(c, (ctx) => delivery(ctx, opts)));
  }
  const linksCmd = verb('links', 'The most clicked links in a period, with clicks per day');
  if (linksCmd) {
    reportFlags(linksCmd.option('--top <n>', 'how many links (default 10)'), '30d')
      .addHelpText(
        'after',
        `
Clicks per day come from Link/GetStats (5 links a request), fetched by sync
for links whose click count moved, and kept in the mirror (the last 90 days).
json and ndjson add each link's clicks per day ("daily").
${examples(['smslink report links', 'smslink report links --since 7d --top 3', 'smslink report links --sync --json'])}`,
      )
      .action((opts: CliValues, c: Command) => runner(c, (ctx) => links(ctx, opts)));
  }
}
