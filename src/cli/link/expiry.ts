// An expiry date before today makes a link that stops working at once: a
// mistake, unless --allow-past (link create and link update).

import { parseDate } from '../../catalog/rules.js';
import type { CliValues } from '../core/command.js';
import { UsageError } from '../../exit-codes.js';
import { aheadHint } from '../core/time.js';

export const ALLOW_PAST = ['--allow-past', 'accept an --expires date in the past (the link stops working at once)'] as const;

export function checkExpiry(now: Date, input: Record<string, unknown>, opts: CliValues): void {
  const date = input.expirationDate;
  // A date that is no date at all is the catalog's to report.
  if (typeof date !== 'string' || opts.allowPast === true || !parseDate(date)) return;
  const today = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  if (date < today) {
    const typed = typeof opts.expires === 'string' ? opts.expires : date;
    const quoted = `"${typed}"${typed.trim() === date ? '' : ` (${date})`}`;
    throw new UsageError(`--expires: invalid value ${quoted}: is in the past: the link would stop working at once; give --allow-past if you mean it${aheadHint(typed)}`);
  }
}
