// `smslink inbox list`: the messages the emulator received, newest first,
// picked by number, text and time, in every output format.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';
import { restOfLimit, showing } from '../../output/words.js';
import { parseCount } from '../shared/ids.js';
import { openControl, printControlDryRun } from '../shared/emulator-control.js';
import { filterFlags, filterQuery, inboxView } from './filter.js';

/** The most messages the control API answers at once (its MESSAGE_LIMIT; the emulator's code is not loaded for this). */
const MESSAGE_LIMIT = 1000;

/** One request, answered at once; a long one is a slow emulator. */
const LIST_TIMEOUT_MS = 30_000;

async function list(ctx: RunContext, opts: CliValues): Promise<number> {
  const { q } = filterQuery(ctx, opts);
  const limit = parseCount(opts.limit, '--limit', 100, MESSAGE_LIMIT);
  q.set('limit', String(limit));
  const route = `messages?${q}`;
  const view = await inboxView(ctx, 'id');
  if (ctx.globals.dryRun) return (await printControlDryRun(ctx, 'GET', route), EXIT.OK);
  const control = await openControl(ctx);
  const answer = control.check(await control.request('GET', route, LIST_TIMEOUT_MS), route);
  const messages = answer.messages as Array<Record<string, unknown>>;
  ctx.page();
  await renderRows(ctx.stdout, view, messages);
  const total = Number(answer.total);
  const shown = messages.length;
  if (shown >= total) return EXIT.OK;
  // As link list says it: the default 100 is a page (a script is told, on stderr); a --limit asked for is told to a person only.
  const capped = opts.limit === undefined;
  if (capped && !ctx.io.stdout.isTTY) ctx.note(`${shown} of ${total} messages shown; add --limit ${Math.min(total, MESSAGE_LIMIT)} for ${total <= MESSAGE_LIMIT ? 'all of them' : `the newest ${MESSAGE_LIMIT}`}`);
  else if (view.format === 'table' && !view.quiet) ctx.note(`${showing(1, shown, total, 'messages')}. ${restOfLimit(total, limit, MESSAGE_LIMIT, 'newest', 'older ones: narrow with --to or --text')}`);
  return EXIT.OK;
}

export const INBOX_LIST: CommandDef = {
  path: ['inbox', 'list'],
  alias: 'ls',
  summary: 'List the messages the emulator received, newest first',
  flags: (cmd) => filterFlags(cmd).option('--limit <n>', `the newest n, 1 to ${MESSAGE_LIMIT} (default 100)`),
  about: `Every account's messages, newest first, with their status and the time of
each step (JSON has the whole timeline). --to matches part of the number,
--text part of the text. Reaches the sandbox with --sandbox, or a running
serve with --base-url. The newest 100 unless --limit says up to 1000: the
emulator answers no more at once and has no pages, so there is no --all.`,
  examples: [
    'smslink --sandbox inbox list',
    'smslink inbox list --base-url http://127.0.0.1:8080 --to +77011234567 --since 5m',
    'smslink inbox list --text "Your code" -o csv',
    "smslink inbox list --jq '.[] | select(.status == \"UNDELIV\") | .to'",
  ],
  run: (ctx, opts) => list(ctx, opts),
};
