// `smslink report`: reports read from the local mirror that `sync` keeps
// (design: sync is one job, reporting another); `--sync` refreshes it first.
// This file is the noun and what its verbs share; a table and a chart for
// people, json, ndjson and csv for scripts, the numbers unrounded.

import type { Command } from 'commander';
import type { CliValues, GroupDef } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { isRelativeTime, quoteTime, reversedRange, timeFlag } from '../core/time.js';
import { UsageError } from '../../exit-codes.js';
import { formatDateTime } from '../../catalog/rules.js';
import { TIMES } from '../../catalog/shared.js';
import { openMirror, runSync, syncFlags, syncOptions } from './open.js';

export const REPORT: GroupDef = {
  path: ['report'],
  group: true,
  summary: 'Reports from the local mirror (`smslink sync`): delivery, clicked links',
  examples: ['smslink sync && smslink report delivery --by country', 'smslink report links --since 7d', 'smslink report delivery --sync -o csv > week.csv'],
};

/**
 * --since and --until as wire times; --until defaults to now. With
 * `wholeDays` (a report by day), a time typed back from now counts whole
 * days: --since 7d from the start of that day, --until 1d to its end, so no
 * row is a day cut short by the clock. A date or a time typed as such is kept.
 */
export function period(ctx: RunContext, opts: CliValues, defaultSince: string, rules: { wholeDays?: boolean } = {}): { since: string; until: string } {
  const now = ctx.now();
  const sinceTyped = String(opts.since ?? defaultSince);
  const since = timeFlag('--since', sinceTyped, now, { fill: 'start' });
  const until = opts.until === undefined ? formatDateTime(now) : timeFlag('--until', String(opts.until), now, { fill: 'end' });
  if (until < since) {
    if (opts.until === undefined) throw new UsageError(`--since: invalid value ${quoteTime(sinceTyped, since, now)}: is in the future (now is ${until})`);
    throw reversedRange({ flag: '--since', typed: sinceTyped, wire: since }, { flag: '--until', typed: String(opts.until), wire: until }, now);
  }
  // Checked as typed, so that a refusal quotes the moment typed, as on every time flag; whole days only widen it.
  const whole = (typed: unknown) => rules.wholeDays === true && typed !== undefined && isRelativeTime(String(typed));
  return {
    since: whole(sinceTyped) ? `${since.slice(0, 10)} 00:00:00` : since,
    until: whole(opts.until) ? `${until.slice(0, 10)} 23:59:59` : until,
  };
}

/** The mirror, refreshed first with --sync (its --concurrency and --rate too). */
export async function mirrorFor(ctx: RunContext, opts: CliValues) {
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

export function reportFlags(cmd: Command, since: string): Command {
  return syncOptions(
    cmd
      .option('--since <time>', `from this time (default ${since}), e.g. 30d or 2025-01-01 (${TIMES})`)
      .option('--until <time>', `up to this time (default now) (${TIMES})`)
      .option('--sync', 'bring the mirror up to date first (as `smslink sync`)'),
  );
}
