// Module User: the account's own balance (User/GetOwnBalance), which the
// public client libraries call. The balance is the emulator's opening amount
// less every message of the account (seeded ones too) at segNum x segUserBuy,
// so it always agrees with what Message/List shows was spent.

import { money, ok, type Handler } from './handler.js';

export const USER_HANDLERS: Record<string, Handler> = {
  'user.balance'({ settings: s, accountId }) {
    return ok({ balance: money(s.balance - s.db.spent(accountId)), currency: s.currency });
  },
};
