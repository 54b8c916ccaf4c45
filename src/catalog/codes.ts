// Result codes of the service (real-service-notes.md, "Result codes") and the
// message statuses, shared by the client's errors and the emulator's answers.

export const RESULT_CODES: Readonly<Record<number, string>> = {
  0: 'success',
  1: 'validation error',
  2: 'record not found, or not accessible to this key',
  3: 'unknown application error',
  4: 'unknown module',
  5: 'unknown method',
  6: 'unsupported output format',
  8: 'authentication failed (missing, wrong or expired API key)',
  9: 'access to this method denied for this key',
  10: 'save failed (concurrent access)',
  11: 'required parameter missing',
  12: 'parameter breaks a constraint',
  13: 'wrong regional API server for this account',
  14: 'account blocked or deleted',
  15: 'operation error',
  30: 'rate limit: the method was called too often; nothing was done',
  98: 'bulk operation partly done',
  99: 'bulk operation: nothing processed',
  100: 'accepted as a background task',
  999: 'general service error',
};

export function describeCode(code: number): string {
  return RESULT_CODES[code] ?? 'unknown result code';
}

/** Codes that mean the key or account cannot be used: a configuration problem for the user. */
export const AUTH_CODES: ReadonlySet<number> = new Set([8, 9, 13, 14]);

/** Message statuses of the live service, in lifecycle order. */
export const MESSAGE_STATUSES = ['NEW', 'ENQUEUD', 'ACCEPTD', 'PDLIVRD', 'DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED'] as const;
/** Plain words a person may type for a message status (any case), as `--status delivered`. */
export const MESSAGE_STATUS_WORDS: Readonly<Record<string, (typeof MESSAGE_STATUSES)[number]>> = {
  new: 'NEW',
  queued: 'ENQUEUD',
  enqueued: 'ENQUEUD',
  accepted: 'ACCEPTD',
  'partly-delivered': 'PDLIVRD',
  delivered: 'DELIVRD',
  undelivered: 'UNDELIV',
  rejected: 'REJECTD',
  expired: 'EXPIRED',
  deleted: 'DELETED',
};

/** Each status in the word a table shows for it (the first word of MESSAGE_STATUS_WORDS that names it). */
export const MESSAGE_STATUS_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  MESSAGE_STATUSES.map((code) => [code, Object.entries(MESSAGE_STATUS_WORDS).find(([, c]) => c === code)![0].replace('-', ' ')]),
);

/**
 * Words for several statuses at once, as `report delivery`'s chart counts
 * them and `--status failed` lists them: failed is final but not delivered,
 * pending not final yet.
 */
export const MESSAGE_STATUS_GROUPS = {
  failed: ['UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED'],
  pending: ['NEW', 'ENQUEUD', 'ACCEPTD', 'PDLIVRD'],
} as const satisfies Readonly<Record<string, readonly (typeof MESSAGE_STATUSES)[number][]>>;
export type MessageStatusGroup = keyof typeof MESSAGE_STATUS_GROUPS;

/** Statuses after which a message never changes again. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['DELIVRD', ...MESSAGE_STATUS_GROUPS.failed]);

/** Values of criteria[campaignStatus] (real-service-notes.md, "Campaign statuses"). */
export const CAMPAIGN_STATUSES = [
  'NEW',
  'MODERATION',
  'DECLINED',
  'READY_FOR_SEND',
  'AUTO_READY_FOR_SEND',
  'RUNNING',
  'SENT',
  'DONE',
  'NOT_YET_SENT',
  'DEFERRED',
] as const;
