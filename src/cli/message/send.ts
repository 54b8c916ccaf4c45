// `smslink message send`: one SMS (and, with --wait, its delivery); with
// --from-file, one per row of a file, a --text template filled from its
// columns (src/bulk).

import { countSegments } from '../../catalog/segments.js';
import { parseAmount } from '../shared/balance.js';
import { canConfirm, YES_OPTION } from '../core/prompt.js';
import { costGate } from './cost.js';
import { messageSend } from '../../catalog/message.js';
import type { SendMessageResult } from '../../catalog/types.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { readStdin } from '../core/streams.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRecord, type View } from '../../output/format.js';
import { fromNow, recordTime } from '../../output/words.js';
import { shellWord } from '../../output/text.js';
import { formatDateTime } from '../../catalog/rules.js';
import { wallMs } from '../core/time.js';
import { BULK_STOPS_HELP, bulkFlags, bulkHost, bulkOptions, columnSpec, rejectBulkFlagsWithoutFile } from '../shared/bulk.js';
import { printDryRun } from '../shared/dry-run.js';
import { inputFrom } from '../shared/operation.js';
import { waitFlags, waitForDelivery, waitOptions, waitOutcome } from './wait.js';

// A column's name may hold spaces, as a spreadsheet's header does ("First Name"): the name is what
// stands between the braces, trimmed. Every {{...}} is a placeholder, so none reaches a recipient as typed.
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Placeholders of a --text template: "Hi {{name}}" -> ['name'], "Hi {{ First Name }}" -> ['First Name']. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

async function bulkSend(ctx: RunContext, opts: CliValues): Promise<number> {
  if (opts.to !== undefined) throw new UsageError('give either --to or --from-file, not both (the file has the recipients)');
  if (opts.wait) throw new UsageError('--wait applies to a single send; after a bulk send, wait with `smslink message status - --wait` fed the messageIds');
  const maxCost = opts.maxCost === undefined ? undefined : parseAmount(opts.maxCost, '--max-cost');
  const { runBulk } = await import('../../bulk/engine.js');
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
      // The flag's name, and message list's column: its csv sends again as it is.
      aliases: { recipient: 'to' },
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
  spec.segmentsOf = (fields) => countSegments(String(spec.toInput(fields).input.text ?? '')).segments;
  const host = bulkHost(ctx);
  // Only a run that shows its estimate counts segments: a script without --max-cost neither asks nor pays for it.
  if (maxCost !== undefined || (opts.yes !== true && canConfirm(ctx))) host.beforeSend = (plan) => costGate(ctx, opts, maxCost, plan);
  return runBulk(host, spec, bulkFlags(opts));
}

/** What `message send --wait` shows: the send result, then the delivery. */
const WAIT_COLUMNS = [...messageSend.output.columns, 'deliveryStatus', 'statusUpdateTs'];

/**
 * What a send shows: its result (and the delivery waited for); a table also
 * has the status as campaignStatus, and when a deferred send goes out:
 * `2026-11-27 09:00:00 (in 13 h 51 min)`.
 */
function sendRecord(view: View, result: SendMessageResult, people: { at?: unknown; now: Date }, delivery: Record<string, unknown> = {}): Record<string, unknown> {
  if (view.format !== 'table') return { ...result, ...delivery };
  const at = typeof people.at === 'string' ? people.at : undefined;
  const scheduled = at && `${recordTime(at)} (${fromNow((wallMs(at) - wallMs(formatDateTime(people.now))) / 1000)})`;
  return { ...result, campaignStatus: result.status, ...(scheduled ? { scheduled } : {}), ...delivery };
}

