// `smslink report links`: the most clicked links in a period, with clicks per day.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRows, type Row } from '../../output/format.js';
import { mirrorFor, period, reportFlags } from './report.js';
import { mirrorAgeWords } from './open.js';

const LINK_COLUMNS = ['id', 'shortLink', 'clicks', 'redirects', 'activeDays', 'clicksPerDay', 'busiestDay', 'fullLink', 'comment'];

async function links(ctx: RunContext, opts: CliValues): Promise<number> {
  const range = period(ctx, opts, '30d');
  const top = opts.top === undefined ? 10 : Number(opts.top);
  if (!Number.isInteger(top) || top < 1 || top > 1000) throw new UsageError(`--top: invalid value "${opts.top}": must be a whole number from 1 to 1000`);
  const view = await ctx.view({ output: { rows: 'array', columns: LINK_COLUMNS, primary: 'id' } });
  const mirror = await mirrorFor(ctx, opts);
  const { linksReport } = await import('../../mirror/index.js');
  const rows = linksReport(mirror, range.since.slice(0, 10), range.until.slice(0, 10), top);
  if (view.format === 'table' && !view.quiet) {
    ctx.page();
    if (rows.length === 0) return (ctx.note(`No clicks from ${range.since.slice(0, 10)} to ${range.until.slice(0, 10)} in the mirror${mirrorAgeWords(ctx, mirror)}.`), EXIT.OK);
  }
  // csv and tables have no room for the per-day object: scripts take it from json or ndjson.
  const flat = view.format === 'json' || view.format === 'ndjson' ? rows : rows.map(({ daily: _daily, ...rest }) => rest);
  await renderRows(ctx.stdout, view, flat as unknown as Row[]);
  return EXIT.OK;
}

export const REPORT_LINKS: CommandDef = {
  path: ['report', 'links'],
  summary: 'The most clicked links in a period, with clicks per day',
  flags: (cmd) => reportFlags(cmd.option('--top <n>', 'how many links (default 10)'), '30d'),
  about: `Clicks per day come from Link/GetStats (5 links a request), fetched by sync
for links whose click count moved, and kept in the mirror (the last 90 days).
json and ndjson add each link's clicks per day ("daily").`,
  examples: ['smslink report links', 'smslink report links --since 7d --top 3', 'smslink report links --sync --json'],
  run: (ctx, opts) => links(ctx, opts),
};
