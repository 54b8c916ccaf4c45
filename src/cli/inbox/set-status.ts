// `smslink inbox set-status <id> <status>`: one message of the emulator
// given a final status now, as the service's lifecycle would, for a test
// of what an app does when its SMS is not delivered.

import { MESSAGE_STATUS_WORDS } from '../../catalog/codes.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, ExitError, UsageError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { invalidValue, notFound, statusWithCode, statusWord } from '../../output/words.js';
import { openControl, printControlDryRun } from '../shared/emulator-control.js';
import { inboxView } from './filter.js';

/** The final statuses a message can be given, by the word a person types (the codes are taken too). */
const CHOICES = ['delivered', 'undelivered', 'rejected', 'expired'] as const;

/** The code of a typed status: one of CHOICES or its code, in any case. */
function statusOf(typed: string): string {
  const t = typed.trim();
  const codes = CHOICES.map((w) => MESSAGE_STATUS_WORDS[w]);
  const code = (CHOICES as readonly string[]).includes(t.toLowerCase()) ? MESSAGE_STATUS_WORDS[t.toLowerCase()] : codes.find((c) => c === t.toUpperCase());
  if (code) return code;
  throw new UsageError(invalidValue('<status>', typed, `must be one of ${CHOICES.join(', ')} (or its code: ${codes.join(', ')})`, CHOICES));
}

async function setStatus(ctx: RunContext, _opts: CliValues, idText: string, typed: string): Promise<number> {
  if (!/^\d{1,15}$/.test(idText.trim()) || Number(idText) < 1) throw new UsageError(`<id>: invalid value "${idText}": must be a message id (a whole number from 1)`);
  const body = { id: Number(idText), status: statusOf(typed) };
  const view = await inboxView(ctx, 'id');
  if (ctx.globals.dryRun) return (await printControlDryRun(ctx, 'POST', 'messages/status', body), EXIT.OK);
  const control = await openControl(ctx);
  const asked = await control.request('POST', 'messages/status', 30_000, body);
  // A message the emulator does not have is said as every command says it.
  if (asked.status === 404 && typeof asked.json?.error === 'string') throw new ExitError(notFound('message', [idText.trim()]), EXIT.NOT_FOUND);
  const answer = control.check(asked, 'messages/status');
  const message = answer.sms as Record<string, unknown>;
  await renderRecord(ctx.stdout, { ...view, primary: 'status' }, message);
  ctx.note(
    answer.changed
      ? `message ${body.id}: ${statusWithCode(String(message.status))} from ${message.statusUpdateTs} (was ${statusWithCode(String(answer.previousStatus))})`
      : `message ${body.id} was ${statusWord(body.status)} already; nothing changed`,
  );
  return EXIT.OK;
}

export const INBOX_SET_STATUS: CommandDef = {
  path: ['inbox', 'set-status'],
  summary: "Give one of the emulator's messages a final status now: delivered, undelivered, rejected or expired",
  flags: (cmd) => cmd.argument('<id>', 'the message id (message send prints it; inbox list shows it)').argument('<status>', 'delivered, undelivered, rejected or expired'),
  about: `As the service's lifecycle would: the steps not reached yet (queued,
accepted) come now, then the final status, dated now; the clock stays.
Message/GetSMSStatus, \`message list --follow\`, \`message status --wait\` and the
inspector all see it, and serve's request log shows the change. Works on any
account's message, whatever number it went to; a message that already had a
final status gets the new one (the live service never changes one: a test
chooses).`,
  examples: [
    'smslink inbox set-status 12 undelivered',
    'smslink --sandbox inbox set-status 12 expired -q',
    'id=$(smslink inbox wait --to 77011234567 --jq .id) && smslink inbox set-status "$id" rejected',
  ],
  run: (ctx, opts, [id, status]) => setStatus(ctx, opts, id as string, status as string),
};
