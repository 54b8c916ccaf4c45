// The planned life of one message, fixed when it is sent: NEW, then ENQUEUD,
// ACCEPTD (or REJECTD) and a final status a few simulated seconds later, the
// outcome picked by the recipient's last four digits (docs/emulator-reference.md, "Test
// numbers"). Times are on the emulator's clock, durations shrink by timeScale,
// and the database applies the plan lazily (Database.advance).

import type { LifecyclePlan, Stage } from '../store/rows.js';

/** Simulated durations, in ms at time scale 1. */
export const STEP_MS = 1_000;
export const MODERATION_MS = 60_000;
/** Validity when params[validity] is not sent (the contract's maximum). */
export const DEFAULT_VALIDITY_MIN = 1440;

export type TestOutcome = 'REJECTD' | 'UNDELIV' | 'EXPIRED' | 'PDLIVRD' | 'DELIVRD';

/** The test numbers: what a recipient's last four digits make of a message. */
export const TEST_NUMBERS: Readonly<Record<string, TestOutcome>> = {
  '0000': 'REJECTD',
  '1111': 'UNDELIV',
  '2222': 'EXPIRED',
  '3333': 'PDLIVRD',
};

export function outcomeOf(recipient: string): TestOutcome {
  return TEST_NUMBERS[recipient.slice(-4)] ?? 'DELIVRD';
}

export interface PlanInput {
  recipient: string;
  createTs: number;
  deferredTs: number | null;
  validityMin: number;
  moderation: boolean;
  timeScale: number;
}

export function planLifecycle(input: PlanInput): LifecyclePlan {
  const scaled = (ms: number) => Math.round(ms / input.timeScale);
  const u = scaled(STEP_MS);
  const t0 = input.moderation ? input.createTs + scaled(MODERATION_MS) : input.createTs;
  const ready: Stage = { t: t0, status: 'NEW', campaign: input.moderation ? 'READY_FOR_SEND' : 'AUTO_READY_FOR_SEND' };
  const t1 = Math.max(t0 + u, input.deferredTs ?? 0);
  const enqueued: Stage = { t: t1, status: 'ENQUEUD', campaign: 'RUNNING' };
  const accepted: Stage = { t: t1 + u, status: 'ACCEPTD', campaign: 'SENT' };
  const done = (t: number, status: string): Stage => ({ t, status, campaign: 'DONE' });
  let stages: LifecyclePlan['stages'];
  switch (outcomeOf(input.recipient)) {
    case 'REJECTD':
      stages = [ready, enqueued, done(t1 + u, 'REJECTD'), null, null];
      break;
    case 'UNDELIV':
      stages = [ready, enqueued, accepted, null, done(t1 + 4 * u, 'UNDELIV')];
      break;
    case 'EXPIRED':
      // The handset never answers: the operator keeps trying until the validity runs out.
      stages = [ready, enqueued, accepted, null, done(t1 + scaled(input.validityMin * 60_000), 'EXPIRED')];
      break;
    case 'PDLIVRD':
      stages = [ready, enqueued, accepted, { t: t1 + 3 * u, status: 'PDLIVRD', campaign: 'SENT' }, done(t1 + 5 * u, 'DELIVRD')];
      break;
    default:
      stages = [ready, enqueued, accepted, null, done(t1 + 4 * u, 'DELIVRD')];
  }
  return {
    stages,
    status: 'NEW',
    campaignStatus: input.moderation ? 'MODERATION' : ready.campaign,
    nextTs: input.moderation ? t0 : t1,
  };
}

/** The final statuses a test may give one message at once (the control API's messages/status). */
export const FORCEABLE = ['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED'] as const;
export type Forceable = (typeof FORCEABLE)[number];

/**
 * A message's five slots rewritten so that it reaches `target` at `now`, as
 * its lifecycle would have had it: the stages it already reached stay, the
 * rest come due now in their order (ENQUEUD, then ACCEPTD, then the final
 * one; a rejection comes straight after ENQUEUD, as the operator's does).
 * A status it already reached that the new end does not follow (an earlier
 * final one, PDLIVRD before a rejection) gives way.
 */
export function forcedStages(slots: ReadonlyArray<Stage | null>, target: Forceable, now: number): LifecyclePlan['stages'] {
  const reached = (i: number) => {
    const s = slots[i];
    return s && s.t <= now ? s : null;
  };
  const at = (i: number, fallback: Stage) => reached(i) ?? fallback;
  const ready = at(0, { t: now, status: 'NEW', campaign: 'AUTO_READY_FOR_SEND' });
  const enqueued = at(1, { t: now, status: 'ENQUEUD', campaign: 'RUNNING' });
  const done: Stage = { t: now, status: target, campaign: 'DONE' };
  if (target === 'REJECTD') return [ready, enqueued, done, null, null];
  const accepted = reached(2)?.status === 'ACCEPTD' ? reached(2)! : { t: now, status: 'ACCEPTD', campaign: 'SENT' };
  const partly = reached(3)?.status === 'PDLIVRD' ? reached(3) : null;
  return [ready, enqueued, accepted, partly, done];
}
