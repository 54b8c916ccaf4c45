// How each result field appears in a table for people: a header in words,
// and what may give way when the terminal is narrow. JSON, CSV and TSV keep
// the service's field names; only tables read this. And which fields a
// result row has: what --fields may name.

import { MESSAGE_STATUS_LABELS } from './codes.js';
import type { OperationSpec, Shape, ValueKind } from './types.js';

/**
 * - key: identifies the row (id, code, short link); never cut, never hidden.
 * - text: long free text (URLs, comments, message texts); cut to fit.
 * - wrap: free text a person must read whole (why a row failed): wrapped over lines, never cut.
 * - value: short values (statuses, numbers, dates); shown whole or hidden.
 */
export type ColumnRole = 'key' | 'text' | 'wrap' | 'value';

export interface ColumnInfo {
  header: string;
  role: ColumnRole;
  /** Lower ranks stay longest when the terminal is too narrow for every column. */
  rank: number;
  /** A field whose value holds this one (the code is the end of the short link): this column gives way first when both are shown. */
  repeats?: string;
  /** What its values are, wherever the field appears (a `status` says too little: the operation's output names it). */
  kind?: ValueKind;
  /** A text cut to fit keeps its start (a message, a comment), or its host and last part (`middle`: a URL, a path). */
  cut?: 'middle';
  /** What tells the rows apart for a person (a full link, a text, a number): the last column to give way. */
  tellsApart?: true;
}

const col = (header: string, role: ColumnRole, rank: number, repeats?: string): ColumnInfo => ({ header, role, rank, repeats });
const as = (kind: ValueKind, info: ColumnInfo): ColumnInfo => ({ ...info, kind });
/** A URL or a path: cut in the middle, keeping its host and last part. */
const url = (info: ColumnInfo): ColumnInfo => ({ ...info, cut: 'middle' });
const apart = (info: ColumnInfo): ColumnInfo => ({ ...info, tellsApart: true });

export const COLUMN_INFO: Record<string, ColumnInfo> = {
  // links
  id: col('id', 'key', 0),
  code: col('code', 'key', 0, 'shortLink'),
  shortLink: col('short link', 'key', 0),
  fullLink: apart(url(col('full link', 'text', 10))),
  status: col('status', 'value', 11),
  clickCnt: col('clicks', 'value', 12),
  redirectCnt: col('redirects', 'value', 13),
  comment: col('comment', 'text', 14),
  expirationDate: col('expires', 'value', 15),
  createTs: as('time', col('created', 'value', 16)),
  updateTs: as('time', col('updated', 'value', 17)),
  moderatorStatus: as('moderatorStatus', col('moderation', 'value', 18)),
  moderatorComment: col('moderator comment', 'text', 19),
  // messages
  messageId: col('message id', 'key', 0),
  to: apart(col('to', 'value', 10)),
  text: apart(col('text', 'text', 12)),
  // The message's status after `message send --wait`: labelled as every screen labels a message's status.
  deliveryStatus: as('messageStatus', col('status', 'value', 11)),
  campaignStatus: as('campaignStatus', col('campaign status', 'value', 11)),
  startSendTs: as('time', col('sent', 'value', 14)),
  statusUpdateTs: as('time', col('status changed', 'value', 15)),
  from: col('from', 'value', 16),
  segNum: col('segments', 'value', 17),
  segUserBuy: as('money', col('price', 'value', 18)),
  campaignId: col('campaign', 'value', 19),
  // Shown only when asked for (--with-number-info, --fields): they outrank the send time and the detail after it.
  countryA2: col('country', 'value', 13),
  operatorName: col('operator', 'text', 13),
  groups: col('groups', 'value', 22),
  uuid: col('uuid', 'value', 23),
  // link stats, link delete
  period: col('period', 'key', 0),
  processed: col('deleted', 'text', 10),
  notProcessed: col('not deleted', 'text', 11),
  // bulk results and checks: a row's state is `state` in every format, as the journal and docs/bulk.md name it
  row: col('row', 'key', 0),
  state: col('state', 'value', 1),
  column: col('column', 'value', 2),
  error: col('error', 'wrap', 3),
  // report delivery (grouped by one of day, sender, country, operator), report links, search
  day: col('day', 'key', 0),
  sender: col('sender', 'key', 0),
  country: col('country', 'key', 0),
  operator: col('operator', 'key', 0),
  messages: col('messages', 'value', 1),
  segments: col('segments', 'value', 9),
  // The counts of each ending outrank the rate, times and cost: a row adds up (the zeros go first anyway).
  // Each is headed by its status's word, as tables say the status (words.ts, statusWord).
  delivered: col(MESSAGE_STATUS_LABELS.DELIVRD, 'value', 2),
  undelivered: col(MESSAGE_STATUS_LABELS.UNDELIV, 'value', 3),
  rejected: col(MESSAGE_STATUS_LABELS.REJECTD, 'value', 3),
  expired: col(MESSAGE_STATUS_LABELS.EXPIRED, 'value', 3),
  deleted: col(MESSAGE_STATUS_LABELS.DELETED, 'value', 3),
  pending: col('pending', 'value', 3),
  deliveryRate: as('fraction', col('rate', 'value', 4)),
  medianSeconds: as('seconds', col('median', 'value', 5)),
  p90Seconds: as('seconds', col('p90', 'value', 6)),
  cost: as('money', col('cost', 'value', 7)),
  clicks: col('clicks', 'value', 1),
  redirects: col('redirects', 'value', 13),
  activeDays: col('days clicked', 'value', 14),
  clicksPerDay: col('clicks/day', 'value', 2),
  busiestDay: col('busiest day', 'value', 15),
  kind: col('kind', 'value', 1),
  at: as('time', col('at', 'value', 3)),
  // sync and sync --status
  messagesFetched: col('messages fetched', 'value', 1),
  statusesChecked: col('statuses checked', 'value', 2),
  statusesChanged: col('statuses changed', 'value', 2),
  becameFinal: col('became final', 'value', 2),
  statusesRefreshed: col('statuses refreshed', 'value', 2),
  links: col('links', 'value', 3),
  linkStatsFetched: col('link stats fetched', 'value', 4),
  first: col('first sync', 'value', 5),
  since: as('time', col('since', 'value', 6)),
  firstSent: as('time', col('first sent', 'value', 7)),
  lastSent: as('time', col('last sent', 'value', 8)),
  linksWithClicks: col('links clicked', 'value', 9),
  firstSyncDone: col('first sync done', 'value', 10),
  lastSync: as('time', col('last sync', 'value', 11)),
  age: col('age', 'value', 12),
  path: url(col('file', 'text', 13)),
  // balance, inbox
  balance: as('money', col('balance', 'key', 0)),
  currency: col('currency', 'value', 1),
  createdAt: as('time', col('created', 'value', 13)),
  // The emulator's message in all (segUserBuy x segments): its cost, as message get and report delivery say it, not a second `price`.
  price: as('money', col('cost', 'value', 19)),
  timeline: as('timeline', col('timeline', 'text', 24)),
  // config list, config profiles
  profile: col('profile', 'key', 0),
  current: col('current', 'value', 1),
  baseUrl: url(col('base-url', 'text', 2)),
  setting: col('setting', 'key', 0),
  value: url(col('value', 'text', 1)),
  source: col('source', 'value', 2),
};

