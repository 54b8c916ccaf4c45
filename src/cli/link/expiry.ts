// An expiry date before today makes a link that stops working at once: a
// mistake, unless --allow-past (link create and link update, and each row of
// link create --from-file).

import { parseDate } from '../../catalog/rules.js';
import type { CliValues } from '../core/command.js';
import { UsageError } from '../../exit-codes.js';
import { aheadHint } from '../core/time.js';

export const ALLOW_PAST = ['--allow-past', 'accept an --expires date in the past (the link stops working at once)'] as const;

/**
 * What is wrong with an expiry date before today (the rule, without the value), or undefined:
 * said of --expires and of a row's expirationDate alike. `typed` is the value as given, for the
 * hint that a time without + counts back.
 */
export function pastExpiry(now: Date, date: unknown, typed: unknown, opts: CliValues): string | undefined {
  // A date that is no date at all is the catalog's to report.
  if (typeof date !== 'string' || opts.allowPast === true || !parseDate(date)) return undefined;
  const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  if (date >= today) return undefined;
  return `is in the past: the link would stop working at once; give --allow-past if you mean it${typeof typed === 'string' ? aheadHint(typed) : ''}`;
}

export function checkExpiry(now: Date, input: Record<string, unknown>, opts: CliValues): void {
  const date = input.expirationDate;
  const typed = typeof opts.expires === 'string' ? opts.expires : date;
  const rule = pastExpiry(now, date, typed, opts);
  if (rule === undefined) return;
  const shown = String(typed);
  const quoted = `"${shown}"${shown.trim() === date ? '' : ` (${String(date)})`}`;
  throw new UsageError(`--expires: invalid value ${quoted}: ${rule}`);
}
