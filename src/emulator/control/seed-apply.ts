// Puts a checked seed (seed.ts) into an empty database: its links with their
// statuses, expiry and clicks, its campaigns, and its messages already at the
// status the seed gives them. Runs on start and on every reset.

import { randomUUID } from 'node:crypto';
import { countSegments } from '../../catalog/segments.js';
import type { EmulatorSettings } from '../service/handler.js';
import { STEP_MS } from '../service/lifecycle.js';
import type { LifecyclePlan, Stage } from '../store/rows.js';
import { BLOCKED_COMMENT, expiryInstant } from '../service/link.js';
import { DEFAULT_SENDER } from '../service/message.js';
import { locationOf } from '../service/redirect.js';
import { SeedError, type Seed, type SeedLink } from './seed.js';
import { withNewCode } from '../service/short-codes.js';

export interface SeedCounts {
  links: number;
  campaigns: number;
  messages: number;
}

/** A time no clock reaches: the stage after a seeded NEW never comes. */
const NEVER = Number.MAX_SAFE_INTEGER;

const CAMPAIGN_OF: Record<string, string> = { NEW: 'AUTO_READY_FOR_SEND', ENQUEUD: 'RUNNING', ACCEPTD: 'SENT', PDLIVRD: 'SENT' };

/**
 * The life a seeded message has already had, one simulated second a step,
 * ending at `at` with `status`; nothing follows it. Slots as planLifecycle's:
 * ready, ENQUEUD, accepted or rejected, partly delivered, final.
 */
export function seededPlan(status: string, at: number): { plan: LifecyclePlan; createdAt: number } {
  const path: Array<[number, string]> =
    status === 'NEW'
      ? [[0, 'NEW']]
      : status === 'ENQUEUD'
        ? [[0, 'NEW'], [1, 'ENQUEUD']]
        : status === 'ACCEPTD' || status === 'REJECTD'
          ? [[0, 'NEW'], [1, 'ENQUEUD'], [2, status]]
          : status === 'PDLIVRD'
            ? [[0, 'NEW'], [1, 'ENQUEUD'], [2, 'ACCEPTD'], [3, 'PDLIVRD']]
            : [[0, 'NEW'], [1, 'ENQUEUD'], [2, 'ACCEPTD'], [4, status]];
  const createdAt = at - (path.length - 1) * STEP_MS;
  const stages: LifecyclePlan['stages'] = [
    { t: createdAt, status: 'NEW', campaign: CAMPAIGN_OF.NEW },
    { t: NEVER, status: 'ENQUEUD', campaign: CAMPAIGN_OF.ENQUEUD },
    null,
    null,
    null,
  ];
  path.forEach(([slot, s], i) => {
    const stage: Stage = { t: createdAt + i * STEP_MS, status: s, campaign: CAMPAIGN_OF[s] ?? 'DONE' };
    stages[slot] = stage;
  });
  // Applied by the database's next advance(): every stage is due, none is left after.
  const nextTs = status === 'NEW' ? NEVER : stages[1]!.t;
  return { plan: { stages, status: 'NEW', campaignStatus: CAMPAIGN_OF.NEW, nextTs }, createdAt };
}

function insertLink(s: EmulatorSettings, accountId: number, l: SeedLink, campaignId: number | null, now: number, at: string): void {
  const blocked = s.blockPattern !== null && s.blockPattern.test(l.fullLink);
  const moderatorStatus = l.moderatorStatus ?? (blocked ? 0 : 1);
  const expiresTs = expiryInstant(s, l.expirationDate);
  const row = {
    accountId,
    fullLink: l.fullLink,
    status: l.status,
    moderatorStatus,
    moderatorComment: l.moderatorComment ?? (moderatorStatus === 0 && l.moderatorStatus === null ? BLOCKED_COMMENT : null),
    comment: l.comment,
    expirationDate: l.expirationDate,
    expiresTs,
    campaignId,
    now,
  };
  let id: number | null;
  if (l.code !== null) {
    id = s.db.insertLink({ ...row, code: l.code });
    if (id === null) throw new SeedError(`${at}.code: invalid value "${l.code}": is already taken`);
  } else {
    id = withNewCode((code) => s.db.insertLink({ ...row, code }));
  }
  // Each click is a visit, as GET /<code> records it: Link/GetStats counts them in the present period.
  const redirects = l.status === 1 && moderatorStatus === 1 && (expiresTs === null || now < expiresTs) && locationOf(l.fullLink) !== null;
  for (let i = 0; i < l.clicks; i++) s.db.recordVisit(id, now, redirects);
}

/**
 * Writes the seed into the database (emptied by the caller). `accountOf` gives
 * the account of a key, or of the first key for null. Returns what it made.
 */
export function applySeed(s: EmulatorSettings, seed: Seed, accountOf: (key: string | null) => number, now: number): SeedCounts {
  seed.links.forEach((l, i) => insertLink(s, accountOf(l.key), l, null, now, `links[${i}]`));
  let linkCount = seed.links.length;
  seed.campaigns.forEach((c, i) => {
    const accountId = accountOf(c.key);
    const campaignId = s.db.insertCampaign(accountId, c.name, now);
    c.links.forEach((l, j) => insertLink(s, accountId, l, campaignId, now, `campaigns[${i}].links[${j}]`));
    linkCount += c.links.length;
  });
  for (const m of seed.messages) {
    const { plan, createdAt } = seededPlan(m.status, now - m.ago * 1000);
    s.db.send(accountOf(m.key), m.name, createdAt, () => ({
      uuid: randomUUID(),
      sender: m.from ?? DEFAULT_SENDER,
      recipient: m.to,
      text: m.text,
      segNum: countSegments(m.text).segments,
      segPrice: s.price,
      deferredTs: null,
      validityMin: 1440,
      now: createdAt,
      plan,
    }));
  }
  s.db.advance(now);
  return { links: linkCount, campaigns: seed.campaigns.length + seed.messages.length, messages: seed.messages.length };
}
