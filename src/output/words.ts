// How smslink says a thing to a person, each in one function: a message or
// campaign status, an amount of money, a time, a duration, a count, a
// not-found and a typo. Every screen asks here (tables, records, progress
// and summary lines, errors, the inspector); scripts get the service's own
// values. docs/output.md, "Statuses and headers", shows them.

import { distance } from 'fastest-levenshtein';
import { MESSAGE_STATUS_GROUPS, MESSAGE_STATUS_LABELS, type MessageStatusGroup } from '../catalog/codes.js';
import type { ValueKind } from '../catalog/types.js';
import { cellText, quoted } from './text.js';

/** A message status as a word (`delivered`); a status the service added later as it came. */
export function statusWord(code: unknown): string {
  return MESSAGE_STATUS_LABELS[String(code)] ?? String(code ?? '');
}

/** A group of statuses (`--status failed`) with the statuses it holds: `failed (undelivered, rejected, expired, deleted)`. */
export function statusGroupWord(group: MessageStatusGroup): string {
  return `${group} (${MESSAGE_STATUS_GROUPS[group].map(statusWord).join(', ')})`;
}

/** A message status as a word with the service's code beside it, for a record: `rejected (REJECTD)`. */
export function statusWithCode(code: unknown): string {
  const word = MESSAGE_STATUS_LABELS[String(code)];
  return word ? `${word} (${code})` : String(code ?? '');
}

/**
 * A message's steps (the emulator's timeline: [{status, at}]) in words: in a
 * table `new -> queued -> delivered`, in a record each with its time. Anything
 * else is shown as it came.
 */
export function timelineWords(steps: unknown, form: 'table' | 'record'): string {
  if (!Array.isArray(steps)) return typeof steps === 'string' ? steps : (JSON.stringify(steps) ?? '');
  const said = (step: unknown) => {
    const { status, at } = step !== null && typeof step === 'object' ? (step as { status?: unknown; at?: unknown }) : { status: step, at: undefined };
    return form === 'record' && at ? `${statusWord(status)} ${recordTime(at)}` : statusWord(status);
  };
  return steps.map(said).join(' -> ');
}

/** A link's own status and its moderation status (service-api.md, Short link). */
const LINK_STATUS_WORDS: Readonly<Record<string, string>> = { '0': 'inactive', '1': 'active' };
const MODERATION_WORDS: Readonly<Record<string, string>> = { '0': 'blocked', '1': 'approved' };

/**
 * A campaign's status: the number a send answers with (service-api.md, Send
 * result), or the state Message/List filters by (real-service-notes.md).
 */
const CAMPAIGN_STATUS_WORDS: Readonly<Record<string, string>> = {
  '1': 'awaiting moderation',
  '2': 'sent without moderation',
  NEW: 'new',
  MODERATION: 'awaiting moderation',
  DECLINED: 'declined',
  READY_FOR_SEND: 'ready to send',
  AUTO_READY_FOR_SEND: 'ready to send',
  RUNNING: 'sending',
  SENT: 'sent',
  DONE: 'done',
  NOT_YET_SENT: 'not sent yet',
  DEFERRED: 'scheduled',
};

/** A campaign status as words: `sent without moderation`, `done`; an unknown one as it came. */
export function campaignStatusWord(status: unknown): string {
  return CAMPAIGN_STATUS_WORDS[String(status)] ?? String(status ?? '');
}

/**
 * An amount of money: four decimals, as the live service writes prices and
 * balances ("0.0600"), and the account's currency when known: `0.0100 KZT`.
 * A value that is no number is shown as it came.
 */
export function money(value: unknown, currency?: string): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return value === null || value === undefined ? '' : String(value);
  return currency ? `${n.toFixed(4)} ${currency}` : n.toFixed(4);
}

const WIRE_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?/;

/** A time in a table, to the minute: `2026-11-26 19:08`. Anything that is no time is shown as it came. */
export function tableTime(value: unknown): string {
  const m = WIRE_TIME.exec(String(value ?? ''));
  return m ? `${m[1]} ${m[2]}` : String(value ?? '');
}

/** A time in a record (one thing shown whole), to the second: `2026-11-26 19:08:43`. */
export function recordTime(value: unknown): string {
  const m = WIRE_TIME.exec(String(value ?? ''));
  return m ? `${m[1]} ${m[2]}${m[3] ?? ':00'}` : String(value ?? '');
}

/**
 * A duration in the two largest units that say it: `8 s`, `3 min 5 s`,
 * `23 h 58 min`, `2 d 3 h`. Whole seconds, rounded up below a minute (a
 * wait that is not over is not 0 s); `?` when unknown.
 */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = seconds < 60 ? Math.ceil(seconds) : Math.round(seconds);
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const first = units.findIndex(([, size]) => s >= size);
  if (first < 0) return '0 s';
  const [unit, size] = units[first];
  const whole = Math.floor(s / size);
  const next = units[first + 1];
  const rest = next ? Math.floor((s - whole * size) / next[1]) : 0;
  return rest > 0 ? `${whole} ${unit} ${rest} ${next![0]}` : `${whole} ${unit}`;
}

