// The one function that turns any error into an exit code and a message
// (design rule 5); the codes and their meanings are src/exit-codes.ts.

import { ApiError, ConfigError, TransportError, ValidationError } from '../../client/errors.js';
import { OPERATIONS } from '../../catalog/index.js';
import { ruleAsTyped, wordsOf, type Issue } from '../../catalog/validate.js';
import { EXIT, EXIT_MEANINGS, exitCodeOf } from '../../exit-codes.js';
import { invalidValue } from '../../output/words.js';
import { timeRule } from './time.js';

/** The exit codes with their meanings, as `smslink --help` ends. */
export const EXIT_CODES_HELP = `Exit codes:\n${EXIT_MEANINGS.map(({ code, meaning }) => `  ${String(code).padEnd(5)}${meaning}`).join('\n')}`;

function paramOf(operation: string, key: string) {
  const op = OPERATIONS.find((o) => `${o.module}/${o.operation}` === operation);
  return op?.params.find((p) => p.key === key);
}

function cliOf(operation: string, key: string) {
  return paramOf(operation, key)?.cli;
}

/** Names a parameter as the user typed it: the flag or positional argument of its command. */
export function flagOf(operation: string, key: string): string {
  const cli = cliOf(operation, key);
  if (cli?.flag) return cli.flag.split(/[ ,]/)[0];
  if (cli?.arg) return cli.arg;
  return key;
}

/** A value as the command line spells it: a list comma-separated, a sort as FIELD:dir pairs. */
function asTyped(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(',');
  if (value && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'string')) {
    return Object.entries(value as Record<string, string>)
      .map(([field, dir]) => `${field}:${dir.toLowerCase()}`)
      .join(',');
  }
  return JSON.stringify(value);
}

function describeIssue(operation: string, issue: Issue): string {
  const name = issue.key.includes('|') ? issue.key.split('|').map((k) => flagOf(operation, k)).join(', ') : flagOf(operation, issue.key);
  if (issue.value === undefined || issue.value === null) return `${name} ${issue.rule}`;
  const param = paramOf(operation, issue.key);
  const words = wordsOf(param);
  // A date flag takes every time form too, and says them as every time flag does (the catalog's rule knows only the wire's YYYY-MM-DD; a file's column takes the date alone).
  const rule = param?.type === 'date' && param.cli?.flag ? timeRule(asTyped(issue.value), { fill: 'start' }) : ruleAsTyped(param, issue.rule, issue.value);
  const choices = typeof issue.value === 'string' ? [...words, ...choicesOf(operation, issue.key)] : [];
  return invalidValue(name, asTyped(issue.value), rule, choices);
}

/** The words a parameter takes, when it takes a few: its oneOf values that are words. */
function choicesOf(operation: string, key: string): string[] {
  return (paramOf(operation, key)?.oneOf ?? []).filter((v): v is string => typeof v === 'string');
}

/** One line: a terminal breaks it at its own width (run.ts). */
const CONFIG_HINT = 'Run `smslink login` (asks for both and checks them), or set SMSLINK_BASE_URL and SMSLINK_API_KEY, or try everything locally with --sandbox.';

/**
 * What to tell the user when a create or a send may or may not have
 * happened; `check` is the command that finds out, as the user can type it
 * (`smslink message list --to +77011234567`, the number as typed).
 */
function unknownHint(operation: string, check?: string): string {
  if (/Create$/i.test(operation)) return '\nThe link may or may not have been created; check with `smslink link list` before creating it again.';
  if (/SendSmsMessage$/i.test(operation))
    return `\nThe message may or may not have been sent; check with \`${check ?? 'smslink message list --to <number>'}\` before sending again.`;
  return '';
}

/**
 * The base URL that code 13 (wrong regional host) names: its data holds the
 * account's host, as a string or in an object, with or without a scheme
 * (https:// when without: regional hosts are public). Undefined when nothing
 * in it looks like a host.
 */
export function regionalBaseUrl(data: unknown): string | undefined {
  const values = typeof data === 'string' ? [data] : data && typeof data === 'object' ? Object.values(data) : [];
  const host = values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim().replace(/\/+$/, ''))
    .find((v) => /^([a-z][a-z0-9+.-]*:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/\S*)?$/i.test(v));
  if (!host) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `https://${host}`;
}

