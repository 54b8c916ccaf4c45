// What a bulk `message send` will cost, said before anything is sent: the
// segments of every row, times the price of a segment where it is known (the
// price of the account's last message), beside the balance. At a terminal the
// run then asks to go on; --max-cost refuses a run estimated above it (exit 8).

import { messageList } from '../../catalog/message.js';
import type { Message, Page } from '../../catalog/types.js';
import type { SmsLinkClient } from '../../client/client.js';
import type { CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { askFirst, canConfirm } from '../core/prompt.js';
import { EXIT, ExitError } from '../../exit-codes.js';
import { count, money } from '../../output/words.js';
import { readBalance } from '../shared/balance.js';

/** The price of one segment as the account last paid it (Message/List's newest message), or undefined before its first message. */
async function lastPrice(client: SmsLinkClient): Promise<number | undefined> {
  const page = (await client.call(messageList, { pageSize: 25, sort: { campaignId: 'DESC' } })) as Page<Message> | null;
  const price = Number(page?.items?.[0]?.segUserBuy);
  return page?.items?.[0]?.segUserBuy !== undefined && page.items[0].segUserBuy !== null && Number.isFinite(price) ? price : undefined;
}

/**
 * The gate a bulk send passes before its first request (the engine's
 * beforeSend, given only with --max-cost or at a terminal): the estimate
 * and the balance on stderr, the --max-cost check, and at a terminal the
 * question (--yes skips it). Returns the exit code to stop
 * with, or undefined to go on.
 */
export async function costGate(ctx: RunContext, opts: CliValues, maxCost: number | undefined, plan: { rows: number; segments: number | null }): Promise<number | undefined> {
  const ask = opts.yes !== true && canConfirm(ctx);
  // The client made here sends the rows too (one a run): undici's, as every bulk run's (bulkHost).
  const client = await ctx.client({ httpClient: 'undici' });
  // The balance is told, not needed: a key that may not read it still sends.
  const [price, balance] = await Promise.all([lastPrice(client), readBalance(client).catch(() => undefined)]);
  const currency = balance?.currency;
  const segments = plan.segments ?? 0;
  const cost = price === undefined ? undefined : segments * price;
  const what = `${count(plan.rows, 'message')}, ${count(segments, 'segment')}`;
  const costText = cost === undefined ? 'the price of a segment is not known yet (no message sent)' : `about ${money(cost, currency)} at ${money(price, currency)} a segment (the last message's price)`;
  const balanceText = balance ? `balance ${money(balance.balance, balance.currency)}` : 'balance unknown';
  if (maxCost !== undefined) {
    if (cost === undefined) {
      throw new ExitError(`--max-cost: the cost of ${what} cannot be estimated: the price of a segment is not known until the account has sent a message; nothing was sent`, EXIT.USAGE);
    }
    if (cost > maxCost) throw new ExitError(`the estimated cost, ${money(cost, currency)} for ${what}, is above --max-cost ${money(maxCost, currency)}; nothing was sent`, EXIT.FUNDS);
  }
  ctx.note(`${what}: ${costText}; ${balanceText}`);
  if (balance && cost !== undefined && cost > balance.balance) await ctx.warn(`the estimate is more than the balance: the run may stop when the money runs out`);
  if (!ask) return undefined;
  return askFirst(ctx, opts, `Send ${count(plan.rows, 'message')}?`, 'Nothing sent.');
}
