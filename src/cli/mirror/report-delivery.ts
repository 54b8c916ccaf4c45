// `smslink report delivery`: messages, segments, final statuses, delivery
// rate, time to final status and cost, per day, sender, country or operator.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { MESSAGE_STATUS_GROUPS } from '../../catalog/codes.js';
import { invalidValue, oneOf } from '../../output/words.js';
import { renderRows, type Row } from '../../output/format.js';
import { sayCurrency } from '../shared/currency.js';
import { mirrorFor, period, reportFlags } from './report.js';
import { mirrorAgeWords } from './open.js';

const GROUPINGS = ['day', 'sender', 'country', 'operator'] as const;
const DELIVERY_COLUMNS = ['messages', 'segments', 'delivered', 'undelivered', 'rejected', 'expired', 'deleted', 'pending', 'deliveryRate', 'medianSeconds', 'p90Seconds', 'cost'];
async function delivery(ctx: RunContext, opts: CliValues): Promise<number> {
  const by = String(opts.by ?? 'day');
  if (!(GROUPINGS as readonly string[]).includes(by)) throw new UsageError(invalidValue('--by', by, oneOf(GROUPINGS), GROUPINGS));
  // By day, --since 7d starts at the start of that day: a first row of the hours left of it would look like a bad day.
  const range = period(ctx, opts, '7d', { wholeDays: by === 'day' });
  const view = await ctx.view({ output: { rows: 'array', columns: [by, ...DELIVERY_COLUMNS], primary: by } });
  const mirror = await mirrorFor(ctx, opts);
  const { deliveryReport, FINAL_COUNTS } = await import('../../mirror/index.js');
  const rows = deliveryReport(mirror, by as (typeof GROUPINGS)[number], range);
  const records: Row[] = rows.map(({ group, ...rest }) => ({ [by]: group, ...rest }));
  if (view.format !== 'table' || view.quiet) return (await renderRows(ctx.stdout, view, records), EXIT.OK);
  ctx.page();
  if (rows.length === 0) return (ctx.note(`No messages sent from ${range.since} to ${range.until} in the mirror${mirrorAgeWords(ctx, mirror)}.`), EXIT.OK);
  // The table says the rate as a percentage, the times as durations (their kinds: catalog/columns.ts) and the cost
  // in the currency the last sync learnt (the report reads the mirror alone).
  await sayCurrency(ctx, view, { ask: false });
  await renderRows(ctx.stdout, view, records);
  const { deliveryChart } = await import('../../output/delivery-chart.js');
  ctx.stdout.write(
    `\n${deliveryChart(
      // Failed as `--status failed` lists them (codes.ts): one group, one word, in the chart and on the command line.
      rows.map((r) => ({ label: r.group, delivered: r.delivered, failed: MESSAGE_STATUS_GROUPS.failed.reduce((n, code) => n + r[FINAL_COUNTS[code]], 0), pending: r.pending, rate: r.deliveryRate })),
      view.paint,
      ctx.tableWidth() ?? 80,
    )}`,
  );
  ctx.note(`Messages sent from ${range.since} to ${range.until}, from the mirror${mirrorAgeWords(ctx, mirror)}.`);
  return EXIT.OK;
}

export const REPORT_DELIVERY: CommandDef = {
  path: ['report', 'delivery'],
  summary: 'Messages, segments, final statuses, delivery rate, time to final status and cost, per group',
  flags: (cmd) => reportFlags(cmd.option('--by <group>', `group by ${GROUPINGS.join(', ')} (default day)`), '7d'),
  about: `Counts messages sent in the period, per group: segments, each final status,
pending (not yet final), delivery rate (delivered ÷ messages with a final
status), median and p90 time from send to final status, and cost (price of
a segment × segments, in the account's currency). At a terminal, a table and
a bar chart; -o json, ndjson or csv give the numbers unrounded (rate as a
fraction, times in seconds).

By day, a time typed back from now counts whole days: --since 7d starts at
00:00 of the day 7 days ago (not at this hour of it, which would make the
first row a short day), --until 1d ends at 23:59:59 of yesterday; today's
row runs to now. A date or a time given as such is kept as given.`,
  examples: [
  'smslink report delivery',
  'smslink report delivery --by country --since 30d',
  'smslink report delivery --by operator --since 2025-01-01 --until 2025-01-31 -o csv',
  'smslink report delivery --sync --by sender --json',
],
  run: (ctx, opts) => delivery(ctx, opts),
};
