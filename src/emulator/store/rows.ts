// The rows of the emulator's database as the code sees them: links and
// messages read (LinkRow, MessageRow, in the columns' snake_case), the
// values a new one is written with (NewLink, NewMessage), and a message's
// planned stages (LifecyclePlan), which service/lifecycle.ts makes.

/** A status a message takes at time t (the emulator's clock), and its campaign's then. */
export interface Stage {
  t: number;
  status: string;
  campaign: string;
}

/** A message's planned life as stored with it (service/lifecycle.ts makes it, the database applies it). */
export interface LifecyclePlan {
  /** Five slots: ready (t0), ENQUEUD (t1), accepted or rejected (t2), partly delivered (t3), final (t4). */
  stages: [Stage, Stage, Stage | null, Stage | null, Stage | null];
  status: string;
  campaignStatus: string;
  nextTs: number;
}

export interface LinkRow {
  id: number;
  code: string;
  full_link: string;
  status: number;
  moderator_status: number;
  moderator_comment: string | null;
  comment: string | null;
  expiration_date: string | null;
  expires_ts: number | null;
  click_cnt: number;
  redirect_cnt: number;
  campaign_id: number | null;
  create_ts: number;
  update_ts: number;
}

export interface MessageRow {
  id: number;
  campaign_id: number;
  uuid: string;
  sender: string;
  recipient: string;
  text: string;
  seg_num: number;
  seg_price: number;
  groups: string | null;
  status: string;
  start_send_ts: number | null;
  status_update_ts: number | null;
}

const LINK_FIELDS = [
  'id',
  'code',
  'full_link',
  'status',
  'moderator_status',
  'moderator_comment',
  'comment',
  'expiration_date',
  'expires_ts',
  'click_cnt',
  'redirect_cnt',
  'campaign_id',
  'create_ts',
  'update_ts',
] as const satisfies ReadonlyArray<keyof LinkRow>;
const MESSAGE_FIELDS = [
  'id',
  'campaign_id',
  'uuid',
  'sender',
  'recipient',
  'text',
  'seg_num',
  'seg_price',
  'groups',
  'status',
  'start_send_ts',
  'status_update_ts',
] as const satisfies ReadonlyArray<keyof MessageRow>;

/** The columns a LinkRow or MessageRow is read from, in their order. */
export const LINK_COLUMNS = LINK_FIELDS.join(', ');
export const MESSAGE_COLUMNS = MESSAGE_FIELDS.join(', ');

// Rows come back as arrays (raw mode): libsql builds objects column by column,
// which costs more than the query itself, and adds an enumerable `_metadata`
// key to them. A mapper names the values of an array after the columns read.
export type Raw = unknown[];

function mapper<T>(names: readonly string[]): (r: Raw) => T {
  return (r) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = r[i];
    return row as T;
  };
}

export const linkRow = mapper<LinkRow>(LINK_FIELDS);
export const messageRow = mapper<MessageRow>(MESSAGE_FIELDS);

/** What a link is made with and shown with, in the service's names. */
export interface LinkFields {
  code: string;
  fullLink: string;
  status: number;
  moderatorStatus: number;
  moderatorComment: string | null;
  comment: string | null;
  expirationDate: string | null;
  campaignId: number | null;
}

export interface NewLink extends LinkFields {
  accountId: number;
  expiresTs: number | null;
  now: number;
}

export interface NewMessage {
  accountId: number;
  campaignId: number;
  uuid: string;
  sender: string;
  recipient: string;
  text: string;
  segNum: number;
  segPrice: number;
  deferredTs: number | null;
  validityMin: number;
  now: number;
  plan: LifecyclePlan;
}
