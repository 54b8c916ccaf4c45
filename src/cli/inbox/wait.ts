// `smslink inbox wait`: the newest message that matches, as soon as the
// emulator has one. It long-polls the control API (wait=), which answers
// when the message is stored; exit 3 when none came within --timeout.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { parseDuration, sleep } from '../core/time.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { duration } from '../../output/words.js';
import { openControl, printControlDryRun } from '../shared/emulator-control.js';
import { filterFlags, filterQuery, inboxView } from './filter.js';

/** The longest one request waits (the emulator's limit): a longer --timeout asks again. */
const WAIT_PER_REQUEST_MS = 300_000;
/** Time for the answer beyond the wait itself. */
const ANSWER_MS = 15_000;

/** What was waited for, in words: `to 77011234567 with "code" since "10m" (10 min ago, 2026-11-28 00:44:10)`. */
function wanted(q: URLSearchParams, since: string | undefined): string {
  return [q.has('to') && `to ${q.get('to')}`, q.has('text') && `with "${q.get('text')}"`, since !== undefined && `since ${since}`].filter(Boolean).join(' ');
}

async function wait(ctx: RunContext, opts: CliValues): Promise<number> {
  const { q, since } = filterQuery(ctx, opts);
  if (!q.has('to') && !q.has('text')) throw new UsageError('inbox wait needs --to or --text: which message to wait for');
  const timeoutMs = parseDuration(typeof opts.timeout === 'string' ? opts.timeout : '30s', '--timeout');
  q.set('limit', '1');
  const view = await inboxView(ctx, 'text');
  if (ctx.globals.dryRun) {
    q.set('wait', `${Math.min(timeoutMs, WAIT_PER_REQUEST_MS)}ms`);
    return (await printControlDryRun(ctx, 'GET', `messages?${q}`), EXIT.OK);
  }
  const control = await openControl(ctx);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = Math.max(0, deadline - Date.now());
    q.set('wait', `${Math.min(left, WAIT_PER_REQUEST_MS)}ms`);
    const route = `messages?${q}`;
    const answer = await control.request('GET', route, Math.min(left, WAIT_PER_REQUEST_MS) + ANSWER_MS);
    // Too many readers waiting: the emulator asks to come back in a second.
    if (answer.status === 503 && Date.now() + 1000 < deadline) {
      await sleep(1000, ctx.io.signal);
      continue;
    }
    const found = control.check(answer, route);
    const [message] = found.messages as Array<Record<string, unknown>>;
    if (message) {
      await renderRecord(ctx.stdout, view, message);
      return EXIT.OK;
    }
    if (Date.now() >= deadline) {
      throw new ExitError(`no message ${wanted(q, since)} came within ${duration(timeoutMs / 1000)} (--timeout)`, EXIT.TRANSPORT);
    }
  }
}

export const INBOX_WAIT: CommandDef = {
  path: ['inbox', 'wait'],
  summary: 'Wait for a message to arrive in the emulator and print it (a one-time code, say)',
  flags: (cmd) => filterFlags(cmd).option('--timeout <duration>', 'how long to wait: 90s, 10m, 1h (default 30s)'),
  about: `Prints the newest message that matches --to and --text as soon as the
emulator has one: at once when one is there already, else when the app sends
it. The emulator holds the request until then (a long poll, no sleeping in
between). Exit 0 with the message; 3 when none came within --timeout.

A message already there answers at once, so a test that sends twice to one
number either resets the emulator between its cases or gives --since a time
taken before the app sent. -q prints the text; --jq picks from the message's
JSON (id, to, from, text, status, createdAt, timeline ...).`,
  examples: [
    `smslink inbox wait --to +77011234567 --jq '.text | capture("(?<code>[0-9]{4,6})").code'`,
    'smslink inbox wait --base-url http://127.0.0.1:8080 --to 77011234567 --text "code" --timeout 1m -q',
    'since=$(date "+%F %T"); ./log-in.sh; smslink --sandbox inbox wait --to 77011234567 --since "$since"',
  ],
  run: (ctx, opts) => wait(ctx, opts),
};