/** What to do about a key the service refused. */
export function authHint(err: ApiError): string {
  if (err.code === 13) {
    const url = regionalBaseUrl(err.data);
    return url
      ? `\nThis account lives on ${url}: set it with \`smslink config set base-url ${url}\` (or \`smslink login --base-url ${url}\`).`
      : "\nThe service did not say which host is right; ask your provider for your region's API host.";
  }
  if (err.code === 8) return '\nCheck the API key (`smslink status` shows which one is used and where it comes from; `smslink login` sets a new one).';
  return '';
}

export interface Failure {
  code: number;
  message: string;
}

/**
 * What to try next when no usable answer came. `toStatus` false: the check
 * of `smslink status` (or `login`) failed, which shows the base URL itself,
 * so it does not send the user to run `smslink status`.
 */
function transportHint(err: TransportError, toStatus: boolean): string {
  if (err.kind === 'aborted' || err.outcomeUnknown) return '';
  if (/could not resolve host/.test(err.message)) return `\nCheck the base URL${toStatus ? ': `smslink status` shows which one is used and where it comes from' : ''}.`;
  if (/connection refused/.test(err.message)) return `\nIs the service up at that address?${toStatus ? ' `smslink status` shows the base URL in use.' : ''}`;
  if (err.kind === 'timeout') return '\nTry again, or allow more time with --timeout SECONDS.';
  if (err.kind === 'http' && (err.status ?? 0) >= 500) return '\nThe service, or a gateway in front of it, is failing: try again in a while.';
  return '';
}

/** What to try next after an error code of the service. */
function apiHint(err: ApiError): string {
  if (err.isAuth) return authHint(err);
  if (err.code === 30) return '\nThe service limits how often this is called: wait a moment and run it again.';
  return '';
}

/**
 * Maps any error to its exit code and the message for stderr. `command`
 * (`link get`) names what the user ran, so a failing step is shown as part of
 * it; `check` is what finds out whether a send whose answer was lost went out.
 */
export function describeFailure(err: unknown, command?: string, check?: string, toStatus = true): Failure {
  const failure = describeError(err, check, toStatus);
  if (!command || !(err instanceof ApiError || err instanceof TransportError)) return failure;
  // The command's own operation goes without saying; another one (Link/Get before an update) is named as a step.
  const own = OPERATIONS.find((o) => `${o.module}/${o.operation}` === err.operation)?.command?.join(' ') === command;
  const message = own ? failure.message.replace(`${err.operation}: `, '').replace(`${err.operation} failed with`, 'the service answered') : failure.message;
  return { ...failure, message: `${command}: ${message}` };
}

function describeError(err: unknown, check: string | undefined, toStatus: boolean): Failure {
  if (err instanceof ValidationError) {
    return { code: EXIT.USAGE, message: err.issues.map((i) => describeIssue(err.operation, i)).join('\nerror: ') };
  }
  if (err instanceof ConfigError) {
    if (err.kind === 'usage') return { code: EXIT.USAGE, message: err.message };
    const hint = /^no (API key|base URL)/.test(err.message) ? `\n${CONFIG_HINT}` : '';
    return { code: EXIT.CONFIG, message: `${err.message}${hint}` };
  }
  if (err instanceof ApiError) {
    if (err.outcomeUnknown) return { code: EXIT.TRANSPORT, message: `${err.message}${unknownHint(err.operation, check)}` };
    if (err.isNotFound) return { code: EXIT.NOT_FOUND, message: err.message };
    if (err.isAuth) return { code: EXIT.CONFIG, message: `${err.message}${apiHint(err)}` };
    return { code: EXIT.API, message: `${err.message}${apiHint(err)}` };
  }
  if (err instanceof TransportError) {
    const hint = err.outcomeUnknown ? unknownHint(err.operation, check) : transportHint(err, toStatus);
    return { code: err.kind === 'aborted' ? EXIT.INTERRUPTED : EXIT.TRANSPORT, message: `${err.message}${hint}` };
  }
  const code = exitCodeOf(err);
  if (code !== undefined) return { code, message: (err as Error).message };
  const e = err as Error;
  return { code: EXIT.API, message: `unexpected error: ${e?.stack ?? String(err)}` };
}