async function send(ctx: RunContext, opts: CliValues): Promise<number> {
  if (opts.fromFile !== undefined) return bulkSend(ctx, opts);
  rejectBulkFlagsWithoutFile(opts);
  if (opts.maxCost !== undefined) throw new UsageError('--max-cost only applies with --from-file');
  if (opts.yes !== undefined) throw new UsageError('--yes only applies with --from-file (a single send asks nothing)');
  const input = inputFrom(messageSend, [], opts, [], ctx.now());
  // Checked before sending: a bad --wait-timeout found after the send would leave a sent SMS and exit 2.
  const waitOpts = waitOptions(opts);
  const view = await ctx.view(messageSend, { columns: waitOpts ? WAIT_COLUMNS : messageSend.output.columns });
  // A table names the campaign's status as such, and says when a deferred send goes out; scripts keep the service's fields.
  if (view.format === 'table') view.columns = view.columns.flatMap((c) => (c !== 'status' ? [c] : input.deferredToTs ? ['campaignStatus', 'scheduled'] : ['campaignStatus']));
  if (input.text === '-') input.text = (await readStdin(ctx.io)).replace(/\r?\n$/, '');
  input.from ??= ctx.settings().sender.value;
  const client = await ctx.client();
  if (ctx.globals.dryRun) {
    const req = client.prepare(messageSend, input);
    const seg = countSegments(String(input.text));
    await printDryRun(ctx, [req], { encoding: seg.encoding, segments: seg.segments, characters: seg.characters });
    return EXIT.OK;
  }
  // A lost answer leaves the user to find out whether it went: the hint names the number as they typed it.
  ctx.outcomeCheck = `smslink message list --to ${shellWord(String(opts.to))}`;
  const result = await client.call(messageSend, input);
  ctx.outcomeCheck = undefined;
  if (!waitOpts) {
    await renderRecord(ctx.stdout, view, sendRecord(view, result, { at: input.deferredToTs, now: ctx.now() }));
    return EXIT.OK;
  }
  const ids = [result.messageId];
  // Said before waiting, so the id is not lost if the wait is interrupted or fails.
  ctx.note(`Sent message ${result.messageId} (campaign ${result.campaignId}); waiting for delivery`);
  const waited = await waitForDelivery(ctx, client, ids, waitOpts);
  const final = waited.records.get(result.messageId);
  await renderRecord(ctx.stdout, view, sendRecord(view, result, { at: input.deferredToTs, now: ctx.now() }, { deliveryStatus: final?.status ?? null, statusUpdateTs: final?.statusUpdateTs ?? null }));
  return waitOutcome(ids, waited);
}

export const MESSAGE_SEND: CommandDef = {
  path: ['message', 'send'],
  operation: messageSend,
  flags: (cmd) =>
    bulkOptions(waitFlags(cmd))
      .option('--max-cost <amount>', "with --from-file: send nothing when the estimated cost is above this (in the balance's currency; exit 8)")
      .option(...YES_OPTION),
  about: `The recipient is written in international format; +, spaces, dashes and
brackets are removed (7 to 15 digits remain). --dry-run also shows the
encoding (GSM-7 or UCS-2) and the number of segments.

--at sends later, more than 1 hour and at most 14 days from now:
"2026-12-01 09:00", 09:00 (today), or a time from now with a +: +90m, +2h,
+3d, +1w (\`smslink help time\`: 2h without the + is 2 hours ago, and
refused). The record says when it goes out.

With --from-file, each row of a CSV or NDJSON file, or each object of a JSON
array (columns or keys: recipient or to, text, and optionally from, name, at,
validity) is one message. --text "Hi {{name}}" fills placeholders from the
row's columns (a column used by the template only fills the text); --from,
--name, --at and --validity fill empty cells.
A journal beside the file records every outcome: a rerun skips sent rows,
retries failed ones, and looks for the message of a row whose answer was
lost before it sends that row again. The
file is read as UTF-8 (or UTF-16 with a BOM); a file that is not is refused
unless --encoding names its encoding (windows-1251, latin1, utf-16le ...).
${BULK_STOPS_HELP}

Before a --from-file run sends anything, at a terminal, it says what the
file's rows come to: messages, segments (each row's text counted as the
service counts it), the cost where the price of a segment is known (that of
the account's last message) and the balance; then asks to go on (--yes does
not ask). --max-cost AMOUNT refuses a run estimated above it, exit 8, nothing
sent (and exit 2 when no price is known yet); a script without it is asked
nothing and sends no extra request. \`smslink balance --min\` checks the money
alone.`,
  examples: [
    'smslink message send --to +77011234567 --text "Your code is 4711"',
    'echo "Meeting moved to 15:00" | smslink message send --to 77011234567 --text -',
    'smslink message send --to 77011234567 --text "Sale: https://example.com/sale" --shorten-links',
    'smslink message send --to 77011234567 --text "Reminder" --at "2026-12-01 09:00" --validity 120',
    'smslink message send --to 77011234567 --text "Your table is ready" --at +2h',
    'smslink message send --to 77011234567 --text "CI check" --wait --wait-timeout 2m',
    'smslink message send --from-file customers.csv --text "Hi {{name}}, your code is {{code}}" --rate 20',
    'smslink message send --from-file customers.csv --text "Hi {{name}}" --max-cost 25 --yes   # exit 8 above 25, nothing sent',
    'smslink message send --from-file kunden.csv --encoding latin1 --validate-only',
  ],
  run: send,
};
