// Module User of the live service: the account's own balance. service-api.md
// does not name it, but the public client libraries' READMEs call it
// (mobizon-node getBalance, mobizon User.GetOwnBalance), so the catalog, the
// client and the emulator know it; no command of its own (`smslink api
// User/GetOwnBalance` reaches it).

import { define, type BalanceResult } from './types.js';

export const userBalance = define<BalanceResult>()({
  id: 'user.balance',
  module: 'User',
  operation: 'GetOwnBalance',
  method: 'getBalance',
  summary: "The account's balance and its currency",
  idempotent: true,
  params: [],
  // Live: {"balance":"100.0000","currency":"KZT"}; the amount is a decimal string.
  result: { object: { balance: 'float', currency: 'string' } },
  output: { rows: 'self', columns: ['balance', 'currency'], primary: 'balance' },
});

export const USER_OPERATIONS = [userBalance] as const;
