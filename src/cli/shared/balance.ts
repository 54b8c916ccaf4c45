// The account's balance (User/GetOwnBalance) as `balance`, `status` and a
// bulk send read it, and an amount of money as a flag (--min, --max-cost)
// takes it.

import { userBalance } from '../../catalog/user.js';
import type { BalanceResult } from '../../catalog/types.js';
import type { SmsLinkClient } from '../../client/client.js';
import { UsageError } from '../../exit-codes.js';

export async function readBalance(client: SmsLinkClient): Promise<BalanceResult> {
  return client.call(userBalance, {});
}

/** A flag's amount of money: zero or more, in the balance's currency, at most four decimals (as the service keeps money). */
export function parseAmount(value: unknown, flag: string): number {
  const text = String(value).trim();
  if (!/^\d{1,12}(\.\d{1,4})?$/.test(text)) throw new UsageError(`${flag}: invalid value "${value}": must be an amount of money such as 50 or 12.5 (zero or more, in the balance's currency)`);
  return Number(text);
}
