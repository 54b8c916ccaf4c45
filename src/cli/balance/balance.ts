// `smslink balance`: the account's balance and its currency
// (User/GetOwnBalance); --min makes it a gate for scripts, exit 8 when the
// money is below the amount given.

import { userBalance } from '../../catalog/user.js';
import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, ExitError } from '../../exit-codes.js';
import { renderRecord } from '../../output/format.js';
import { dryRun } from '../shared/dry-run.js';
import { parseAmount, readBalance } from '../shared/balance.js';
import { rememberCurrency } from '../shared/currency.js';
import { money } from '../../output/words.js';

async function balance(ctx: RunContext, opts: CliValues): Promise<number> {
  const min = opts.min === undefined ? undefined : parseAmount(opts.min, '--min');
  if (ctx.globals.dryRun) return (await dryRun(ctx, userBalance, {}), EXIT.OK);
  const view = await ctx.view(userBalance);
  const found = await readBalance(await ctx.client());
  rememberCurrency(ctx, found.currency);
  // A person reads the amount with its currency, as status and every error say it (money()); a script keeps the two fields.
  const shown = view.format === 'table' && !view.fields?.length ? { ...view, currency: found.currency, columns: view.columns.filter((c) => c !== 'currency') } : view;
  await renderRecord(ctx.stdout, shown, found);
  if (min !== undefined && found.balance < min) {
    throw new ExitError(`the balance is ${money(found.balance, found.currency)}, below --min ${money(min, found.currency)}`, EXIT.FUNDS);
  }
  return EXIT.OK;
}

export const BALANCE: CommandDef = {
  path: ['balance'],
  operation: userBalance,
  summary: "Show the account's balance and its currency; --min fails when it is lower",
  flags: (cmd) => cmd.option('--min <amount>', "exit 8 when the balance is below this amount (in the balance's currency)"),
  about: `One call, User/GetOwnBalance. A table shows the amount with four decimals
and its currency (100.0000 KZT); -q prints the amount alone; -o json gives
{"balance": 99.99, "currency": "KZT"}. --min AMOUNT is a gate for a script or
a CI job: the balance is shown either way, and the run exits 8 when it is
below AMOUNT (a balance equal to it passes). \`smslink status\` shows the
balance beside the key check.`,
  examples: ['smslink balance', 'smslink balance -q', 'smslink balance --min 50 && smslink message send --from-file customers.csv --text "Hi {{name}}" --yes'],
  run: (ctx, opts) => balance(ctx, opts),
};
