// The few lines a bulk run ends with on stderr: what happened to the rows,
// what a rerun will do about the rest, and never a journal to delete.

import { count } from '../output/words.js';
import type { JournalDamage } from './journal.js';
import type { Counts } from './progress.js';

export interface RunSummary {
  command: string;
  total: number;
  journal?: string;
  counts: Counts & { found: number };
  /** Rows an earlier run left unknown: found in the service, or found absent (sent now). */
  earlier: { found: number; absent: number };
  /** On a rerun, rows sent that no earlier run had sent or tried. */
  notSentBefore: number;
  /**
   * Rows an earlier run sent that changed since: sent again (`resent`, for
   * the reason `why`), or held back (counted in counts.held; the first few
   * named in `heldRows`).
   */
  changed: { resent: number; why: 'flag' | 'answer'; heldRows: number[] };
  /** Why the journal was damaged, when it was: every row it did not show as done was looked up. */
  damaged?: JournalDamage;
  /** Rows whose outcome is still unknown. */
  unknownRows: number[];
  reconcile: boolean;
  /** Why the run ended early: a signal, a closed output, or a failure every row would meet (the key refused, the service unreachable). */
  stop: 'none' | 'interrupted' | 'stdout-closed' | 'stopped' | 'refused' | 'unreachable';
  /** With stop === 'stopped': requests in flight then. */
  inFlightAtStop: number;
}


/** Rows by number, the first 20 of them; `total` when only some were kept. */
function rowList(rows: number[], total = rows.length): string {
  const sorted = [...rows].sort((a, b) => a - b);
  return `${total === 1 ? 'row' : 'rows'} ${sorted.slice(0, 20).join(', ')}${total > 20 ? `, ... (${total} in all)` : ''}`;
}

export function summarize(s: RunSummary): string[] {
  if (s.stop === 'stdout-closed') return [outputClosed(s)];
  const c = s.counts;
  const parts = [
    `${c.done} done${c.found ? ` (${c.found} of them found by a lookup after their answer was lost)` : ''}`,
    c.failed ? `${c.failed} failed` : '',
    c.invalid ? `${c.invalid} invalid` : '',
    c.unknown ? `${c.unknown} unknown` : '',
    c.held ? `${c.held} held back` : '',
    c.skipped ? `${c.skipped} already done` : '',
  ].filter(Boolean);
  const lines = [`${s.command}: ${parts.join(', ')} of ${count(s.total, 'row')}${s.journal ? ` (journal: ${s.journal})` : ''}.`];
  const { found, absent } = s.earlier;
  const lookup = s.reconcile ? `; a lookup found ${found} in the service (done, not sent again)${absent ? ` and ${absent} not there (sent now)` : ''}` : '';
  if (s.damaged?.missing) {
    // Its tally stayed, so it was not a fresh start: most often a journal deleted on purpose, without its tally.
    lines.push(
      `The journal was missing (${s.damaged.why}): the rows it held could have been sent already, so every row was treated as sent with no answer${lookup}. ` +
        `Next time a journal is deleted on purpose, delete its .tally too, or rerun with --fresh.`,
    );
  } else if (s.damaged) {
    lines.push(
      `The journal was damaged (${s.damaged.why}): rows it may have lost could have been sent already, so every row it did not show as done ` +
        `was treated as sent with no answer${lookup}.`,
    );
  } else if (found || absent) {
    lines.push(
      `Of the rows an earlier run left with no answer, a lookup found ${found} in the service (done, not sent again)` +
        `${absent ? ` and ${absent} not there (sent now)` : ''}.`,
    );
  }
  if (s.notSentBefore) lines.push(`${count(s.notSentBefore, 'row')} not sent before: sent.`);
  if (s.changed.resent) {
    const why = s.changed.why === 'flag' ? '--resend-changed' : 'as you answered';
    lines.push(`${count(s.changed.resent, 'row')} sent by an earlier run and changed since: sent again (${why}).`);
  }
  const held = c.held ?? 0;
  if (held) {
    const [them, they] = held === 1 ? ['it', 'it is'] : ['them', 'they are'];
    lines.push(
      `Held back ${rowList(s.changed.heldRows, held)}: an earlier run sent ${held === 1 ? 'this row' : 'these rows'} with other values, ` +
        `and sending ${them} now would send ${them} twice. Rerun with --resend-changed to send ${them} as ${they} now.`,
    );
  }
  if (s.unknownRows.length) {
    const which = `Outcome unknown for ${rowList(s.unknownRows)}: the request may have reached the service`;
    if (!s.reconcile)
      lines.push(
        `${which}; not sent again (lookups are off: --no-reconcile). ` +
          'Rerun without --no-reconcile to have smslink look for them, or check by hand and rerun with --resend-unknown to send them again.',
      );
    else if (s.stop === 'none')
      lines.push(`${which}, and no lookup could settle it. Rerun the same command: it looks again before sending anything; --resend-unknown sends without looking.`);
    else lines.push(`${which}. The rerun looks for them before it sends anything again.`);
  }
  if (s.stop === 'stopped')
    lines.push(`Stopped at once, with ${count(s.inFlightAtStop, 'request')} in flight (their rows are unknown now). Rerun the same command to continue.`);
  else if (s.stop === 'interrupted') lines.push('Interrupted: no new requests were started. Rerun the same command to continue.');
  else if (s.stop === 'refused' || s.stop === 'unreachable') lines.push(halted(s));
  return lines;
}

/**
 * A run whose output was closed (`| head -1`) says in one line what is left
 * and how to send it: whoever closed the pipe read what they wanted, the rest
 * of a script's log should not fill with a summary.
 */
function outputClosed(s: RunSummary): string {
  const c = s.counts;
  const left = s.total - c.done - c.skipped - (c.held ?? 0);
  const unknown = s.unknownRows.length ? ` (${s.unknownRows.length} of them unknown: the rerun looks them up before sending)` : '';
  const rerun = s.journal ? `rerun the same command to send them (journal: ${s.journal})` : 'no journal was kept (stdin without --journal): a rerun sends every row';
  return `${s.command}: the output was closed after ${c.done + c.skipped} of ${count(s.total, 'row')} were done; ${count(left, 'row')} left${unknown}: ${rerun}.`;
}

/** A run stopped because every row would fail the same way: what was not sent, and what the rerun does. */
function halted(s: RunSummary): string {
  const c = s.counts;
  const pending = s.total - c.done - c.skipped - c.failed - c.invalid - c.unknown - (c.held ?? 0);
  const why = s.stop === 'refused' ? 'the service refused the key, as it would for every row' : 'the service could not be reached, and no row got through';
  if (!s.journal) return `Stopped: ${why}. ${count(pending, 'row')} not sent: no journal was kept (stdin without --journal): a rerun sends every row.`;
  // Every row was tried (the last ones failed): nothing waits, the rerun sends the failed ones.
  if (pending === 0) return `Stopped: ${why}. Once this is fixed, rerun the same command: it sends the failed rows, each once.`;
  return `Stopped: ${why}. ${count(pending, 'row')} not sent: they stay pending in the journal; once this is fixed, rerun the same command: it sends them and the failed rows, each once.`;
}
