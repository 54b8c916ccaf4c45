// `smslink link stats`: the interval a person means, then the answers of the
// service merged and drawn. --type defaults to daily; --since alone ends now,
// not where the service's longest interval would (months into the future);
// a range longer than the type allows is cut as the service cuts it, and said.

import { Option } from 'commander';
import { linkStats, statsSpan, STATS_TYPES } from '../../catalog/link.js';
import { formatDateTime } from '../../catalog/rules.js';
import type { LinkStatsResult } from '../../catalog/types.js';
import { collectIds, mapLimit, parseConcurrency, prepareChunks } from '../shared/ids.js';
import { printDryRun } from '../shared/dry-run.js';
import type { CliValues, CommandDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { otherName } from '../core/flags.js';
import { EXIT, PartialError, UsageError } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';
import { inputFrom } from '../shared/operation.js';
import { quoteTime, reversedRange, timeFlag, wallMs, wireOf } from '../core/time.js';
import { linkNotFound, linksNotFound, resolveLinks } from './ref.js';

type StatsType = (typeof STATS_TYPES)[number];

/** A link to count: its id, and its code when known (the chart names links by code). */
export interface StatsLink {
  id: string | number;
  code?: string;
}

const SPAN_WORDS: Record<StatsType, string> = { monthly: '3 years', daily: '90 days', hourly: '1 week', minute: '3 hours' };
const COARSER: Record<StatsType, StatsType | undefined> = { minute: 'hourly', hourly: 'daily', daily: 'monthly', monthly: undefined };

export interface Interval {
  dateFrom?: string;
  dateTo?: string;
  /** The range asked for was longer than the type allows and ends earlier. */
  cut?: boolean;
}

/**
 * The criteria to send (service-api.md Link/GetStats, rules 1-3):
 * - neither: none, and the service shows its latest longest interval, up to the current period;
 * - only the end: as given, the longest interval ending there;
 * - a start: ends at the given end or now, but no later than the longest
 *   interval from the start allows (dateTo names a second and includes it).
 */
export function statsInterval(type: StatsType, since: string | undefined, until: string | undefined, now: string): Interval {
  if (since === undefined) return until === undefined ? {} : { dateTo: until };
  const start = wallMs(since);
  const end = until ?? now;
  // Rule 2: a span beyond the maximum becomes the longest interval from the start, which ends a second before start + maximum.
  if (wallMs(end) <= statsSpan(type, start)) return { dateFrom: since, dateTo: end };
  return { dateFrom: since, dateTo: wireOf(statsSpan(type, start) - 1000), cut: true };
}

/** Names of the range flags as typed: --since/--until, or their aliases --from/--to (both at once is refused as they are parsed: otherName). */
function rangeFlag(opts: CliValues, name: 'since' | 'until', alias: 'from' | 'to'): { flag: string; value?: string } {
  const [own, other] = [opts[name], opts[alias]];
  return other !== undefined ? { flag: `--${alias}`, value: String(other) } : { flag: `--${name}`, value: own === undefined ? undefined : String(own) };
}

/** The criteria of the command line, checked; notes on stderr when the range is cut. */
async function criteria(ctx: RunContext, opts: CliValues): Promise<Record<string, unknown>> {
  const now = ctx.now();
  const base = inputFrom(linkStats, [], opts, ['ids', 'dateFrom', 'dateTo'], now);
  base.type ??= 'daily';
  const since = rangeFlag(opts, 'since', 'from');
  const until = rangeFlag(opts, 'until', 'to');
  const from = since.value === undefined ? undefined : timeFlag(since.flag, since.value, now, { fill: 'start' });
  const to = until.value === undefined ? undefined : timeFlag(until.flag, until.value, now, { fill: 'end' });
  const typed = (flag: { value?: string }, wire: string) => quoteTime(flag.value!, wire, now);
  if (from !== undefined && to !== undefined && to < from) throw reversedRange({ flag: since.flag, typed: since.value!, wire: from }, { flag: until.flag, typed: until.value!, wire: to }, now);
  const nowWire = formatDateTime(now);
  if (from !== undefined && to === undefined && from > nowWire)
    throw new UsageError(`${since.flag}: invalid value ${typed(since, from)}: is in the future (now is ${nowWire}); there are no clicks to count yet`);
  const type = STATS_TYPES.find((t) => t === String(base.type).toLowerCase());
  // An unknown type is the catalog's to refuse, with the choices.
  if (!type) return { ...base, dateFrom: from, dateTo: to };
  const interval = statsInterval(type, from, to, nowWire);
  if (interval.cut) {
    const coarser = COARSER[type];
    await ctx.warn(
      `${type} statistics cover at most ${SPAN_WORDS[type]}: showing ${interval.dateFrom} to ${interval.dateTo}` +
        (coarser ? ` (--type ${coarser} covers ${SPAN_WORDS[coarser]})` : ''),
    );
  }
  return { ...base, type, dateFrom: interval.dateFrom, dateTo: interval.dateTo };
}

/** Counts and shows the clicks of links already resolved to ids (with their codes when known). */
async function showStats(ctx: RunContext, links: readonly StatsLink[], opts: CliValues, base: Record<string, unknown>): Promise<number> {
  const all = links.map((l) => String(l.id));
  const client = await ctx.client();
  const { parts, prepared } = prepareChunks(client, linkStats, all, base);
  if (ctx.globals.dryRun) return (await printDryRun(ctx, prepared), EXIT.OK);
  const concurrency = parseConcurrency(opts.concurrency);
  ctx.page();
  // The chart measures cells with string-width (a file of its own in the bundle): loaded by this command only.
  const { keyStats, mergeStats, statsColumns, renderStatsChart } = await import('../../output/stats.js');
  const answers = await mapLimit(parts, concurrency, async (ids) =>
    keyStats(ids.map(Number), (await client.call(linkStats, { ...base, ids: ids.map(Number) })) as LinkStatsResult),
  );
  const merged = mergeStats(answers);
  const view = await ctx.view(linkStats, { columns: statsColumns(merged.ids), primary: 'clicks' });
  if (view.quiet) {
    ctx.stdout.write(merged.ids.map((id) => `${id} ${merged.totals[id]?.clicks ?? 0}`).join('\n') + '\n');
  } else if (view.format === 'table' && !view.fields) {
    const labels = Object.fromEntries(links.filter((l) => l.code).map((l) => [Number(l.id), l.code!]));
    renderStatsChart(ctx.stdout, merged, view.paint, { width: view.width ?? 80, labels, type: String(base.type) });
  } else {
    await renderRows(ctx.stdout, view, merged.rows);
  }
  return EXIT.OK;
}

/** `link stats <id...>` as typed: ids, comma lists and `-` for stdin. */
async function stats(ctx: RunContext, opts: CliValues, refs: readonly string[]): Promise<number> {
  // The flags are checked (the type with a stand-in id) before any link is looked up.
  const base = await criteria(ctx, opts);
  const client = await ctx.client();
  client.prepare(linkStats, { ...base, ids: [1] });
  const typed = await collectIds(ctx, refs);
  // No ids at all (an empty stdin) is the catalog's to refuse, naming the argument.
  if (typed.length === 0) client.prepare(linkStats, { ...base, ids: [] });
  // Link/GetStats counts nothing for a link that does not exist, as for one nobody clicked: every link is
  // read first (Link/Get, which also gives the chart its codes), except for a dry run, which sends nothing.
  const { links, missing } = await resolveLinks(client, typed, { check: !ctx.globals.dryRun, concurrency: parseConcurrency(opts.concurrency) });
  if (links.length === 0) throw await linkNotFound(client, missing);
  const code = await showStats(ctx, links, opts, base);
  if (missing.length) throw new PartialError(await linksNotFound(client, missing));
  return code;
}

export const LINK_STATS: CommandDef = {
  path: ['link', 'stats'],
  operation: linkStats,
  flags: (cmd) =>
    cmd
      .addOption(otherName(new Option('--from <time>', 'alias of --since').hideHelp(), '--since'))
      .addOption(otherName(new Option('--to <time>', 'alias of --until').hideHelp(), '--until'))
      .option('--concurrency <n>', 'requests in flight when more than 5 ids are given (default 4)'),
  about: `--since and --until take every form of \`smslink help time\` (7d is 7
days ago); a day alone runs from 00:00:00 (--since) or to 23:59:59 (--until).
--from and --to still work as their aliases.

One interval covers at most 3 years (monthly), 90 days (daily), 1 week
(hourly) or 3 hours (minute). Without --since and --until it is the latest
such interval; --since alone ends now; a longer range is cut (with a
warning). A run of periods without clicks is one line of the chart. More
than 5 ids are split into several requests and merged. Each link is looked
up first (the service counts no clicks for an id that is no link): exit 6
when none exists, 5 when some do not (they are named on stderr).`,
  examples: [
    'smslink link stats 417863                       # daily, the last 90 days',
    'smslink link stats 417863 417864 --since 7d',
    'smslink link stats 417863 --type hourly --since 2d --until 1d',
    'smslink link stats 417863 --type daily --since 2026-10-01 --until 2026-10-31',
    'smslink link stats 417863 417864 --type monthly -o csv',
  ],
  run: (ctx, opts, [refs]) => stats(ctx, opts, refs as string[]),
};
