// `smslink search`: full-text search of the mirror (SQLite FTS5) over message
// texts, link comments and full links, ranked by bm25, offline. The words
// typed are matched as words (each a prefix), never as FTS5 query syntax.

import type { Mirror } from './store.js';

export interface SearchHit {
  kind: 'message' | 'link';
  id: number;
  /** The recipient of a message; the short link of a link. */
  to: string | null;
  /** When a message was sent; when a link was made. */
  at: string | null;
  status: string | null;
  /** A message's text; a link's full link and comment. */
  text: string;
  /** bm25 of the match: lower is better. */
  rank: number;
}

/** The words of `text` as an FTS5 query: each quoted (so `AND`, `-`, `*` are only words) and matched as a prefix. */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.length ? words.map((w) => `"${w}"*`).join(' ') : null;
}

/** How many messages (to `to`, when given) and links match in all, whatever the limit: for a person told that more matched. */
export function countMatches(mirror: Mirror, text: string, opts: { to?: string }): number {
  const query = ftsQuery(text);
  if (query === null) return 0;
  const toFilter = opts.to ? ' AND instr(m.recipient, ?) > 0' : '';
  const messages = mirror.one<{ n: number }>(
    `SELECT count(*) AS n FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ?${toFilter}`,
    ...(opts.to ? [query, opts.to] : [query]),
  ).n;
  if (opts.to) return messages;
  return messages + mirror.one<{ n: number }>('SELECT count(*) AS n FROM links_fts JOIN links AS l ON l.id = links_fts.rowid WHERE links_fts MATCH ?', query).n;
}

export function searchMirror(mirror: Mirror, text: string, opts: { to?: string; limit: number }): SearchHit[] {
  const query = ftsQuery(text);
  if (query === null) return [];
  const toFilter = opts.to ? ' AND instr(m.recipient, ?) > 0' : '';
  const messages = mirror.all<{ id: number; recipient: string; start_send_ts: string | null; status: string | null; text: string; rank: number }>(
    `SELECT m.id, m.recipient, m.start_send_ts, m.status, m.text, messages_fts.rank AS rank
     FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid
     WHERE messages_fts MATCH ?${toFilter} ORDER BY rank LIMIT ?`,
    ...(opts.to ? [query, opts.to, opts.limit] : [query, opts.limit]),
  );
  const hits: SearchHit[] = messages.map((m) => ({ kind: 'message', id: m.id, to: m.recipient, at: m.start_send_ts, status: m.status, text: m.text, rank: m.rank }));
  // Links have no recipient: a search for one number's messages leaves them out.
  if (!opts.to) {
    const links = mirror.all<{ id: number; short_link: string | null; create_ts: string | null; full_link: string; comment: string | null; rank: number }>(
      `SELECT l.id, l.short_link, l.create_ts, l.full_link, l.comment, links_fts.rank AS rank
       FROM links_fts JOIN links AS l ON l.id = links_fts.rowid
       WHERE links_fts MATCH ? ORDER BY rank LIMIT ?`,
      query,
      opts.limit,
    );
    for (const l of links) {
      hits.push({ kind: 'link', id: l.id, to: l.short_link, at: l.create_ts, status: null, text: l.comment ? `${l.full_link} (${l.comment})` : l.full_link, rank: l.rank });
    }
  }
  return hits.sort((a, b) => a.rank - b.rank).slice(0, opts.limit).map((h) => ({ ...h, rank: Math.round(h.rank * 1000) / 1000 }));
}
