// Seed data (`smslink serve --seed FILE`, startEmulator({ seed })): the
// accounts, senders, links, campaigns and messages the emulator starts with
// and returns to on every reset, each value checked by the catalog's rules
// (the ones Link/Create and Message/SendSmsMessage apply), a problem named by
// its entry and rule (`links[2].expirationDate: ...`).

import { MESSAGE_STATUSES } from '../../catalog/codes.js';
import { linkCreate, linkList } from '../../catalog/link.js';
import { messageSend } from '../../catalog/message.js';
import { checkParam } from '../../catalog/rules.js';
import type { OperationSpec, ParamSpec } from '../../catalog/types.js';
import { ruleAsTyped } from '../../catalog/validate.js';
import { invalidValue } from '../../output/words.js';

/** A link as a seed gives it (YAML, JSON or TypeScript). */
export interface SeedLinkData {
  fullLink: string;
  /** Account: one of the keys; default the first key. */
  key?: string;
  /** Fixed code (3 to 16 of [0-9A-Za-z]); default a random one. */
  code?: string;
  status?: 0 | 1 | 'active' | 'inactive';
  moderatorStatus?: 0 | 1 | 'approved' | 'blocked';
  moderatorComment?: string;
  /** YYYY-MM-DD; the link works until the end of that day. */
  expirationDate?: string;
  comment?: string;
  /** Visits already made, counted now (and as redirects when the link redirects). */
  clicks?: number;
}

export interface SeedCampaignData {
  name?: string;
  key?: string;
  links?: SeedLinkData[];
}

export interface SeedMessageData {
  to: string | number;
  text: string;
  /** A registered sender ID (senders, or `serve --sender`); default the shared sender. */
  from?: string;
  /** Default DELIVRD. A seeded message keeps its status: its lifecycle is over. */
  status?: string;
  /** Campaign name. */
  name?: string;
  key?: string;
  /** Seconds before the start (or reset) that the message reached its status; default 0. Spreads history over days. */
  ago?: number;
}

/** What a seed may hold; every part is optional. */
export interface SeedData {
  /** Accepted API keys, each its own account (with serve's --api-key ones, after them). */
  keys?: string[];
  /** Registered sender IDs (with serve's --sender ones). */
  senders?: string[];
  links?: SeedLinkData[];
  campaigns?: SeedCampaignData[];
  messages?: SeedMessageData[];
}

export interface SeedLink {
  key: string | null;
  fullLink: string;
  code: string | null;
  status: number;
  moderatorStatus: number | null;
  moderatorComment: string | null;
  expirationDate: string | null;
  comment: string | null;
  clicks: number;
}

export interface SeedCampaign {
  key: string | null;
  name: string | null;
  links: SeedLink[];
}

export interface SeedMessage {
  key: string | null;
  to: string;
  text: string;
  from: string | null;
  status: string;
  name: string | null;
  ago: number;
}

/** A checked seed: values coerced (`active` is 1, a phone number digits only). */
export interface Seed {
  keys: string[];
  senders: string[];
  links: SeedLink[];
  campaigns: SeedCampaign[];
  messages: SeedMessage[];
}

/** A seed that breaks a rule; the message names the entry and the rule. */
export class SeedError extends Error {
  override name = 'SeedError';
}

/** At most this many clicks per seeded link: each is a row, as a real visit is. */
export const MAX_SEED_CLICKS = 10_000;
const CODE = /^[0-9A-Za-z]{3,16}$/;
const KEY = /^[\x21-\x7e]{1,200}$/;
const TOP = ['keys', 'senders', 'links', 'campaigns', 'messages'];
const LINK_FIELDS = ['fullLink', 'key', 'code', 'status', 'moderatorStatus', 'moderatorComment', 'expirationDate', 'comment', 'clicks'];
const CAMPAIGN_FIELDS = ['name', 'key', 'links'];
const MESSAGE_FIELDS = ['to', 'text', 'from', 'status', 'name', 'key', 'ago'];
/** A seeded message is at most a year old. */
export const MAX_SEED_AGO_S = 366 * 86_400;

