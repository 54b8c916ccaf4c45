// Text as a terminal shows it. Values from the service are written by other
// people: shown to a person, they must not move the cursor, retitle the
// window, hide a link (OSC 8), reorder the line (bidi controls) or hide in
// it (a zero-width space), so those characters are shown escaped.

/*
 * What a terminal must not be given raw (unsafeChars, below): C0 and C1 controls
 * (ESC included) but tab and newline, DEL; every format character (Unicode
 * Cf: zero-width space and joiners, the byte order mark, soft hyphen, bidi
 * embeddings, overrides, isolates and marks, tags); line and paragraph
 * separators; lone surrogates. Most draw nothing, and string-width 4 counts
 * each of them one cell (test/output/width.test.ts), which pushed the
 * columns after them out of line. Kept whole (unsafeChars's first group, which
 * escapeChar gets as `keep`): an emoji ZWJ sequence (👨‍👩‍👧) and the three
 * flags written with tags (England, Scotland, Wales), which draw as one
 * picture and are counted so. Any other run of tags is escaped: tags spell
 * ASCII invisibly ("ASCII smuggling").
 */
/**
 * A quick first look, by UTF-16 units, for what unsafeChars might escape: the
 * format characters of Unicode 15, then the high surrogates of the planes
 * that have any (apart: in one class with the rest, V8 is much slower),
 * then lone surrogates (isWellFormed). Property escapes cost V8 more per
 * cell even when nothing matches. test/output/table.test.ts checks that
 * they miss no character of Node's own Cf.
 */
// eslint-disable-next-line no-control-regex
const ANY_BMP = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/;
const ANY_ASTRAL = /[\ud804\ud80d\ud82f\ud834\udb40]/;
/** String.prototype.isWellFormed (Node 20; TypeScript's ES2024 lib, which this project does not take whole). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();
let unsafe: RegExp | undefined;
/** Made when first needed: most runs escape nothing, and V8 compiles a Unicode-property pattern slowly. */
const unsafeChars = () =>
  (unsafe ??=
  // eslint-disable-next-line no-control-regex
  /(\p{Extended_Pictographic}\uFE0F?[\u{1F3FB}-\u{1F3FF}]?(?:\u200D\p{Extended_Pictographic}\uFE0F?[\u{1F3FB}-\u{1F3FF}]?)+|\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F})|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu);

/** `\x1b`, `\u200b`, `\u{e0041}`: the code point as JavaScript would write it; a sequence kept whole (`keep`) as it is. */
function escapeChar(ch: string, keep?: string): string {
  if (keep !== undefined) return keep;
  const cp = ch.codePointAt(0)!;
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\u{${cp.toString(16)}}`;
}

/** Text for one cell in table/csv/tsv. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A value for a person's terminal: unsafe characters escaped (`\x1b`, `\u202e`, `\u200b`); tabs and newlines kept. */
export function escapeControls(text: string): string {
  // Most values hold none: the quick look spares them the replace.
  return ANY_BMP.test(text) || ANY_ASTRAL.test(text) || !wellFormed(text) ? text.replace(unsafeChars(), escapeChar) : text;
}

/**
 * A value as a message quotes it: text in quotes on one line (a line break
 * or tab shown as \n, \r, \t; cut after 80 characters), a number or true as
 * it is, a list or a mapping (from JSON, a seed, a library call) by its kind.
 */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return `"${(value.length > 80 ? `${value.slice(0, 77)}...` : value).replace(/[\n\r\t]/g, (c) => LINE_BREAKS[c])}"`;
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'a list' : 'a mapping';
  return String(value);
}

const LINE_BREAKS: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value in a command a person is told to run, as a POSIX shell reads it
 * back: as it is when it holds only letters, digits and `+-_.,:/=@%`, else
 * in single quotes: `+77011234567`, `'+7 (701) 123-45-67'`.
 */
export function shellWord(value: string): string {
  return /^[\w+\-.,:/=@%]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A value for one table cell: escaped, and on one line. */
export function oneLine(text: string): string {
  return escapeControls(text).replace(/[\t\n]+/g, ' ');
}

/**
 * A command quoted in backticks (`smslink login`): opened at the start or
 * after a space or `(`, closed before the end, a space or punctuation. A
 * backtick anywhere else (inside a profile name or a path) opens nothing.
 */
const QUOTED = /(?<=^|[\s(])`[^`\n]*`(?=$|[\s.,;:)!?'"])/g;
const WORD = new RegExp(`(?:${QUOTED.source}|\\S)+`, 'g');

/**
 * Words of `text` in lines of at most `width` characters, the later ones
 * after `indent`; runs of spaces become one (help paragraphs, table notes).
 * A quoted command is one word, kept on one line to paste whole.
 */
export function reflow(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.match(WORD) ?? []) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
    }
    line += line.trim() ? ` ${word}` : word;
  }
  return [...lines, line];
}

/**
 * Text for a terminal `width` wide (none: not a terminal, left as it is).
 * A longer line is broken at a space, where the terminal's own wrap would
 * cut a word: at the last space that fits, never inside a quoted command
 * (one wider than the terminal gets a line of its own), its continuation
 * lines indented as it is. The spaces at a break go; nothing else changes:
 * a value quoted in an error keeps its spaces and tabs. Colours take no
 * room. Widths are counted in characters, as for help: a line of wide (CJK)
 * characters may still be wrapped by the terminal.
 */
export function fitLines(text: string, width: number | undefined): string {
  if (!width) return text;
  return text
    .split('\n')
    .map((line) => (shownLength(line) <= width ? line : breakLine(line, width)))
    .join('\n');
}

/** Characters a terminal shows of `text`: its colour codes (chalk's SGR sequences) take none. */
// eslint-disable-next-line no-control-regex
export const shownLength = (text: string): number => text.replace(/\x1b\[[0-9;]*m/g, '').length;

function breakLine(line: string, width: number): string {
  const indent = /^[ \t]*/.exec(line)![0];
  const room = Math.max(1, width - indent.length);
  const out: string[] = [];
  let rest = line.slice(indent.length);
  while (shownLength(rest) > room) {
    // Spaces inside a quoted command are no place to break.
    const quoted = [...rest.matchAll(QUOTED)].map((m) => [m.index, m.index + m[0].length]);
    const free = (i: number) => rest[i] === ' ' && !quoted.some(([from, to]) => i > from && i < to);
    // The last space that leaves a line that fits; else (a word wider than the terminal) the first.
    let at = -1;
    for (let i = rest.length - 1; i > 0 && at < 0; i--) if (free(i) && shownLength(rest.slice(0, i)) <= room) at = i;
    for (let i = 1; i < rest.length && at < 0; i++) if (free(i)) at = i;
    if (at < 0) break;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).replace(/^ +/, '');
  }
  return [...out, rest].map((part) => indent + part).join('\n');
}
