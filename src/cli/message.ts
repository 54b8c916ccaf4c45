// `smslink message ...`: send one SMS, read delivery status, list messages:
// what each command does beyond its catalog entry (src/cli/registrar.ts
// builds them).

import type { Command } from 'commander';
import { messageList, messageSend, messageStatus } from '../catalog/message.js';
import type { MessageStatusRecord, SendMessageResult } from '../catalog/types.js';
import type { RunContext } from './context.js';
import type { View } from '../output/format.js';
import { callOperation, collectIds, prepareChunks, mapLimit, parseConcurrency, printDryRun, readStdin } from './common.js';
import { EXIT, ExitError, PartialError, UsageError } from '../exit-codes.js';
import { BULK_STOPS_HELP, bulkFlags, bulkHost, bulkOptions, columnSpec, rejectBulkFlagsWithoutFile } from './bulk.js';
import { inputFrom, type CliValues, type NounCommands } from './operation.js';
import { followable } from './follow.js';
import { listCommand } from './paging.js';
import { MESSAGE_GET, recipientsAndTexts } from './message-get.js';
import { parseDuration, waitForDelivery, waitOutcome, type WaitOptions, type WaitResult } from './wait.js';

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** Placeholders of a --text template: "Hi {{name}}" -> ['name']. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

async function bulkSend(ctx: RunContext, opts: CliValues): Promise<number> {
  if (opts.to !== undefined) throw new UsageError('give either --to or --from-file, not both (the file has a recipient column)');
  if (opts.wait) throw new UsageError('--wait applies to a single send; after a bulk send, wait with `smslink message status - --wait` fed the messageIds');
  const { runBulk } = await import('../bulk/engine.js');
  const template = typeof opts.text === 'string' ? opts.text : undefined;
  if (template === '-') throw new UsageError('--text - (stdin) cannot be combined with --from-file; give the template inline');
  const { recipient: _r, text: _t, ...defaults } = inputFrom(messageSend, [], opts, [], ctx.now());
  defaults.from ??= ctx.settings().sender.value;
  // A column the template uses only fills the text: "Hi {{name}}" must not also name the campaign.
  const used = new Set(template ? placeholders(template) : []);
  const columns = Object.fromEntries(
    Object.entries({ recipient: 'recipient', text: 'text', from: 'from', name: 'name', deferredToTs: 'at', validity: 'validity' }).filter(
      ([key, column]) => key === 'recipient' || !used.has(column),
    ),
  );
  const spec = columnSpec(
    ctx,
    'message send',
    messageSend,
    {
      columns,
      required: template ? ['recipient'] : ['recipient', 'text'],
      defaults,
    },
    {
      checkColumns(columns) {
        const unknown = template ? placeholders(template).filter((p) => !columns.includes(p)) : [];
        if (unknown.length)
          throw new UsageError(`--text: unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(', ')}; the input's columns are ${columns.join(', ')}`);
      },
      fill(input, fields, problems) {
        if (!template) return;
        input.text = template.replace(PLACEHOLDER, (_m, name: string) => {
          const value = fields[name];
          if (value === undefined || value === null || String(value) === '') problems.push({ column: name, rule: `is empty but --text uses {{${name}}}` });
          return value === undefined || value === null ? '' : String(value);
        });
      },
      resultColumns: ['messageId', 'campaignId', 'status'],
      primary: 'messageId',
      alsoUsed: [...used],
    },
  );
  return runBulk(bulkHost(ctx), spec, bulkFlags(opts));
}

/** What `message send --wait` shows: the send result, then the delivery. */
const WAIT_COLUMNS = [...messageSend.output.columns, 'deliveryStatus', 'statusUpdateTs'];

/** What a send shows: its result (and the delivery waited for); a table also has the status as campaignStatus. */
function sendRecord(view: View, result: SendMessageResult, delivery: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...result, ...(view.format === 'table' ? { campaignStatus: result.status } : {}), ...delivery };
}

