// The account's currency, said with every amount of money a person reads
// (words.ts money()). The service gives it with the balance
// (User/GetOwnBalance); it is kept per service and profile in the data
// directory, so a command that shows money asks for it once, not every run.

import { join } from 'node:path';
import { columnInfo } from '../../catalog/columns.js';
import { dataDir } from '../../config/paths.js';
import { privateDir, readPrivateFile, writePrivateFile } from '../../private-files.js';
import type { View } from '../../output/format.js';
import type { RunContext } from '../core/context.js';
import { readBalance } from './balance.js';

const FILE = 'accounts.json';

type Known = Record<string, { currency?: string }>;

/** The account a run means, as the cache names it; none for the sandbox (its emulator answers in the process, at no cost). */
function accountKey(ctx: RunContext): string | undefined {
  if (ctx.sandbox) return undefined;
  const baseUrl = ctx.settings().baseUrl.value;
  return baseUrl ? `${baseUrl.replace(/\/+$/, '')} ${ctx.profile()}` : undefined;
}

function readKnown(path: string): Known {
  try {
    const parsed: unknown = JSON.parse(readPrivateFile(path) ?? '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Known) : {};
  } catch {
    // A damaged or foreign file is no reason to fail a command: the currency is asked for again.
    return {};
  }
}

/**
 * The currency of the run's account: as kept, else asked for (`ask`: one
 * request) and kept. Undefined when it cannot be known: money is then shown
 * without it, and the command goes on.
 */
export async function accountCurrency(ctx: RunContext, { ask }: { ask: boolean }): Promise<string | undefined> {
  const key = accountKey(ctx);
  const path = join(dataDir(ctx.env), FILE);
  const known = key ? readKnown(path) : {};
  if (key && known[key]?.currency) return known[key].currency;
  // The sandbox's emulator answers in this process: asked every time, at no cost.
  if ((!ask && key) || ctx.globals.dryRun) return undefined;
  let currency: unknown;
  try {
    ({ currency } = await readBalance(await ctx.client()));
  } catch {
    return undefined;
  }
  return rememberCurrency(ctx, currency);
}

/** Keeps a currency the service gave (with a balance read for another reason, say); returns it when it is one. */
export function rememberCurrency(ctx: RunContext, currency: unknown): string | undefined {
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return undefined;
  const key = accountKey(ctx);
  if (!key) return currency;
  const path = join(dataDir(ctx.env), FILE);
  const known = readKnown(path);
  if (known[key]?.currency === currency) return currency;
  try {
    privateDir(dataDir(ctx.env));
    writePrivateFile(path, `${JSON.stringify({ ...known, [key]: { currency } }, null, 2)}\n`);
  } catch {
    // Not kept (a directory that is not the user's alone, say): asked for again next time.
  }
  return currency;
}

/**
 * Names the account's currency in a view that shows money to a person (a
 * table or record with a money column: words.ts money()); JSON, CSV and -q
 * keep the bare values. `ask: false` for commands that must not send (the
 * mirror's reports): the currency is then said only when kept.
 */
export async function sayCurrency(ctx: RunContext, view: View, { ask = true }: { ask?: boolean } = {}): Promise<void> {
  if (view.format !== 'table' || view.quiet) return;
  const shown = view.fields ?? view.columns;
  if (!shown.some((field) => (view.kinds?.[field] ?? columnInfo(field).kind) === 'money')) return;
  view.currency = await accountCurrency(ctx, { ask });
}
