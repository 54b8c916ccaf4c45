// `smslink sync`: brings the local mirror of the account (messages, links,
// clicks per day) up to date, and `sync --status` says what it holds. The
// work is src/mirror's; this reads the flags and prints the summary.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { ago } from '../../output/words.js';
import { mirrorAge, openMirror, runSync, syncFlags, syncOptions } from './open.js';
import { TIMES } from '../../catalog/shared.js';

async function status(ctx: RunContext): Promise<number> {
  const mirror = await openMirror(ctx, false);
  const { mirrorStatus } = await import('../../mirror/index.js');
  const s = mirrorStatus(mirror);
  const ageSeconds = mirrorAge(ctx, mirror);
  const record = { ...s, ageSeconds, age: ageSeconds === null ? null : ago(ageSeconds) };
  const columns = ['messages', 'pending', 'firstSent', 'lastSent', 'links', 'linksWithClicks', 'firstSyncDone', 'since', 'lastSync', 'age', 'path'];
  await renderRecord(ctx.stdout, await ctx.view({ output: { rows: 'self', columns: ctx.format() === 'table' ? columns : [...columns, 'ageSeconds'], primary: 'messages' } }), record);
  return EXIT.OK;
}

async function sync(ctx: RunContext, opts: CliValues): Promise<number> {
  if (opts.status) {
    const given = ['since', 'concurrency', 'rate'].filter((k) => opts[k] !== undefined);
    if (given.length) throw new UsageError(`--status only reads the mirror; it cannot be combined with --${given[0]}`);
    return status(ctx);
  }
  const flags = syncFlags(ctx, opts);
  if (ctx.globals.dryRun) throw new UsageError('--dry-run: sync sends only reads; run it without --dry-run (or see `sync --status`)');
  // statusesRefreshed (statusesChecked's old name) stays in csv/tsv for scripts, not in the table.
  const counts = ['messagesFetched', 'statusesChecked', 'statusesChanged', 'becameFinal', ...(ctx.format() === 'table' ? [] : ['statusesRefreshed']), 'links', 'linkStatsFetched'];
  const view = await ctx.view({ output: { rows: 'self', columns: ['first', 'since', ...counts], primary: 'messagesFetched' } });
  const mirror = await openMirror(ctx, true);
  const summary = await runSync(ctx, mirror, flags);
  await renderRecord(ctx.stdout, view, { ...summary });
  return EXIT.OK;
}

export const SYNC: CommandDef = {
  path: ['sync'],
  summary: "Mirror the account's messages and links into a local database, for reports and search",
  flags: (cmd) =>
    syncOptions(
      cmd
        .option('--since <time>', `the first sync fetches messages sent from then on, e.g. 30d or 2025-01-01; default: all (${TIMES})`)
        .option('--status', 'say what the mirror holds and how old it is; fetch nothing'),
    ),
  about: `The mirror is a SQLite file in the data directory (SMSLINK_DATA_DIR moves
it), one per service and profile; the sandbox has its own. The first sync
walks every message in windows of time (100 a request) and lists every link;
later ones fetch only new messages, the statuses of messages not yet final
(100 a request), new and clicked links (all of them when some were deleted,
and once a day) and the clicks per day of links that were clicked. A mirror
of an account that was reset is emptied and filled again, with a warning.
Ctrl-C keeps what was fetched (exit 130): run sync again to go on. A second
sync of the same mirror while one runs is refused (exit 2). The summary says
how many statuses were checked, how many changed and how many became final.`,
  examples: ['smslink sync', 'smslink sync --since 30d --rate 5', 'smslink sync --status', 'smslink --sandbox sync && smslink --sandbox report delivery'],
  run: (ctx, opts) => sync(ctx, opts),
};
