// Widths in terminal cells, so CJK and emoji (two cells each) line up in
// tables, and lines cut or wrapped to fit the terminal.

import { eastAsianWidth } from 'get-east-asian-width';

/** Code points a terminal draws over the previous cell: combining marks, joiners, variation selectors. */
function isZeroWidth(cp: number): boolean {
  return (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x200b && cp <= 0x200d) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xfe20 && cp <= 0xfe2f) ||
    cp === 0xfeff ||
    (cp >= 0x1f3fb && cp <= 0x1f3ff) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

function charWidth(cp: number): number {
  if (cp < 0x300) return 1;
  return isZeroWidth(cp) ? 0 : eastAsianWidth(cp);
}

/**
 * Cells a (control-free) string takes. An emoji sequence joined with ZWJ may
 * count wider than a terminal draws it, never narrower, so a line measured
 * here never overflows. (string-width is exact there, but its first use
 * builds an Intl.Segmenter and Unicode-set regexes in every command that
 * prints a table: `npm run bench -- --only get` with it in cellWidth's place
 * shows the cost.)
 */
export function cellWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    width += charWidth(cp);
  }
  return width;
}

/** The longest start of `text` that fits in `max` cells, with `…` when cut. */
export function truncate(text: string, max: number): string {
  if (cellWidth(text) <= max) return text;
  let width = 0;
  let out = '';
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` cells. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - cellWidth(text)));
}

/**
 * Lines of at most `max` cells: broken after spaces where a word fits, and
 * inside words (URLs) where none does. Newlines in the text are kept.
 */
export function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let width = 0;
    for (const word of paragraph.match(/\S+\s*|\s+/g) ?? ['']) {
      const w = cellWidth(word.trimEnd());
      if (width > 0 && width + w > max) {
        lines.push(line.trimEnd());
        line = '';
        width = 0;
      }
      for (const ch of word) {
        const cw = charWidth(ch.codePointAt(0)!);
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