function spec(op: OperationSpec, key: string): ParamSpec {
  const found = op.params.find((p) => p.key === key);
  if (!found) throw new Error(`catalog: ${op.id} has no parameter ${key}`);
  return found;
}

const RULES = {
  fullLink: spec(linkCreate, 'fullLink'),
  status: spec(linkCreate, 'status'),
  moderatorStatus: spec(linkList, 'moderatorStatus'),
  expirationDate: spec(linkCreate, 'expirationDate'),
  comment: spec(linkCreate, 'comment'),
  to: spec(messageSend, 'recipient'),
  text: spec(messageSend, 'text'),
  from: spec(messageSend, 'from'),
  name: spec(messageSend, 'name'),
};

class Checker {
  constructor(readonly keys: readonly string[]) {}

  fail(at: string, rule: string, value?: unknown): never {
    throw new SeedError(value === undefined ? `${at}: ${rule}` : invalidValue(at, value, rule));
  }

  mapping(at: string, v: unknown, fields: string[]): Record<string, unknown> {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(at, `must be a mapping of ${fields.join(', ')}`);
    for (const k of Object.keys(v)) if (!fields.includes(k)) this.fail(`${at}.${k}`, `is not a field here; the fields are ${fields.join(', ')}`);
    return v as Record<string, unknown>;
  }

  list(at: string, v: unknown): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(at, 'must be a list');
    return v;
  }

  /** A value through the catalog's rule for it; aliases (active, blocked) as the CLI takes them. */
  param(at: string, rule: ParamSpec, v: unknown): unknown {
    const alias = typeof v === 'string' ? rule.cli?.aliases?.[v.toLowerCase()] : undefined;
    const r = checkParam(rule, alias ?? v, { now: new Date() });
    if (!r.ok) this.fail(at, ruleAsTyped(rule, r.rule, v), v);
    return r.value;
  }

  optional<T>(at: string, rule: ParamSpec, v: unknown): T | null {
    return v === undefined || v === null ? null : (this.param(at, rule, v) as T);
  }

  key(at: string, v: unknown): string | null {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') this.fail(at, 'must be text', v);
    // Not echoed: a mistyped key may be a real one.
    if (!this.keys.includes(v)) this.fail(at, 'is not one of the keys of the seed (or of --api-key)');
    return v;
  }

  link(at: string, v: unknown, codes: Set<string>): SeedLink {
    const m = this.mapping(at, v, LINK_FIELDS);
    if (m.fullLink === undefined) this.fail(`${at}.fullLink`, 'is required');
    let code: string | null = null;
    if (m.code !== undefined) {
      if (typeof m.code !== 'string' || !CODE.test(m.code)) this.fail(`${at}.code`, 'must be 3 to 16 letters and digits ([0-9A-Za-z])', m.code);
      if (codes.has(m.code)) this.fail(`${at}.code`, 'is given to another link of the seed', m.code);
      codes.add(m.code);
      code = m.code;
    }
    const clicks = m.clicks ?? 0;
    if (typeof clicks !== 'number' || !Number.isInteger(clicks) || clicks < 0 || clicks > MAX_SEED_CLICKS) {
      this.fail(`${at}.clicks`, `must be a whole number from 0 to ${MAX_SEED_CLICKS}`, clicks);
    }
    if (m.moderatorComment !== undefined && typeof m.moderatorComment !== 'string') this.fail(`${at}.moderatorComment`, 'must be text', m.moderatorComment);
    return {
      key: this.key(`${at}.key`, m.key),
      fullLink: this.param(`${at}.fullLink`, RULES.fullLink, m.fullLink) as string,
      code,
      status: this.optional<number>(`${at}.status`, RULES.status, m.status) ?? 1,
      moderatorStatus: this.optional<number>(`${at}.moderatorStatus`, RULES.moderatorStatus, m.moderatorStatus),
      moderatorComment: (m.moderatorComment as string | undefined) ?? null,
      expirationDate: this.optional<string>(`${at}.expirationDate`, RULES.expirationDate, m.expirationDate),
      comment: this.optional<string>(`${at}.comment`, RULES.comment, m.comment),
      clicks,
    };
  }

  message(at: string, v: unknown, senders: readonly string[]): SeedMessage {
    const m = this.mapping(at, v, MESSAGE_FIELDS);
    if (m.to === undefined) this.fail(`${at}.to`, 'is required');
    if (m.text === undefined) this.fail(`${at}.text`, 'is required');
    const from = this.optional<string>(`${at}.from`, RULES.from, m.from);
    if (from !== null && !senders.includes(from)) this.fail(`${at}.from`, 'is not a registered sender: add it to senders (or serve --sender)', from);
    let status = 'DELIVRD';
    if (m.status !== undefined) {
      const given = m.status;
      const s = typeof given === 'string' ? MESSAGE_STATUSES.find((x) => x === given.toUpperCase()) : undefined;
      if (!s) this.fail(`${at}.status`, `must be one of ${MESSAGE_STATUSES.join(', ')}`, m.status);
      status = s;
    }
    const ago = m.ago ?? 0;
    if (typeof ago !== 'number' || !Number.isInteger(ago) || ago < 0 || ago > MAX_SEED_AGO_S) this.fail(`${at}.ago`, `must be a whole number of seconds from 0 to ${MAX_SEED_AGO_S}`, ago);
    return {
      key: this.key(`${at}.key`, m.key),
      to: this.param(`${at}.to`, RULES.to, m.to) as string,
      text: this.param(`${at}.text`, RULES.text, m.text) as string,
      from,
      status,
      name: this.optional<string>(`${at}.name`, RULES.name, m.name),
      ago,
    };
  }
}

