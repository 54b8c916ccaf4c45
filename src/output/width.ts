// Widths in terminal cells, counted by string-width: the counter cli-table3
// draws with, so the widths our layout chooses are the widths it draws. And
// the two ways a value is fitted to its cell: cut in the middle (a table
// row), or wrapped under itself (a record, where every value is whole).

import stringWidth from 'string-width';

/**
 * Cells a string takes (colour codes not counted): CJK and emoji two each,
 * combining marks none. test/output/width.test.ts names where string-width 4
 * is wrong (zero-width spaces and every format character: one cell each,
 * which is why text.ts escapes them before a table measures; emoji newer
 * than Unicode 12).
 */
export function cellWidth(text: string): number {
  return stringWidth(text);
}

/** `text` padded with spaces to `width` cells. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - cellWidth(text)));
}

/**
 * Code points and their cells. Measured one by one, an emoji sequence counts
 * at least as wide as drawn (its parts count 2 each), so a piece measured here
 * never overflows its cell.
 */
function measured(text: string): Array<[ch: string, width: number]> {
  return Array.from(text, (ch) => [ch, cellWidth(ch)]);
}

/** `text` cut at its end to at most `max` cells, `…` marking the cut (a line of text, where the start reads first). */
export function truncate(text: string, max: number): string {
  if (cellWidth(text) <= max) return text;
  let width = 0;
  let out = '';
  for (const [ch, w] of measured(text)) {
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

/** The longest start (or end) of `chars` within `max` cells. */
function fit(chars: Array<[string, number]>, max: number, fromEnd: boolean): string {
  const out: string[] = [];
  let width = 0;
  for (let i = 0; i < chars.length; i++) {
    const [ch, w] = chars[fromEnd ? chars.length - 1 - i : i];
    if (width + w > max) break;
    out.push(ch);
    width += w;
  }
  return (fromEnd ? out.reverse() : out).join('');
}

/** A link's start through its host and the slash after it: `https://example.com/`. */
const HOST = /^[a-z][a-z\d+.-]*:\/\/[^/?#\s]*\/?/i;
/** The last part of a path or of words (and the separator after it): `item-42`, `item-42/`. */
const LAST_PART = /[^/?&=#\s]*[/?&=#\s]*$/;
const SEPARATOR = /[/?&=#\s]/;

const widthOf = (chars: Array<[string, number]>) => chars.reduce((s, [, w]) => s + w, 0);

/** What a cut of `text` must keep: its host, and the part of its end that tells it apart. */
function parts(text: string, sharedEnd: number) {
  const chars = measured(text);
  let shared = sharedEnd > 0 && sharedEnd < chars.length ? sharedEnd : 0;
  // The part that tells rows apart ends with its word: `item-1` of `item-1?utm…`, though `item-11` shares the `1?utm…`.
  while (shared > 0 && !SEPARATOR.test(chars[chars.length - shared][0])) shared--;
  const body = chars.slice(0, chars.length - shared);
  const host = cellWidth(HOST.exec(text)?.[0] ?? '');
  const last = cellWidth(LAST_PART.exec(body.map(([ch]) => ch).join(''))?.[0] || text.slice(-1));
  return { chars, body, host, last, shared: widthOf(chars.slice(body.length)) };
}

/**
 * Cells a cut of `text` needs to keep its host and the end that tells it
 * apart from the other rows (`https://example.com/…item-42…`): what a
 * column of links may not shrink below.
 */
export function cutNeed(text: string, sharedEnd = 0): number {
  const { host, last, shared } = parts(text, sharedEnd);
  return Math.min(cellWidth(text), host + 1 + last + (shared ? 1 : 0));
}

/**
 * `text` in at most `max` cells, cut in the middle: its start (a link's
 * host, whole when the cell has room for it and the last part of the path)
 * and its end, `https://example.com/…/item-42`. `sharedEnd` code points at
 * its end are the same in another row of the column (a common
 * `?utm_source=…`): when they do not fit, they are cut instead, so the part
 * that tells the rows apart stays: `https://example.com/…/item-42…`.
 */
export function cutMiddle(text: string, max: number, sharedEnd = 0): string {
  if (cellWidth(text) <= max) return text;
  const { chars, body, host, last, shared } = parts(text, sharedEnd);
  if (max - 1 - host >= last + shared || shared === 0) return headAndTail(chars, max - 1, host, last);
  if (widthOf(body) <= max - 1) return `${fit(chars, max - 1, false)}…`;
  return `${headAndTail(body, max - 2, host, last)}…`;
}

/** A start and an end of `chars` in `room` cells and a `…` between: the start is the host if the end keeps `last` cells, else half. */
function headAndTail(chars: Array<[string, number]>, room: number, host: number, last: number): string {
  const head = fit(chars, host && room - host >= last ? host : Math.floor(room / 2), false);
  // Every cell is used: a tail starting at a slash would read better, but leave cells free in a cut column.
  const tail = fit(chars.slice(Array.from(head).length), room - cellWidth(head), true);
  return `${head}…${tail}`;
}

/**
 * For each value of a column, how many code points at its end it shares with
 * another (different) value: the sorted reversed values put the most similar
 * ends side by side, so only neighbours are compared.
 */
export function sharedEnds(values: readonly string[]): number[] {
  const ends = new Map(values.map((v) => [v, Array.from(v).reverse()]));
  const key = new Map([...ends].map(([v, end]) => [v, end.join('')]));
  const sorted = [...ends.keys()].sort((a, b) => (key.get(a)! < key.get(b)! ? -1 : key.get(a)! > key.get(b)! ? 1 : 0));
  const common = (a: string[], b: string[]) => {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const shared = new Map<string, number>();
  sorted.forEach((v, k) => {
    const near = [sorted[k - 1], sorted[k + 1]].filter((w) => w !== undefined);
    shared.set(v, Math.max(0, ...near.map((w) => common(ends.get(v)!, ends.get(w)!))));
  });
  return values.map((v) => shared.get(v)!);
}

/**
 * Lines of at most `max` cells: broken after spaces where a word fits, and
 * inside words (URLs) where none does. Newlines in the text are kept.
 * (cli-table3's own wrapping either leaves a long word to be cut or breaks
 * by UTF-16 units, which splits CJK lines at twice their width.)
 */
export function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let width = 0;
    for (const word of paragraph.match(/\S+\s*|\s+/g) ?? ['']) {
      if (width > 0 && width + cellWidth(word.trimEnd()) > max) {
        lines.push(line.trimEnd());
        line = '';
        width = 0;
      }
      for (const [ch, cw] of measured(word)) {
        if (width + cw > max && !/\s/.test(ch)) {
          lines.push(line.trimEnd());
          line = '';
          width = 0;
        }
        if (width === 0 && /\s/.test(ch)) continue;
        line += ch;
        width += cw;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