/**
 * How long something took (a request, a key's check, a server coming up),
 * as precisely as is worth saying: `1.2 ms`, `340 ms`, `2.4 s`, then in
 * whole seconds as duration() says them (`12 s`, `3 min 5 s`). Below a
 * tenth of a millisecond (an emulator's answer) it is `<0.1 ms`, not 0.
 */
export function elapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 0.05) return '<0.1 ms';
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)} s`;
  return duration(Math.round(ms / 1000));
}

/** How long ago: `8 s ago`, `3 h 2 min ago`. */
export function ago(seconds: number): string {
  // Less than a second (a mirror synced this instant) is no `0 s ago`.
  return seconds >= 0 && seconds < 0.5 ? 'just now' : `${duration(seconds)} ago`;
}

/** How far ahead: `in 23 h 58 min`. */
export function fromNow(seconds: number): string {
  return `in ${duration(seconds)}`;
}

/** true and false as a person says them: `yes`, `no`. */
export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

/** A fraction as a percentage to one decimal: 0.637 is `63.7%`. */
export function percent(value: unknown): string {
  const n = Number(value);
  return value === null || value === undefined || value === '' || !Number.isFinite(n) ? String(value ?? '') : `${(n * 100).toFixed(1)}%`;
}

/** Whether a kind is a status, which screens colour by how it went (output/color.ts, tone). */
export const isStatusKind = (kind: ValueKind | undefined): boolean => kind !== undefined && kind.endsWith('Status');

/**
 * A value of a known kind as a person reads it: in a table (`form`
 * 'table': short), or in a record (one thing shown whole: a message status
 * with its code, a time to the second). `currency` goes with money.
 */
export function say(kind: ValueKind, value: unknown, form: 'table' | 'record', currency?: string): string {
  // An object where a status, money or a time belongs (an answer not as the contract says) is shown as it came:
  // String() of it could throw (`{"toString": []}`). Only a timeline is a list.
  if (typeof value === 'object' && value !== null && kind !== 'timeline') return cellText(value);
  switch (kind) {
    case 'linkStatus':
      return LINK_STATUS_WORDS[String(value)] ?? String(value);
    case 'moderatorStatus':
      return MODERATION_WORDS[String(value)] ?? String(value);
    case 'messageStatus':
      return form === 'record' ? statusWithCode(value) : statusWord(value);
    case 'campaignStatus':
      return campaignStatusWord(value);
    case 'money':
      return money(value, currency);
    case 'time':
      return form === 'record' ? recordTime(value) : tableTime(value);
    case 'seconds':
      return typeof value === 'number' ? duration(value) : String(value);
    case 'fraction':
      return percent(value);
    case 'timeline':
      return timelineWords(value, form);
  }
}

/** `1 link`, `3 links`; `many` where a plain s will not do. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How many a list shows of how many there are: `200 of 206 messages`, or `206 messages` when none is left out. */
export function shownOf(shown: number, total: number, one: string, many = `${one}s`): string {
  return total > shown ? `${shown} of ${total} ${many}` : count(total, one, many);
}

/**
 * Which part of a longer list a person was shown, said under it at a
 * terminal before how to see more: `Showing 26-50 of 206 messages` (a
 * page), `Showing 1-5 of 60 matches` (search --limit 5).
 */
export function showing(first: number, shown: number, total: number, many: string): string {
  return `Showing ${first}-${first + shown - 1} of ${total} ${many}`;
}

/** The flag that shows every item of a list cut short: `All of them: `--all`.` */
export function allOfThem(flag: string): string {
  return `All of them: \`${flag}\`.`;
}

/**
 * How to see the rest of a list --limit cut short, when --limit takes at
 * most `most` and there are no pages: all of them, or past `most` the
 * first `most` (`which`: newest, best) and how to reach the others.
 */
export function restOfLimit(total: number, limit: number, most: number, which: string, others: string): string {
  if (total <= most) return allOfThem(`--limit ${total}`);
  return limit < most ? `The ${which} ${most}: \`--limit ${most}\`; ${others}.` : `${most} is the most at once; ${others}.`;
}

/**
 * What no link, message or campaign was found for, named as typed: `no link
 * found for 9999 (unknown, or not yours)`. The same words for one or several.
 */
export function notFound(what: 'link' | 'message' | 'campaign', typed: readonly (string | number)[]): string {
  return `no ${what} found for ${typed.join(', ')} (unknown, or not yours)`;
}

