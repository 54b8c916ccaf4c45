// Where each request the emulator answers goes: the inspector's log (a push
// into its ring) and, for `smslink serve`, one line on stdout with the time,
// operation, result, milliseconds and the key masked. The key never leaves
// this module unmasked.

import type { Activity, LogEntry } from './inspector/activity.js';
import { maskKey } from '../secrets.js';
import { elapsed } from '../output/words.js';
import { NOT_MODELLED } from './service/live-modules.js';
import type { TimeZone } from './service/time-zone.js';

/** The key as a log shows it: masked, or what stands in for it. */
export function shownKey(key: unknown): string {
  return typeof key === 'string' && key !== '' ? maskKey(key) : 'no key';
}

/** What came of a request, in a few words: `code 0`, `302`, `no answer`, `code 9 (not modelled)`, with the fault injected. */
export function outcome(e: LogEntry): string {
  const said = e.visit || e.control ? String(e.status) : e.code !== null ? `code ${e.code}${e.code === NOT_MODELLED ? ' (not modelled)' : ''}` : e.status === 0 ? 'no answer' : `HTTP ${e.status}`;
  return e.fault ? `${said} (fault ${e.fault})` : said;
}

/** One line of serve's request log: `2025-01-15 10:00:02  Link/Create  code 0  1.2 ms  key ********wxyz`. */
export function requestLine(e: LogEntry, time: string): string {
  const who = e.visit || e.control ? '' : `  key ${shownKey(e.key)}`;
  // A path may be as long as the header limit allows: a line shows its start.
  const op = e.op.length > 100 ? `${e.op.slice(0, 100)}…` : e.op;
  return `${time}  ${e.visit ? `visit ${op}` : op}  ${outcome(e)}  ${elapsed(e.ms)}${who}`;
}

/** The `record` of ServerParts: the inspector's log, serve's lines, both or neither (null). */
export function requestSink(activity: Activity | null, lines: ((line: string) => void) | undefined, tz: TimeZone): ((e: LogEntry) => void) | null {
  if (!lines) return activity ? (e) => activity.record(e) : null;
  // The time as the line shows it changes once a second: formatted then, not per request.
  let second = NaN;
  let time = '';
  return (e) => {
    activity?.record(e);
    if (Math.floor(e.at / 1000) !== second) {
      second = Math.floor(e.at / 1000);
      time = tz.format(e.at);
    }
    lines(requestLine(e, time));
  };
}
