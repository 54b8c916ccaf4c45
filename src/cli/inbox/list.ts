// `smslink inbox list`: the messages the emulator received, newest first,
// picked by number, text and time, in every output format.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT } from '../../exit-codes.js';
import { renderRows } from '../../output/format.js';
import { parseCount } from '../shared/ids.js';
import { openControl, printControlDryRun } from '../shared/emulator-control.js';
import { filterFlags, filterQuery, inboxView } from './filter.js';

/** One request, answered at once; a long one is a slow emulator. */
const LIST_TIMEOUT_MS = 30_000;

async function list(ctx: RunContext, opts: CliValues): Promise<number> {
  const q = filterQuery(ctx, opts);
  q.set('limit', String(parseCount(opts.limit, '--limit', 100, 1000)));
  const route = `messages?${q}`;
  const view = await inboxView(ctx, 'id');
  if (ctx.globals.dryRun) return (await printControlDryRun(ctx, 'GET', route), EXIT.OK);
  const control = await openControl(ctx);
  const answer = control.check(await control.request('GET', route, LIST_TIMEOUT_MS), route);
  const messages = answer.messages as Array<Record<string, unknown>>;
  ctx.page();
  await renderRows(ctx.stdout, view, messages);
  const total = Number(answer.total);
  if (total > messages.length) ctx.note(`${messages.length} of ${total} messages shown; --limit shows up to 1000`);
  return EXIT.OK;
}

export const INBOX_LIST: CommandDef = {
  path: ['inbox', 'list'],
  alias: 'ls',
  summary: 'List the messages the emulator received, newest first',
  flags: (cmd) => filterFlags(cmd).option('--limit <n>', 'at most this many, 1 to 1000 (default 100)'),
  about: `Every account's messages, newest first, with their status and the time of
each step (JSON has the whole timeline). --to matches part of the number,
--text part of the text. Reaches the sandbox with --sandbox, or a running
serve with --base-url.`,
  examples: [
    'smslink --sandbox inbox list',
    'smslink inbox list --base-url http://127.0.0.1:8080 --to +77011234567 --since 5m',
    'smslink inbox list --text "Your code" -o csv',
    "smslink inbox list --jq '.[] | select(.status == \"UNDELIV\") | .to'",
  ],
  run: (ctx, opts) => list(ctx, opts),
};