async function send(ctx: RunContext, opts: CliValues): Promise<number> {
  if (opts.fromFile !== undefined) return bulkSend(ctx, opts);
  rejectBulkFlagsWithoutFile(opts);
  const input = inputFrom(messageSend, [], opts, [], ctx.now());
  // Checked before sending: a bad --wait-timeout found after the send would leave a sent SMS and exit 2.
  const waitOpts = opts.wait ? waitOptions(opts) : undefined;
  const view = await ctx.view(messageSend, { columns: waitOpts ? WAIT_COLUMNS : messageSend.output.columns });
  // A table names the campaign's status as such; scripts keep the service's `status`.
  if (view.format === 'table') view.columns = view.columns.map((c) => (c === 'status' ? 'campaignStatus' : c));
  if (input.text === '-') input.text = (await readStdin(ctx)).replace(/\r?\n$/, '');
  input.from ??= ctx.settings().sender.value;
  if (ctx.globals.dryRun) {
    const { countSegments } = await import('../catalog/segments.js');
    const client = await ctx.client();
    const req = client.prepare(messageSend, input);
    const seg = countSegments(String(input.text));
    await printDryRun(ctx, [req], { encoding: seg.encoding, segments: seg.segments, characters: seg.characters });
    return EXIT.OK;
  }
  const result = await callOperation<SendMessageResult>(ctx, messageSend, input);
  const { renderRecord } = await import('../output/format.js');
  if (!waitOpts) {
    await renderRecord(ctx.stdout, view, sendRecord(view, result));
    return EXIT.OK;
  }
  const ids = [result.messageId];
  // Said before waiting, so the id is not lost if the wait is interrupted or fails.
  ctx.note(`sent: messageId ${result.messageId} (campaign ${result.campaignId}); waiting for delivery`);
  const waited = await waitForDelivery(ctx, await ctx.client(), ids, waitOpts);
  const final = waited.records.get(result.messageId);
  await renderRecord(ctx.stdout, view, sendRecord(view, result, { deliveryStatus: final?.status ?? null, statusUpdateTs: final?.statusUpdateTs ?? null }));
  return waitOutcome(ids, waited);
}

function waitOptions(opts: CliValues): WaitOptions {
  return {
    timeoutMs: parseDuration(typeof opts.waitTimeout === 'string' ? opts.waitTimeout : '10m', '--wait-timeout'),
    concurrency: parseConcurrency(opts.concurrency),
  };
}

function waitFlags(cmd: Command): Command {
  return cmd
    .option('--wait', 'wait until every message has a final status (exit 0 all delivered, 7 otherwise, 3 on timeout)')
    .option('--wait-timeout <duration>', 'how long --wait waits: 90s, 10m, 1h (default 10m)');
}

/** A `message status` table: the catalog's columns with the recipient after the id and the text last. */
const STATUS_TABLE_COLUMNS = ['id', 'to', ...messageStatus.output.columns.slice(1), 'text'];

async function status(ctx: RunContext, opts: CliValues, ids: string[]): Promise<number> {
  const all = await collectIds(ctx, ids);
  const waitOpts = opts.wait ? waitOptions(opts) : undefined;
  const client = await ctx.client();
  const { parts, prepared } = prepareChunks(client, messageStatus, all);
  if (ctx.globals.dryRun) return (await printDryRun(ctx, prepared), EXIT.OK);
  let byId = new Map<number, MessageStatusRecord>();
  let waited: WaitResult | undefined;
  if (waitOpts) {
    waited = await waitForDelivery(ctx, client, all.map(Number), waitOpts);
    byId = waited.records;
  } else {
    ctx.page();
    const answers = await mapLimit(parts, parseConcurrency(opts.concurrency), (part) => client.getMessageStatus({ ids: part.map(Number) }));
    for (const rec of answers.flat()) byId.set(Number(rec.id), rec);
  }
  // Rows in the order the ids were given.
  let rows: Record<string, unknown>[] = all.map((id) => byId.get(Number(id))).filter((r): r is MessageStatusRecord => r !== undefined);
  const missing = all.filter((id) => !byId.has(Number(id)));
  const { renderRecord, renderRows } = await import('../output/format.js');
  let view = await ctx.view(messageStatus);
  if (view.format === 'table' && !view.quiet && !view.fields && rows.length) {
    // A person at a terminal also sees whom each message went to and what it said: one Message/List per 100 ids.
    // The statuses were asked for: a failed lookup leaves these columns out, with a note, rather than the statuses.
    const found = await recipientsAndTexts(client, rows as MessageStatusRecord[], parseConcurrency(opts.concurrency)).catch((err: unknown) => {
      ctx.note(`recipient and text not shown: Message/List failed (${err instanceof Error ? err.message : String(err)})`);
      return undefined;
    });
    if (found) {
      rows = rows.map((r) => ({ ...r, to: found.get(Number(r.id))?.to ?? null, text: found.get(Number(r.id))?.text ?? null }));
      view = { ...view, columns: STATUS_TABLE_COLUMNS };
    }
  }
  // One message asked for, one shown: as a record in a table, every value whole; scripts keep their list.
  if (all.length === 1 && rows.length === 1 && view.format === 'table') await renderRecord(ctx.stdout, view, rows[0]);
  else await renderRows(ctx.stdout, view, rows);
  if (waited) return waitOutcome(all.map(Number), waited);
  if (missing.length && rows.length === 0) throw new ExitError(`no message found for ${missing.join(', ')} (unknown, or not yours)`, EXIT.NOT_FOUND);
  if (missing.length) throw new PartialError(`no message found for ${missing.join(', ')} (unknown, or not yours)`);
  return EXIT.OK;
}

