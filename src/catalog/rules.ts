// Value rules of the contract (service-api.md), shared by the client (checks
// before sending) and the emulator (checks on receipt). Each check takes a
// value as a program passes it or as it arrives on the wire (always a string)
// and returns the coerced value or the rule it breaks, in words a user reads.

import type { ParamSpec } from './types.js';

export type Check = { ok: true; value: unknown } | { ok: false; rule: string };

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Years the service can mean; others are typos (and break period arithmetic). */
const MIN_YEAR = 1970;
const MAX_YEAR = 9998;

function validParts(p: DateParts): boolean {
  return (
    p.year >= MIN_YEAR &&
    p.year <= MAX_YEAR &&
    p.month >= 1 &&
    p.month <= 12 &&
    p.day >= 1 &&
    p.day <= daysInMonth(p.year, p.month) &&
    p.hour <= 23 &&
    p.minute <= 59 &&
    p.second <= 59
  );
}

/** `YYYY-MM-DD` that names a real calendar day, else null. */
export function parseDate(s: string): DateParts | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const p = { year: +m[1], month: +m[2], day: +m[3], hour: 0, minute: 0, second: 0 };
  return validParts(p) ? p : null;
}

/** `YYYY-MM-DD HH:MM:SS` that names a real moment, else null. */
export function parseDateTime(s: string): DateParts | null {
  const m = DATETIME_RE.exec(s);
  if (!m) return null;
  const p = { year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: +m[6] };
  return validParts(p) ? p : null;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Formats a Date as `YYYY-MM-DD HH:MM:SS` in local time (or UTC). */
/**
 * A time from the wire in the form Message/List takes: the contract writes
 * GetSMSStatus's times `YYYY-MM-DD HH-MM-SS`, Message/List's `HH:MM:SS`;
 * undefined when it is neither.
 */
export function wireTime(ts: unknown): string | undefined {
  const m = typeof ts === 'string' ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2})[-:](\d{2})[-:](\d{2})$/.exec(ts.trim()) : null;
  return m ? `${m[1]} ${m[2]}:${m[3]}:${m[4]}` : undefined;
}

export function formatDateTime(d: Date, utc = false): string {
  return utc
    ? `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
    : `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * What params[shortenLinks] takes for links in a message's text (trailing
 * punctuation included: the emulator leaves that out of the link it
 * replaces). Global: for replace() and split(), not test().
 */
export const LINKS_IN_TEXT = /(?:https?:\/\/|www\.)[^\s<>"]+/gi;
/** Punctuation that ends a sentence after a link in a text, not part of the link. */
export const AFTER_LINK = /[.,;:!?)\]}'"]+$/;

/** A link as a browser opens it: one written `www.…`, without a scheme, means http://. */
export function withScheme(link: string): string {
  return /^www\./i.test(link) ? `http://${link}` : link;
}

/**
 * A fullLink: an http(s) URL with a host, or a host name starting with
 * `www.`. A host name needs two labels or more, none empty (`www.`,
 * `https://a..b` are not URLs of any site); one trailing dot is allowed.
 */
export function isFullLink(s: string): boolean {
  if (s.length === 0 || /\s/.test(s)) return false;
  const candidate = withScheme(s);
  if (!/^https?:\/\//i.test(candidate)) return false;
  try {
    const host = new URL(candidate).hostname;
    if (host === 'localhost' || host.startsWith('[')) return true;
    const labels = host.replace(/\.$/, '').split('.');
    return labels.length >= 2 && labels.every((label) => label.length > 0);
  } catch {
    return false;
  }
}

/** Removes a leading +, spaces, dashes and brackets from a phone number. */
export function normalizePhone(s: string): string {
  return s.trim().replace(/^\+/, '').replace(/[\s\-()[\]]/g, '');
}

function asInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** Splits an id list given as an array, a comma-separated string or a single id. */
export function toList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (value !== null && typeof value === 'object') return Object.values(value);
  return [value];
}

