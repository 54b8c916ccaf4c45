// Settles rows whose outcome is unknown (a request left, no answer came) by
// looking for what they would have made: the service has no idempotency
// keys. docs/bulk.md, "Rows whose outcome is unknown", says what a user sees.

import type { SmsLinkClient } from '../client/client.js';
import type { Link, Message } from '../catalog/types.js';
import { formatDateTime, LINKS_IN_TEXT } from '../catalog/rules.js';
import type { Claimed } from './identity.js';
import type { UnknownRow } from './journal.js';

export type Settled = { kind: 'found'; result: Record<string, unknown> } | { kind: 'absent' } | { kind: 'failed'; error: string };

/** Runs one lookup request in a slot of the run's limiter. */
export type Slot = <T>(request: () => Promise<T>) => Promise<T>;

export interface Reconciler {
  /** The result field the journal keeps the made thing's id in. */
  readonly idField: string;
  /** What was made: the thing itself (a link, a message). */
  readonly what: string;
  settle(rows: UnknownRow[], claimed: Claimed, slot: Slot): Promise<Map<string, Settled>>;
}

const HOUR = 3_600_000;
/** The service's clock may be up to 12 hours behind UTC and 14 ahead, and a request is made a little after it leaves. */
const BEFORE_MS = 13 * HOUR;
const AFTER_MS = 15 * HOUR;
const PAGE = 100;
/** List pages read at most for one lookup (50,000 links made since that day, or messages in a window). */
const MAX_PAGES = 500;

const wall = (ms: number) => formatDateTime(new Date(ms), true);
/** The earliest time to look from, BEFORE_MS ahead of `ms`; none for a row that may have been sent at any time (at 0: a damaged journal that cannot say when it began). */
const lookFrom = (ms: number) => (ms > 0 ? wall(ms - BEFORE_MS) : undefined);

/**
 * Every item of a list, page by page. More than MAX_PAGES pages is an
 * error: the rows looked for stay unknown rather than be taken as absent
 * (and sent again) on the strength of a list that was not read to its end.
 */