/** A name as compared: any case, spaces, dashes and underscores alike (`short link`, `short-link`, `shortLink`). */
const squash = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * The field among `fields` that `name` names: the field itself or its
 * table header (`clicks` -> clickCnt, `created` -> createTs), so what a
 * table shows can be given to --sort and --fields. Undefined when none.
 */
export function fieldNamed(name: string, fields: readonly string[]): string | undefined {
  const wanted = squash(name);
  return fields.find((f) => squash(f) === wanted) ?? fields.find((f) => squash(columnInfo(f).header) === wanted);
}

/** Every name fieldNamed takes for `fields`, to suggest from: the fields, and their headers of one word. */
export function fieldNames(fields: readonly string[]): string[] {
  return [...fields, ...fields.map((f) => columnInfo(f).header).filter((h) => !/\s/.test(h) && !fields.includes(h))];
}

/** `link stats`' count of one link, keyed by its id (clicks_417863): headed `clicks of 417863`, as the chart says `clicks of promo`. */
const PER_LINK = /^(clicks|redirects)_(\d+)$/;

/** A field not in the table above: its own name, shown after the known ones. */
export function columnInfo(field: string): ColumnInfo {
  const perLink = PER_LINK.exec(field);
  if (perLink) return { ...COLUMN_INFO[perLink[1]], header: `${perLink[1]} of ${perLink[2]}` };
  return COLUMN_INFO[field] ?? { header: field, role: 'value', rank: 50 };
}

function objectFields(shape: Shape | undefined): string[] | undefined {
  return shape && typeof shape === 'object' && 'object' in shape && !shape.rest ? Object.keys(shape.object) : undefined;
}

/**
 * The fields a row of the operation's output can have (what --fields may
 * name), or undefined where they are not fixed.
 */
export function rowFields(op: Pick<OperationSpec, 'output' | 'result'>): string[] | undefined {
  const shape = op.result;
  if (op.output.rows === 'self') return objectFields(shape);
  if (op.output.rows === 'array') return typeof shape === 'object' && 'array' in shape ? objectFields(shape.array) : undefined;
  const items = typeof shape === 'object' && 'object' in shape ? shape.object.items : undefined;
  return typeof items === 'object' && 'array' in items ? objectFields(items.array) : undefined;
}

/**
 * The columns of an operation's results for this input: its own (or those a
 * command shows of them, as --follow's), and those an input asks for
 * (`withNumberInfo`: country, operator).
 */
export function columnsFor(op: Pick<OperationSpec, 'output'>, input: Record<string, unknown>, own: readonly string[] = op.output.columns): readonly string[] {
  const added = Object.entries(op.output.columnsWith ?? {}).flatMap(([key, columns]) => (input[key] ? columns : []));
  return added.length ? [...own, ...added] : own;
}