/** Why a file could not be read or written, by the system's error code, in words. */
const FILE_TROUBLES: Readonly<Record<string, string>> = {
  ENOENT: 'there is no such file',
  EPERM: 'the system does not allow it',
  EISDIR: 'it is a folder, not a file',
  ENOTFILE: 'it is not a regular file',
  ENOTDIR: 'a part of its path is a file, not a folder',
  ELOOP: 'it is a symbolic link that leads nowhere or in a circle, or one smslink does not follow here',
  ENAMETOOLONG: 'its name is too long',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EBUSY: 'it is in use',
  EIO: 'the disk could not be read (input/output error)',
  EEXIST: 'it exists already',
};

/**
 * A file that could not be read or written, in words, for every flag and
 * file that names one (`--from-file`, `--input`, `--seed`, `--ca-file`,
 * `--journal`, the config file): `--from-file: cannot read "nonexist.csv":
 * there is no such file`. Writing a file whose folder is missing names the
 * folder. The system's code goes in brackets when it has no words here.
 */
export function fileProblem(name: string, path: string, err: unknown, doing: 'read' | 'write' = 'read'): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  let why = code ? FILE_TROUBLES[code] : undefined;
  if (code === 'ENOENT' && doing === 'write') why = 'its folder does not exist';
  if (code === 'EACCES') why = `permission denied: you may not ${doing} it`;
  why ??= code ? `the system refused (${code})` : String((err as Error | undefined)?.message ?? err);
  return `${name ? `${name}: ` : ''}cannot ${doing} "${path}": ${why}`;
}

/**
 * Slips of the fingers between two words: Levenshtein's count, except that
 * two neighbouring letters swapped (`sned` for send) is one slip, not two.
 */
function slips(a: string, b: string): number {
  if (a.length === b.length) {
    const i = [...a].findIndex((c, k) => c !== b[k]);
    if (i >= 0 && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) return 1;
  }
  return distance(a, b);
}

/**
 * The choice a mistyped value is closest to (`delivred` -> delivered, `sned`
 * -> send), in any case; none when every choice is further than a slip of
 * the fingers (a third of the word's letters). Of two as near, the one that
 * starts as typed (`dsc` -> desc, not asc): a first letter is seldom the slip.
 */
export function didYouMean(typed: string, choices: readonly string[]): string | undefined {
  const value = typed.trim().toLowerCase();
  if (!value || choices.length === 0) return undefined;
  let best: { choice: string; slips: number; sameStart: boolean } | undefined;
  for (const choice of choices) {
    const lower = choice.toLowerCase();
    const n = slips(value, lower);
    const sameStart = lower[0] === value[0];
    if (!best || n < best.slips || (n === best.slips && sameStart && !best.sameStart)) best = { choice, slips: n, sameStart };
  }
  return best && best.slips <= Math.max(1, Math.floor(value.length / 3)) ? best.choice : undefined;
}

/**
 * A name the command line does not know (a command, a flag, a help topic,
 * a setting, a profile), quoted as typed, with the nearest one:
 * `unknown command "sned" (did you mean send?)`. `within` (`message`) goes
 * before the name and the suggestion, as typed, and is no part of the match:
 * `unknown command "message sned" (did you mean message send?)`.
 */
export function unknownName(kind: string, typed: string, choices: readonly string[], within = ''): string {
  const near = didYouMean(typed, choices);
  const at = within ? `${within} ` : '';
  return `unknown ${kind} "${at}${typed}"${near ? ` (did you mean ${at}${near}?)` : ''}`;
}

/** A profile named by --profile or SMSLINK_PROFILE that the config file does not hold, with the nearest one and how to make it. */
export function noSuchProfile(name: string, origin: string, profiles: readonly string[]): string {
  const near = didYouMean(name, profiles);
  return `profile "${name}" (from ${origin}) does not exist${near ? ` (did you mean ${near}?)` : ''}; create it with \`smslink --profile ${name} login\``;
}

/**
 * A value the command cannot take, quoted as typed, with the rule it
 * breaks and the nearest choice: `--by: invalid value "contry" (did you
 * mean country?): must be one of day, sender, country, operator`.
 */
export function invalidValue(name: string, typed: unknown, rule: string, choices: readonly string[] = []): string {
  // A field a JSON body or a library call left out (the command line never gets here without a value).
  if (typed === undefined) return `${name}: none given: ${rule}`;
  const near = typeof typed !== 'string' || choices.includes(typed) ? undefined : didYouMean(typed, choices);
  return `${name}: invalid value ${quoted(typed)}${near ? ` (did you mean ${near}?)` : ''}: ${rule}`;
}


/** `must be one of a, b, c`: the rule of a closed set, for invalidValue. */
export function oneOf(choices: readonly string[]): string {
  return `must be one of ${choices.join(', ')}`;
}
