// Messages whole from the contract's operations only: Message/GetSMSStatus
// gives each id's send time, then Message/List narrowed to that time
// (withNumberInfo=1) gives the rest. `message get` shows what it finds;
// `message status` tables borrow it for their recipient and text columns.

import { messageList, messageStatus, type ListMessagesInput } from '../../catalog/message.js';
import { wireTime } from '../../catalog/rules.js';
import type { Message, MessageStatusRecord } from '../../catalog/types.js';
import type { SmsLinkClient } from '../../client/client.js';
import { idLimit } from '../../catalog/validate.js';
import { chunk, mapLimit } from '../shared/ids.js';

/** Message/List's largest page. */
const PAGE = 100;
/** Pages `message get` reads for one send time before it gives up looking (10,000 messages sent in one second). */
const MAX_PAGES = 100;

/** One Message/List search and the ids it is to find. */
interface Search {
  criteria: Record<string, unknown>;
  ids: Set<number>;
}

/**
 * Reads each search's pages (at most `maxPages`) until every id it is to
 * find has been seen; returns the messages found, by id.
 */
async function search(client: SmsLinkClient, searches: Search[], maxPages: number, concurrency: number): Promise<Map<number, Message>> {
  const found = new Map<number, Message>();
  await mapLimit(searches, concurrency, async ({ criteria, ids }) => {
    for (let page = 0; page < maxPages; page++) {
      const input: ListMessagesInput = { ...criteria, withNumberInfo: 1, pageSize: PAGE, currentPage: page, sort: { startSendTs: 'ASC' } };
      const answer = await client.call(messageList, input);
      for (const m of answer.items) if (ids.has(Number(m.id))) found.set(Number(m.id), m);
      const done = [...ids].every((id) => found.has(id));
      if (done || answer.items.length < PAGE || (page + 1) * PAGE >= Number(answer.totalItemCount)) return;
    }
  });
  return found;
}

/**
 * The searches that find these messages: one per send time (`exact`), or
 * one per 100 ids over their span of send times. A message not sent yet
 * has no send time: it is looked for among the messages of its status.
 */
function searchesFor(records: MessageStatusRecord[], exact: boolean): Search[] {
  const byKey = new Map<string, Search>();
  const add = (key: string, criteria: Record<string, unknown>, id: number) => {
    const s = byKey.get(key) ?? { criteria, ids: new Set<number>() };
    s.ids.add(id);
    byKey.set(key, s);
  };
  const timed = records.map((r) => ({ id: Number(r.id), at: wireTime(r.startSendTs), status: String(r.status) })).sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
  for (const r of timed.filter((t) => t.at === undefined)) add(`status ${r.status}`, { status: r.status }, r.id);
  const sent = timed.filter((t): t is typeof t & { at: string } => t.at !== undefined);
  if (exact) for (const r of sent) add(`at ${r.at}`, { startSendTsFrom: r.at, startSendTsTo: r.at }, r.id);
  else
    for (let i = 0; i < sent.length; i += PAGE) {
      const part = sent.slice(i, i + PAGE);
      for (const r of part) add(`part ${i}`, { startSendTsFrom: part[0].at, startSendTsTo: part.at(-1)!.at }, r.id);
    }
  return [...byKey.values()];
}

/**
 * Recipient and text for a `message status` table: one Message/List request
 * per 100 ids, over their span of send times; ids it does not find keep a dash.
 */
export async function recipientsAndTexts(client: SmsLinkClient, records: MessageStatusRecord[], concurrency: number): Promise<Map<number, Message>> {
  return search(client, searchesFor(records, false), 1, concurrency);
}

/**
 * The messages of these status records, whole. A message that moved on
 * between the two reads (sent meanwhile, or a new status) is read and
 * looked for once more; one still not found is left out.
 */
export async function findMessages(client: SmsLinkClient, records: MessageStatusRecord[], concurrency: number): Promise<Map<number, Message>> {
  const full = await search(client, searchesFor(records, true), MAX_PAGES, concurrency);
  const moved = records.filter((r) => !full.has(Number(r.id)));
  if (moved.length) {
    const again = (await mapLimit(chunk(moved, PAGE), concurrency, (part) => client.call(messageStatus, { ids: part.map((r) => Number(r.id)) }))).flat();
    for (const [id, m] of await search(client, searchesFor(again, true), MAX_PAGES, concurrency)) full.set(id, m);
  }
  return full;
}

/** The status records of `ids` (100 a request), in the order the ids were given, and the ids the service did not know. */
export async function readStatuses(client: SmsLinkClient, ids: readonly string[], concurrency: number): Promise<{ records: MessageStatusRecord[]; missing: string[] }> {
  const answers = await mapLimit(chunk(ids, idLimit(messageStatus)), concurrency, (part) => client.call(messageStatus, { ids: part.map(Number) }));
  const byId = new Map(answers.flat().map((r) => [Number(r.id), r]));
  return {
    records: ids.map((id) => byId.get(Number(id))).filter((r): r is MessageStatusRecord => r !== undefined),
    missing: ids.filter((id) => !byId.has(Number(id))),
  };
}

/**
 * Which of these messages, not sent yet, wait for a deferred send: those
 * Message/List finds among their campaigns' with campaignStatus DEFERRED (a
 * search-only value, real-service-notes.md). One request per 100 campaigns;
 * a single send is a campaign of its own. No operation of the contract says
 * for when a campaign is deferred.
 */
export async function deferredOf(client: SmsLinkClient, messages: readonly Record<string, unknown>[], concurrency: number): Promise<Set<number>> {
  const campaigns = [...new Set(messages.filter((m) => !m.startSendTs && m.campaignId !== null && m.campaignId !== undefined).map((m) => Number(m.campaignId)))];
  const found = new Set<number>();
  await mapLimit(chunk(campaigns, PAGE), concurrency, async (part) => {
    const answer = await client.call(messageList, { campaignIds: part, campaignStatus: 'DEFERRED', pageSize: PAGE, currentPage: 0 });
    for (const m of answer.items) found.add(Number(m.id));
  });
  return found;
}