/** `smslink message ...`: what each Message operation's command adds to its catalog entry. */
export const MESSAGE: NounCommands = {
  description: 'Send single SMS messages and follow their delivery',
  examples: [
    'smslink message send --to +77011234567 --text "Your code is 4711" --wait',
    'smslink message status 123456',
    'smslink message get 123456',
    'smslink message ls --status undelivered --sent-from 1d',
  ],
  commands: {
    [messageSend.id]: {
      flags: (cmd) => bulkOptions(waitFlags(cmd)),
      about: `The recipient is written in international format; +, spaces, dashes and
brackets are removed (7 to 15 digits remain). --dry-run also shows the
encoding (GSM-7 or UCS-2) and the number of segments.

--at sends later: "YYYY-MM-DD HH:MM[:SS]" in your machine's local time, or a
time from now: +90m, +2h, +3d, +1w (the + may be left out). It must be 1 hour
to 14 days from now.

With --from-file, each row of a CSV or NDJSON file (columns: recipient, text,
and optionally from, name, at, validity) is one message. --text "Hi {{name}}"
fills placeholders from the row's columns (a column used by the template
only fills the text); --from, --name, --at and --validity fill empty cells. A journal beside the file records every
outcome: a rerun skips sent rows, retries failed ones, and looks for the
message of a row whose answer was lost before it sends that row again. The
file is read as UTF-8 (or UTF-16 with a BOM); a file that is not is refused
unless --encoding names its encoding (windows-1251, latin1, utf-16le ...).
${BULK_STOPS_HELP}`,
      examples: [
        'smslink message send --to +77011234567 --text "Your code is 4711"',
        'echo "Meeting moved to 15:00" | smslink message send --to 77011234567 --text -',
        'smslink message send --to 77011234567 --text "Sale: https://example.com/sale" --shorten-links',
        'smslink message send --to 77011234567 --text "Reminder" --at "2026-12-01 09:00" --validity 120',
        'smslink message send --to 77011234567 --text "Your table is ready" --at +2h',
        'smslink message send --to 77011234567 --text "CI check" --wait --wait-timeout 2m',
        'smslink message send --from-file customers.csv --text "Hi {{name}}, your code is {{code}}" --rate 20',
        'smslink message send --from-file kunden.csv --encoding latin1 --validate-only',
      ],
      run: send,
    },

    [messageStatus.id]: {
      flags: (cmd) => waitFlags(cmd).option('--concurrency <n>', 'requests in flight when more than 100 ids are given (default 4)'),
      about: `Statuses: new, queued, accepted, partly delivered (not final); delivered,
undelivered, rejected, expired, deleted (final). Tables say them in words;
-q, JSON and CSV keep the service's codes (NEW, ENQUEUD, ACCEPTD, PDLIVRD,
DELIVRD, UNDELIV, REJECTD, EXPIRED, DELETED). A table at a terminal also
shows each message's recipient and text (one more request per 100 ids);
\`smslink message get\` shows a message whole. Ids the service does not know
(or that belong to another key) are named on stderr: exit 6 when none was
found, 5 when some were. More than 100 ids are split into several requests.`,
      examples: [
        'smslink message status 123456',
        'smslink message status 123456,123457 -q',
        'cut -d, -f1 sent.csv | smslink message status - -o csv',
        'smslink message status 123456 --wait --wait-timeout 5m   # exit 0 delivered, 7 not, 3 timeout',
      ],
      run: (ctx, opts, [ids]) => status(ctx, opts, ids as string[]),
    },

    [messageList.id]: followable(listCommand(
      messageList,
      'messages',
      `Time criteria take YYYY-MM-DD (filled to 00:00:00 for -from and 23:59:59
for -to), "YYYY-MM-DD HH:MM[:SS]", now, or a time ago: 30m, 12h, 7d, 2w
(m minutes, h hours, d days, w weeks), in your machine's local time.

--status takes several statuses comma-separated (undelivered,rejected): the
service takes one status per request, so each is listed on its own and the
lists are merged, newest first or in --sort order. --limit n and --all work across
them; --page does not (exit 2). Without either, the first 25 (--page-size)
are shown.

--follow prints each message sent from then on, once, and each later change
of its status, until Ctrl-C (exit 0). Filters choose which new messages are
printed. It asks every 1s (--interval), less often while nothing changes (up
to 10s). Each record has "event": "new" or "status" (with previousStatus);
json is written as ndjson, one object per line, since the stream has no end.`,
      [
        'smslink message list --to 77011234567',
        'smslink message list --status UNDELIV --sent-from 2026-11-01 --with-number-info',
        'smslink message list --status undelivered,rejected --sent-from 7d --all',
        'smslink message list --sent-from 1d --sent-to now',
        'smslink message list --campaign-ids 9001,9002 --sort startSendTs:desc --all -o ndjson',
        'smslink message list --follow',
        'smslink message list --follow --to 77011234567 -o ndjson',
        'smslink message list --follow --jq \'select(.event == "status") | "\\(.id) \\(.status)"\'',
      ],
    )),
  },
  more: [MESSAGE_GET],
};
