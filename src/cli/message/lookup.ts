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
 * The searches that find these messages: one per send time. A message not
 * sent yet has no send time: it is looked for among the messages of its status.
 */
function searchesFor(records: MessageStatusRecord[]): Search[] {
  const byKey = new Map<string, Search>();
  const add = (key: string, criteria: Record<string, unknown>, id: number) => {
    const s = byKey.get(key) ?? { criteria, ids: new Set<number>() };
    s.ids.add(id);
    byKey.set(key, s);
  };
  for (const r of records) {
    const at = wireTime(r.startSendTs);
    if (at === undefined) add(`status ${String(r.status)}`, { status: r.status }, Number(r.id));
    else add(`at ${at}`, { startSendTsFrom: at, startSendTsTo: at }, Number(r.id));
  }
  return [...byKey.values()];
}

/**
 * Reads the messages sent over these ids' span of send times (sorted by
 * send time), oldest first, until each is found: when a page leaves some
 * out, the next request starts at the earliest of them (or, when that one
 * is still the earliest, reads the next page), so ids far apart in a busy
 * account cost a request or so each, not every message between them.
 */
async function readAcross(client: SmsLinkClient, sent: ReadonlyArray<{ id: number; at: string }>, found: Map<number, Message>): Promise<void> {
  const wanted = new Set(sent.map((s) => s.id));
  let rest = sent;
  let page = 0;
  for (let asked = 0; rest.length > 0 && asked < MAX_PAGES; asked++) {
    const from = rest[0].at;
    const input: ListMessagesInput = { startSendTsFrom: from, startSendTsTo: rest.at(-1)!.at, withNumberInfo: 1, pageSize: PAGE, currentPage: page, sort: { startSendTs: 'ASC' } };
    const answer = await client.call(messageList, input);
    for (const m of answer.items) if (wanted.has(Number(m.id))) found.set(Number(m.id), m);
    // The window's last page read: an id still missing is not in it (its status moved on meanwhile).
    if (answer.items.length < PAGE || (page + 1) * PAGE >= Number(answer.totalItemCount)) return;
    rest = rest.filter((s) => !found.has(s.id));
    page = rest[0]?.at === from ? page + 1 : 0;
  }
}

/**
 * Recipient and text for a `message status` table: per 100 ids, Message/List
 * over their span of send times (readAcross); messages not sent yet among
 * those of their status. Ids it does not find keep a dash.
 */
export async function recipientsAndTexts(client: SmsLinkClient, records: MessageStatusRecord[], concurrency: number): Promise<Map<number, Message>> {
  const sent = records
    .map((r) => ({ id: Number(r.id), at: wireTime(r.startSendTs) }))
    .filter((t): t is { id: number; at: string } => t.at !== undefined)
    .sort((a, b) => a.at.localeCompare(b.at));
  const found = await search(client, searchesFor(records.filter((r) => wireTime(r.startSendTs) === undefined)), 1, concurrency);
  await mapLimit(chunk(sent, PAGE), concurrency, (part) => readAcross(client, part, found));
  return found;
}

/**
 * The messages of these status records, whole. A message that moved on
 * between the two reads (sent meanwhile, or a new status) is read and
 * looked for once more; one still not found is left out.
 */
export async function findMessages(client: SmsLinkClient, records: MessageStatusRecord[], concurrency: number): Promise<Map<number, Message>> {
  const full = await search(client, searchesFor(records), MAX_PAGES, concurrency);
  const moved = records.filter((r) => !full.has(Number(r.id)));
  if (moved.length) {
    const again = (await mapLimit(chunk(moved, PAGE), concurrency, (part) => client.call(messageStatus, { ids: part.map((r) => Number(r.id)) }))).flat();
    for (const [id, m] of await search(client, searchesFor(again), MAX_PAGES, concurrency)) full.set(id, m);
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
