// What `inbox list` and `inbox wait` share: the flags that pick messages
// (--to, --text, --since) as the control API's query, and how a message
// is shown (its fields, a table's columns).

import type { Command } from 'commander';
import { parseDateTime, normalizePhone } from '../../catalog/rules.js';
import { TIMES } from '../../catalog/shared.js';
import type { Shape } from '../../catalog/types.js';
import type { CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { quoteTime, timeFlag } from '../core/time.js';
import { UsageError } from '../../exit-codes.js';
import { sayCurrency } from '../shared/currency.js';

/** The fields of a message as the control API gives it, in the order JSON keeps them (what --fields may name). */
export const INBOX_FIELDS = [
  'id',
  'account',
  'campaignId',
  'from',
  'to',
  'text',
  'status',
  'segments',
  'encoding',
  'segUserBuy',
  'price',
  'countryA2',
  'operatorName',
  'createdAt',
  'startSendTs',
  'statusUpdateTs',
  'timeline',
] as const;

/** What a table shows. */
export const INBOX_COLUMNS = ['id', 'createdAt', 'to', 'from', 'status', 'text'];

export function filterFlags(cmd: Command): Command {
  return cmd
    .option('--to <number>', 'messages to this number, or numbers holding these digits (+77011234567, 7701)')
    .option('--text <substring>', 'messages whose text holds this')
    .option('--since <time>', `messages sent at or after this, e.g. 5m (ago) or 09:00 (${TIMES})`);
}

/**
 * The flags as the control API's query (`to=...&text=...&since=...`), and
 * --since as a person reads it: as typed, with the time it stood for (`"10m"
 * (10 min ago, 2026-11-28 00:44:10)`), where the query has an instant in UTC.
 * A bad value is a usage error naming its flag.
 */
export function filterQuery(ctx: RunContext, opts: CliValues): { q: URLSearchParams; since?: string } {
  const q = new URLSearchParams();
  let since: string | undefined;
  if (typeof opts.to === 'string') {
    const digits = normalizePhone(opts.to);
    if (!/^\d{1,20}$/.test(digits)) throw new UsageError(`--to: invalid value "${opts.to}": must be a phone number or some of its digits (a leading + and spaces allowed)`);
    q.set('to', digits);
  }
  if (typeof opts.text === 'string') {
    if (opts.text === '') throw new UsageError('--text: must not be empty');
    q.set('text', opts.text);
  }
  if (typeof opts.since === 'string') {
    // The machine's local time, sent as an instant: the emulator may keep another zone (serve --tz).
    const now = ctx.now();
    const wire = timeFlag('--since', opts.since, now, { fill: 'start' });
    const p = parseDateTime(wire)!;
    q.set('since', new Date(p.year, p.month - 1, p.day, p.hour, p.minute, p.second).toISOString());
    since = quoteTime(opts.since, wire, now);
  }
  return { q, since };
}

/** A message's fields as a result shape: --fields may name any of them, not only the table's. */
const INBOX_SHAPE: Shape = { array: { object: Object.fromEntries(INBOX_FIELDS.map((f) => [f, 'any' as const])) } };

/** The output view of inbox messages: statuses in words in a table, money in the account's currency, `primary` for -q. */
export async function inboxView(ctx: RunContext, primary: 'id' | 'text') {
  const view = await ctx.view({ output: { rows: 'array', columns: INBOX_COLUMNS, primary, kinds: { status: 'messageStatus' } }, result: INBOX_SHAPE });
  await sayCurrency(ctx, view);
  return view;
}