/**
 * Checks seed data (parsed from a file, or given in TypeScript). `otherKeys`
 * and `otherSenders` are those accepted besides the seed's own (serve's
 * --api-key and --sender), which its entries may name too. Throws SeedError.
 */
export function checkSeed(data: unknown, otherKeys: readonly string[] = [], otherSenders: readonly string[] = []): Seed {
  const c0: Checker = new Checker([]);
  const top = c0.mapping('seed', data ?? {}, TOP);
  const keys: string[] = [];
  c0.list('keys', top.keys).forEach((k, i) => {
    if (typeof k !== 'string') c0.fail(`keys[${i}]`, 'must be text', k);
    if (!KEY.test(k)) c0.fail(`keys[${i}]`, 'must be 1 to 200 printable characters with no spaces');
    if (keys.includes(k)) c0.fail(`keys[${i}]`, 'is given twice');
    keys.push(k);
  });
  const senders: string[] = [];
  c0.list('senders', top.senders).forEach((s, i) => {
    const sender = c0.param(`senders[${i}]`, RULES.from, s) as string;
    if (!senders.includes(sender)) senders.push(sender);
  });
  const c: Checker = new Checker([...keys, ...otherKeys]);
  const codes = new Set<string>();
  const links = c.list('links', top.links).map((l, i) => c.link(`links[${i}]`, l, codes));
  const campaigns = c.list('campaigns', top.campaigns).map((v, i) => {
    const m = c.mapping(`campaigns[${i}]`, v, CAMPAIGN_FIELDS);
    return {
      key: c.key(`campaigns[${i}].key`, m.key),
      name: c.optional<string>(`campaigns[${i}].name`, RULES.name, m.name),
      links: c.list(`campaigns[${i}].links`, m.links).map((l, j) => c.link(`campaigns[${i}].links[${j}]`, l, codes)),
    };
  });
  const allSenders = [...senders, ...otherSenders];
  const messages = c.list('messages', top.messages).map((m, i) => c.message(`messages[${i}]`, m, allSenders));
  return { keys, senders, links, campaigns, messages };
}

/** A seed with nothing in it. */
export const EMPTY_SEED: Seed = { keys: [], senders: [], links: [], campaigns: [], messages: [] };