function describeChoices(values: readonly (string | number)[]): string {
  const parts = values.map(String);
  return parts.length <= 2 ? parts.join(' or ') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

export interface CheckContext {
  /** The moment "now" for rules relative to the present (deferred sends). */
  now: Date;
  /** Turns a wall-clock time into an instant; local time unless given. */
  toInstant?: (p: DateParts) => Date;
  /**
   * Read input as the live service does (the emulator), not as the contract
   * writes it (the client): see liveInput() in validate.ts.
   */
  live?: boolean;
}

const localInstant = (p: DateParts) => new Date(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);

function formatWindow(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours % 24 === 0) return `${hours / 24} day${hours === 24 ? '' : 's'}`;
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/** Checks one parameter value against its rules. */
export function checkParam(spec: ParamSpec, raw: unknown, ctx: CheckContext): Check {
  switch (spec.type) {
    case 'integer': {
      const n = asInteger(raw);
      if (spec.oneOf) {
        if (n === null || !spec.oneOf.includes(n)) return { ok: false, rule: `must be ${describeChoices(spec.oneOf)}` };
        return { ok: true, value: n };
      }
      if (n === null) return { ok: false, rule: 'must be a whole number' };
      if (spec.min !== undefined && spec.max !== undefined && (n < spec.min || n > spec.max))
        return { ok: false, rule: `must be between ${spec.min} and ${spec.max}` };
      if (spec.min !== undefined && n < spec.min) return { ok: false, rule: `must be ${spec.min} or more` };
      if (spec.max !== undefined && n > spec.max) return { ok: false, rule: `must be ${spec.max} or less` };
      return { ok: true, value: n };
    }
    case 'string': {
      if (typeof raw !== 'string' && typeof raw !== 'number') return { ok: false, rule: 'must be text' };
      const s = String(raw);
      if (spec.oneOf) {
        const hit = spec.oneOf.find((v) => String(v).toLowerCase() === s.toLowerCase());
        if (hit === undefined) return { ok: false, rule: `must be one of ${spec.oneOf.join(', ')}` };
        return { ok: true, value: hit };
      }
      if (spec.minLength !== undefined && [...s].length < spec.minLength)
        return { ok: false, rule: spec.minLength === 1 ? 'must not be empty' : `must be at least ${spec.minLength} characters` };
      if (spec.notBlank && s.trim() === '') return { ok: false, rule: 'must not be blank (spaces or line breaks alone)' };
      if (spec.maxLength !== undefined && [...s].length > spec.maxLength)
        return { ok: false, rule: `must be at most ${spec.maxLength} characters (got ${[...s].length})` };
      return { ok: true, value: s };
    }
    case 'url': {
      // A link of another kind (ftp://, mailto:) is a URL all right: say what the service shortens.
      if (typeof raw === 'string' && /^(?!https?:)[a-z][a-z0-9+.-]*:(\/\/|(?!\d))/i.test(raw.trim()) && !/^www\./i.test(raw.trim()))
        return { ok: false, rule: 'only http and https links can be shortened' };
      if (typeof raw !== 'string' || !isFullLink(raw.trim()))
        return { ok: false, rule: 'must be a URL with a scheme (https://...) or starting with www.' };
      return { ok: true, value: raw.trim() };
    }
    case 'date': {
      if (typeof raw !== 'string' || !parseDate(raw)) return { ok: false, rule: 'must be a real date written YYYY-MM-DD' };
      return { ok: true, value: raw };
    }
    case 'datetime': {
      const p = typeof raw === 'string' ? parseDateTime(raw) : null;
      if (!p) return { ok: false, rule: 'must be a real date and time written YYYY-MM-DD HH:MM:SS' };
      if (spec.window) {
        const at = (ctx.toInstant ?? localInstant)(p).getTime();
        const now = ctx.now.getTime();
        if (at < now + spec.window.minMs || at > now + spec.window.maxMs)
          return {
            ok: false,
            rule: `must be more than ${formatWindow(spec.window.minMs)} and at most ${formatWindow(spec.window.maxMs)} from now`,
          };
      }
      return { ok: true, value: raw };
    }
    case 'phone': {
      if (typeof raw !== 'string' && typeof raw !== 'number') return { ok: false, rule: 'must be a phone number' };
      const digits = normalizePhone(String(raw));
      const min = spec.minLength ?? 7;
      const max = spec.maxLength ?? 15;
      if (!/^\d+$/.test(digits) || digits.length < min || digits.length > max)
        return {
          ok: false,
          rule:
            min === max
              ? `must have ${min} digits`
              : `must have ${min} to ${max} digits once a leading +, spaces, dashes and brackets are removed`,
        };
      return { ok: true, value: digits };
    }
    case 'ids': {
      const items = toList(raw);
      if (items.length === 0) return { ok: false, rule: 'needs at least one id' };
      if (spec.maxItems !== undefined && items.length > spec.maxItems)
        return { ok: false, rule: `at most ${spec.maxItems} ids per request (got ${items.length})` };
      const ids: number[] = [];
      for (const item of items) {
        const n = asInteger(item);
        // Which of several is wrong; a value of one id is quoted where the rule is said (`invalid value "abc"`).
        if (n === null || n < 1) return { ok: false, rule: `ids must be positive whole numbers${items.length > 1 ? ` (got ${JSON.stringify(item)})` : ''}` };
        ids.push(n);
      }
      return { ok: true, value: ids };
    }
    case 'strings': {
      const items = toList(raw).map((v) => String(v));
      if (items.length === 0) return { ok: false, rule: 'needs at least one value' };
      if (spec.maxItems !== undefined && items.length > spec.maxItems)
        return { ok: false, rule: `at most ${spec.maxItems} values (got ${items.length})` };
      return { ok: true, value: items };
    }
    case 'sort': {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, rule: 'must map field names to asc or desc' };
      const out: Record<string, 'ASC' | 'DESC'> = {};
      for (const [field, dir] of Object.entries(raw as Record<string, unknown>)) {
        const known = spec.sortFields?.find((f) => f.toLowerCase() === field.toLowerCase());
        if (!known) return { ok: false, rule: `cannot sort by "${field}"; fields: ${spec.sortFields?.join(', ')}` };
        const d = typeof dir === 'string' ? dir.toUpperCase() : '';
        if (d !== 'ASC' && d !== 'DESC') return { ok: false, rule: `direction for ${known} must be asc or desc` };
        out[known] = d;
      }
      return { ok: true, value: out };
    }
  }
}