async function listAll<T>(what: string, page: (n: number) => Promise<{ items: T[]; totalItemCount: number }>): Promise<T[]> {
  const found: T[] = [];
  for (let n = 0; ; n++) {
    if (n === MAX_PAGES) throw new Error(`more than ${MAX_PAGES * PAGE} ${what}; too many to look through`);
    const answer = await page(n);
    found.push(...answer.items);
    if (answer.items.length < PAGE || (n + 1) * PAGE >= answer.totalItemCount) return found;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * How a rerun avoids both sending a row twice and leaving it unsent: what
 * the row would have made is looked for.
 *
 * - A message: Message/List with criteria[to] and criteria[text] and a window
 *   of campaign creation times around the moment its request left.
 * - A link: Link/List from the day its request left, matched on fullLink,
 *   comment, status and expiry.
 *
 * What the journal records as made by other rows is never taken (claimed
 * ids), and each thing found settles one row. A row is found, absent (the
 * lookup answered and nothing matches: it was not made) or still unknown
 * (the lookup itself failed).
 *
 * smslink does not know the time zone of the account, in which the service
 * reads and writes times; the windows are therefore widened by the largest
 * offsets there are (UTC-12 to UTC+14). What this cannot settle: an identical
 * message to the same number (or an identical link) made outside this
 * journal within that window is taken for the lost one.
 */
export function reconcilerFor(command: string, client: SmsLinkClient): Reconciler {
  return command === 'message send' ? messages(client) : links(client);
}

/** Hands the candidates (in the order they were made) to the rows that match them, one each, skipping claimed ones. */
function assign<T extends { id: number }>(
  rows: UnknownRow[],
  candidates: T[],
  claimed: Claimed,
  signature: { ofRow(row: UnknownRow): string; ofCandidate(c: T): string | undefined },
  resultOf: (c: T) => Record<string, unknown>,
  out: Map<string, Settled>,
): void {
  const waiting = new Map<string, UnknownRow[]>();
  for (const row of [...rows].sort((a, b) => a.at - b.at)) {
    const sig = signature.ofRow(row);
    const same = waiting.get(sig);
    if (same) same.push(row);
    else waiting.set(sig, [row]);
  }
  for (const c of [...candidates].sort((a, b) => a.id - b.id)) {
    if (claimed.has(String(c.id))) continue;
    const sig = signature.ofCandidate(c);
    const row = sig === undefined ? undefined : waiting.get(sig)?.shift();
    if (!row) continue;
    claimed.add(String(c.id));
    out.set(row.key, { kind: 'found', result: resultOf(c) });
  }
  for (const row of rows) if (!out.has(row.key)) out.set(row.key, { kind: 'absent' });
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function messages(client: SmsLinkClient): Reconciler {
  const digits = (v: unknown) => String(v ?? '').replace(/\D/g, '');
  return {
    idField: 'messageId',
    what: 'message',
    async settle(rows, claimed, slot) {
      const out = new Map<string, Settled>();
      // One lookup per recipient and text: identical rows share it, and take one message each.
      const groups = new Map<string, UnknownRow[]>();
      for (const row of rows) {
        const k = JSON.stringify([digits(row.input.recipient), row.input.text, row.input.shortenLinks === 1]);
        const same = groups.get(k);
        if (same) same.push(row);
        else groups.set(k, [row]);
      }
      await Promise.all(
        [...groups.values()].map(async (group) => {
          const { recipient, text } = group[0].input as { recipient: string; text: string };
          // --shorten-links: the service replaced each link in the text, so the text is matched with any link in their place.
          const shortened = group[0].input.shortenLinks === 1;
          const pattern = shortened ? new RegExp(`^${String(text).split(LINKS_IN_TEXT).map(escapeRegExp).join('\\S+')}$`) : undefined;
          const ats = group.map((r) => r.at);
          // A damaged journal's rows were sent at some time in a span: the window covers all of it.
          const untils = group.map((r) => r.until ?? r.at);
          const from = lookFrom(Math.min(...ats));
          try {
            const found: Message[] = await listAll(`messages to ${digits(recipient)} in the lookup's window`, (page) =>
              slot(() =>
                client.listMessages({
                  to: digits(recipient),
                  ...(shortened ? {} : { text }),
                  ...(from ? { campaignCreateTsFrom: from } : {}),
                  campaignCreateTsTo: wall(Math.max(...untils) + AFTER_MS),
                  pageSize: PAGE,
                  currentPage: page,
                }),
              ),
            );
            const sig = (to: unknown, t: unknown) => JSON.stringify([digits(to), t]);
            assign(
              group,
              found,
              claimed,
              {
                ofRow: (r) => sig(r.input.recipient, r.input.text),
                ofCandidate: (m) => (digits(m.to) !== digits(recipient) ? undefined : pattern ? (pattern.test(String(m.text)) ? sig(recipient, text) : undefined) : sig(m.to, m.text)),
              },
              (m) => ({ messageId: m.id, campaignId: m.campaignId }),
              out,
            );
          } catch (err) {
            for (const row of group) out.set(row.key, { kind: 'failed', error: messageOf(err) });
          }
        }),
      );
      return out;
    },
  };
}

function links(client: SmsLinkClient): Reconciler {
  const sig = (fullLink: unknown, comment: unknown, status: unknown, expirationDate: unknown) =>
    JSON.stringify([String(fullLink), comment === undefined || comment === null ? '' : String(comment), Number(status ?? 1), expirationDate ?? null]);
  return {
    idField: 'id',
    what: 'link',
    async settle(rows, claimed, slot) {
      const out = new Map<string, Settled>();
      if (rows.length === 0) return out;
      // One sweep of the links made since the earliest day any of these rows could have been made on;
      // narrowed by their comment when they all share one.
      const day = lookFrom(Math.min(...rows.map((r) => r.at)))?.slice(0, 10);
      const comments = new Set(rows.map((r) => r.input.comment));
      const [comment] = comments;
      const query = comments.size === 1 && typeof comment === 'string' && comment !== '' ? comment : undefined;
      try {
        const found: Link[] = await listAll(day ? `links made since ${day}` : 'links', (page) =>
          slot(() => client.listLinks({ ...(day ? { createTsFrom: day } : {}), ...(query ? { query } : {}), sort: { createTs: 'ASC' }, pageSize: PAGE, currentPage: page })),
        );
        assign(
          rows,
          found,
          claimed,
          {
            ofRow: (r) => sig(r.input.fullLink, r.input.comment, r.input.status, r.input.expirationDate),
            ofCandidate: (l) => sig(l.fullLink, l.comment, l.status, l.expirationDate),
          },
          (l) => ({ id: l.id, code: l.code, shortLink: l.shortLink }),
          out,
        );
      } catch (err) {
        for (const row of rows) out.set(row.key, { kind: 'failed', error: messageOf(err) });
      }
      return out;
    },
  };
}
