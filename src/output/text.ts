// Text as a terminal shows it. Values from the service are written by other
// people: shown to a person, they must not move the cursor, retitle the
// window, hide a link (OSC 8) or reorder the line (bidi controls), so those
// characters are shown escaped.

/** C0 and C1 controls (ESC included) but tab and newline, DEL, and the bidi embedding, override, isolate and mark characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** `1 link`, `3 links`; `many` where a plain s will not do. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * An amount of money for a person: four decimals, as the live service writes
 * prices and balances ("0.0600", "100.0000"), so a price and a cost read
 * alike. A value that is no number is shown as it came.
 */
export function moneyText(value: unknown): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n.toFixed(4) : cellText(value);
}

/** Text for one cell in table/csv/tsv. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A value for a person's terminal: unsafe characters escaped (`\x1b`, `\u202e`); tabs and newlines kept. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** A value for one table cell: escaped, and on one line. */
export function oneLine(text: string): string {
  return escapeControls(text).replace(/[\t\n]+/g, ' ');
}

/** Words of `text` in lines of at most `width` characters, the later ones after `indent` (help and notes are ASCII). */
export function reflow(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent;
    }
    line += line.trim() ? ` ${word}` : word;
  }
  return [...lines, line];
}
