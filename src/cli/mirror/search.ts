// `smslink search TEXT`: full-text search of the local mirror (`smslink
// sync`) over message texts, link comments and full links, best match
// first, offline. src/mirror/search.ts runs the query.

import type { CommandDef, CliValues } from '../core/command.js';
import type { RunContext } from '../core/context.js';
import { EXIT, UsageError } from '../../exit-codes.js';
import { renderRows, type Row } from '../../output/format.js';
import { restOfLimit, showing } from '../../output/words.js';
import { mirrorAgeWords, openMirror } from './open.js';
import { normalizePhone } from '../../catalog/rules.js';
import { parseCount } from '../shared/ids.js';

const MAX_LIMIT = 1000;

async function search(ctx: RunContext, words: string[], opts: CliValues): Promise<number> {
  const text = words.join(' ');
  const { countMatches, ftsQuery, searchMirror } = await import('../../mirror/index.js');
  if (ftsQuery(text) === null) throw new UsageError(`search: "${text}" has no words to search for (letters or digits)`);
  let to: string | undefined;
  if (opts.to !== undefined) {
    to = normalizePhone(String(opts.to));
    if (!/^\d{1,15}$/.test(to)) throw new UsageError(`--to: invalid value "${opts.to}": must be a number or part of one (digits, a leading +)`);
  }
  const limit = parseCount(opts.limit, '--limit', 20, MAX_LIMIT);
  const view = await ctx.view({ output: { rows: 'array', columns: ['kind', 'id', 'to', 'at', 'status', 'text'], primary: 'id', kinds: { status: 'messageStatus' } } });
  const mirror = await openMirror(ctx, false);
  const hits = searchMirror(mirror, text, { to, limit });
  if (view.format === 'table' && !view.quiet) {
    ctx.page();
    if (hits.length === 0) return (ctx.note(`Nothing in the mirror matches "${text}"${mirrorAgeWords(ctx, mirror)}.`), EXIT.OK);
  }
  await renderRows(ctx.stdout, view, hits as unknown as Row[]);
  if (view.format === 'table' && !view.quiet) {
    // Fewer hits than the limit are every match; at the limit, a person is told how many more there are, and how to see them.
    const total = hits.length < limit ? hits.length : countMatches(mirror, text, { to });
    if (total > hits.length) ctx.note(`${showing(1, hits.length, total, 'matches')}. ${restOfLimit(total, limit, MAX_LIMIT, 'best', 'the others: add words to narrow the search')}`);
    // A status read from the mirror is as old as the mirror: a person is told how old.
    ctx.note(`From the mirror${mirrorAgeWords(ctx, mirror)}.`);
  }
  return EXIT.OK;
}

export const SEARCH: CommandDef = {
  path: ['search'],
  summary: "Search the mirror's message texts, link comments and full links, offline",
  flags: (cmd) =>
    cmd
      .argument('<text...>', 'words to find (each also as the start of a longer word)')
      .option('--to <number>', 'only messages to this number (whole or partial)')
      .option('--limit <n>', 'at most n results (default 20)'),
  about: `Reads the local mirror that \`smslink sync\` keeps: nothing is sent. Every
word must match; the best matches come first (SQLite FTS5, bm25). At a
terminal, when --limit leaves matches out, a note says how many there are.`,
  examples: ['smslink search code 4711', 'smslink search sale --to +77011234567', 'smslink search spring -o ndjson'],
  run: (ctx, opts, [words]) => search(ctx, words as string[], opts),
};
