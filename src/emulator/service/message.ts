// Module Message: one handler per catalog operation, each under its catalog
// id (`message.send`): sending (a campaign with one message, its lifecycle
// planned at once), delivery status and the message list. Reading handlers
// first apply whatever lifecycle stages have come due.

import { randomUUID } from 'node:crypto';
import { AFTER_LINK, isFullLink, LINKS_IN_TEXT, parseDateTime } from '../../catalog/rules.js';
import { countSegments } from '../../catalog/segments.js';
import { money, ok, str, type Handler, type EmulatorSettings } from './handler.js';
import { DEFAULT_VALIDITY_MIN, planLifecycle } from './lifecycle.js';
import { addLink, shortLinkOf } from './link.js';
import { instantOf, listQuery, sortKeys } from './list-query.js';
import { numberInfo } from './numbers.js';
import type { MessageRow } from '../store/rows.js';
import { wallOf } from './time-zone.js';

/** Sender ID used when `from` is omitted: the service's shared one. */
export const DEFAULT_SENDER = 'SMSLINK';

/** Replaces every link in `text` with a new short link of the campaign. */
function shortenLinks(s: EmulatorSettings, accountId: number, now: number, campaignId: number, text: string): string {
  return text.replace(LINKS_IN_TEXT, (match) => {
    const tail = AFTER_LINK.exec(match)?.[0] ?? '';
    const url = match.slice(0, match.length - tail.length);
    if (!isFullLink(url)) return match;
    const { code } = addLink(s, accountId, now, { fullLink: url, status: 1, expirationDate: null, comment: null, campaignId });
    return shortLinkOf(s, code) + tail;
  });
}

const SORT_COLUMNS: Record<string, string> = {
  id: 'id',
  campaignId: 'campaign_id',
  from: 'sender',
  to: 'recipient',
  text: 'text',
  status: 'status',
  startSendTs: 'start_send_ts',
  statusUpdateTs: 'status_update_ts',
  segNum: 'seg_num',
};

/** Range criteria: catalog key prefix -> column. */
const RANGES: Array<[string, string]> = [
  ['campaignCreateTs', 'campaign_create_ts'],
  ['campaignSentTs', 'campaign_sent_ts'],
  ['startSendTs', 'start_send_ts'],
  ['statusUpdateTs', 'status_update_ts'],
];

const NO_NUMBER_INFO = { countryA2: null, operatorName: null } as const;

function messageJson(s: EmulatorSettings, r: MessageRow, withNumberInfo: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: String(r.id),
    campaignId: String(r.campaign_id),
    segNum: String(r.seg_num),
    segUserBuy: money(r.seg_price),
    from: r.sender,
    to: r.recipient,
    text: r.text,
    status: r.status,
    groups: r.groups,
    uuid: r.uuid,
    // Always there on the live service; null unless withNumberInfo=1.
    ...(withNumberInfo ? numberInfo(r.recipient) : NO_NUMBER_INFO),
  };
  out.startSendTs = r.start_send_ts === null ? null : s.tz.format(r.start_send_ts);
  out.statusUpdateTs = r.status_update_ts === null ? null : s.tz.format(r.status_update_ts);
  return out;
}

export const MESSAGE_HANDLERS: Record<string, Handler> = {
  'message.send'({ settings: s, accountId, now, values: v }) {
    // The contract: a sender ID that is not registered, or cannot be used, gives way to the shared one.
    const given = v.from as string | undefined;
    const from = given !== undefined && s.senders.has(given) ? given : undefined;
    const recipient = v.recipient as string;
    const deferredTs = typeof v.deferredToTs === 'string' ? s.tz.fromWall(wallOf(parseDateTime(v.deferredToTs)!)) : null;
    const validityMin = (v.validity as number | undefined) ?? DEFAULT_VALIDITY_MIN;
    const { campaignId, messageId } = s.db.send(accountId, (v.name as string | undefined) ?? null, now, (campaignId) => {
      const text = v.shortenLinks === 1 ? shortenLinks(s, accountId, now, campaignId, v.text as string) : (v.text as string);
      return {
        uuid: randomUUID(),
        sender: from ?? DEFAULT_SENDER,
        recipient,
        text,
        segNum: countSegments(text).segments,
        segPrice: s.price,
        deferredTs,
        validityMin,
        now,
        plan: planLifecycle({ recipient, createTs: now, deferredTs, validityMin, moderation: s.moderation, timeScale: s.timeScale }),
      };
    });
    // Live: ids as strings, status a real number (1 awaiting moderation, 2 sent without).
    return ok({ campaignId: String(campaignId), messageId: String(messageId), status: s.moderation ? 1 : 2 });
  },

  'message.status'({ settings: s, accountId, now, values: v }) {
    s.db.advance(now);
    const rows = s.db.messageStatuses(accountId, v.ids as number[]);
    return ok(
      rows.map((r) => ({
        id: String(r.id),
        status: r.status,
        segNum: String(r.seg_num),
        startSendTs: r.start_send_ts === null ? null : s.tz.format(r.start_send_ts),
        statusUpdateTs: r.status_update_ts === null ? null : s.tz.format(r.status_update_ts),
      })),
    );
  },

  'message.list'({ settings: s, accountId, now, values: v }) {
    s.db.advance(now);
    const q = listQuery(v);
    if (v.id !== undefined) q.add('id = ?', v.id as number);
    if (v.campaignId !== undefined) q.add('campaign_id = ?', v.campaignId as number);
    if (v.campaignIds !== undefined) q.add('campaign_id IN (SELECT value FROM json_each(?))', JSON.stringify(v.campaignIds));
    if (v.from !== undefined) q.add('sender = ?', v.from as string);
    if (v.to !== undefined) q.add('instr(recipient, ?) > 0', v.to as string);
    if (v.text !== undefined) q.add('text = ?', v.text as string);
    if (v.status !== undefined) q.add('status = ?', v.status as string);
    if (v.groups !== undefined) {
      q.add("groups IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(?) AS g WHERE instr(',' || groups || ',', ',' || g.value || ',') > 0)", JSON.stringify(v.groups));
    }
    if (v.campaignStatus === 'NOT_YET_SENT') q.add('campaign_sent_ts IS NULL');
    else if (v.campaignStatus === 'DEFERRED') q.add('campaign_sent_ts IS NULL AND deferred_ts IS NOT NULL');
    else if (v.campaignStatus !== undefined) q.add('campaign_status = ?', v.campaignStatus as string);
    for (const [key, column] of RANGES) {
      if (v[`${key}From`] !== undefined) q.add(`${column} >= ?`, instantOf(s, v[`${key}From`] as string));
      if (v[`${key}To`] !== undefined) q.add(`${column} < ?`, instantOf(s, v[`${key}To`] as string, true));
    }
    q.sortBy(sortKeys(v.sort, SORT_COLUMNS, [{ column: 'id', desc: true }]));
    const { rows, total } = s.db.listMessages(accountId, q);
    return ok({ items: rows.map((r) => messageJson(s, r, v.withNumberInfo === 1)), totalItemCount: str(total) });
  },
};
