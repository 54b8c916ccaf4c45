// Cells as a terminal draws them, through cli-table3: CJK and emoji line up,
// values too long for their cell are cut in the middle and stay apart, and
// the places where cli-table3's counting (string-width 4) is wrong are named.
import Table from 'cli-table3';
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/output/table.js';
import { cellWidth, cutMiddle, cutNeed, sharedEnds } from '../../src/output/width.js';

const plain = { bold: (s: string) => s, dim: (s: string) => s, red: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s, cyan: (s: string) => s };

/** The cell at which `needle` starts on `line`. */
const cellAt = (line: string, needle: string) => cellWidth(line.slice(0, line.indexOf(needle)));

describe('CJK and emoji line up', () => {
  it('a column after CJK, emoji, ZWJ sequences and combining marks starts at the same cell on every line', () => {
    const rows = [
      { id: 1, comment: 'plain ascii', status: 1 },
      { id: 2, comment: '春のセール', status: 1 },
      { id: 3, comment: 'party 🎉🎉', status: 1 },
      { id: 4, comment: 'family 👨‍👩‍👧 ok', status: 1 },
      { id: 5, comment: 'café e\u0301', status: 1 },
      { id: 6, comment: '한국어 텍스트', status: 1 },
      { id: 7, comment: 'flag 🇯🇵 ❤️', status: 1 },
    ];
    const { text } = renderTable(rows, ['id', 'comment', 'status'], { paint: plain, kinds: { status: 'linkStatus' } });
    const lines = text.trimEnd().split('\n');
    const starts = lines.map((line, i) => cellAt(line, i === 0 ? 'status' : 'active'));
    expect(new Set(starts).size, text).toBe(1);
  });

  it('colours do not move a column: the coloured table is the plain one plus colour codes', () => {
    const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
    const colour = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
    const rows = [
      { id: 1, status: 1, comment: '春のセール 🎉', expirationDate: null },
      { id: 22, status: 0, comment: 'plain', expirationDate: '2026-12-01 10:00:00' },
    ];
    const opts = { kinds: { status: 'linkStatus' as const }, width: 40 };
    const coloured = renderTable(rows, ['id', 'status', 'comment', 'expirationDate'], { ...opts, paint: colour }).text;
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(renderTable(rows, ['id', 'status', 'comment', 'expirationDate'], { ...opts, paint: plain }).text);
    expect(coloured).toContain('\u001b[32mactive\u001b[39m');
  });

  it('a long table (drawn in blocks of rows, cli-table3 being quadratic in rows) lines up as one', () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({ id: i * 37, comment: i === 249 ? '春'.repeat(20) : `c${i}`, status: 1 }));
    const { text } = renderTable(rows, ['id', 'comment', 'status'], { paint: plain, kinds: { status: 'linkStatus' } });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(251);
    expect(new Set(lines.map((line, i) => cellAt(line, i === 0 ? 'status' : 'active'))).size).toBe(1);
  });

  it('a CJK value cut to its cell never overflows it, and keeps both ends', () => {
    const cut = cutMiddle('春'.repeat(40) + '終', 21);
    expect(cellWidth(cut)).toBeLessThanOrEqual(21);
    expect(cut.startsWith('春')).toBe(true);
    expect(cut.endsWith('終')).toBe(true);
  });
});

describe('where cli-table3 counts cells wrong (string-width 4), so a column after such text is off by one', () => {
  // Each of these is drawn by a terminal with the width in the comment; cli-table3 pads by its own count.
  it('a zero-width space or byte order mark counts one cell (a terminal draws none)', () => {
    expect(cellWidth('a\u200bb')).toBe(3);
    expect(cellWidth('\ufeff')).toBe(1);
  });

  it('an emoji newer than Unicode 12 counts one cell (a terminal draws two)', () => {
    expect(cellWidth('🫠')).toBe(1); // U+1FAE0, Unicode 14
    expect(cellWidth('🥲')).toBe(1); // U+1F972, Unicode 13
    expect(cellWidth('🎉')).toBe(2); // U+1F389, Unicode 6: right
  });

  it("cli-table3's own hard wrap breaks by UTF-16 units, so CJK lines come out twice the column and are cut: the record view wraps by cells itself", () => {
    const table = new Table({ colWidths: [10], wordWrap: true, wrapOnWordBoundary: false, style: { head: [], border: [] } });
    table.push(['春'.repeat(16)]);
    const drawn = table.toString();
    expect(drawn).toContain('…'); // characters lost
    expect(drawn.replace(/[^春]/g, '').length).toBeLessThan(16);
  });
});

describe('a value too long for its cell is cut in the middle', () => {
  it('keeps the host and the end: https://example.com/…/item-42', () => {
    const url = 'https://example.com/products/category/subcategory/item-42';
    expect(cutMiddle(url, 29)).toBe('https://example.com/…/item-42');
    expect(cutMiddle(url, 31)).toBe('https://example.com/…ry/item-42');
    expect(cutMiddle(url, 200)).toBe(url);
    expect(cellWidth(cutMiddle(url, 14))).toBeLessThanOrEqual(14);
  });

  it('text without a host keeps its start and its end', () => {
    expect(cutMiddle('spring campaign for the loyal customers, batch 7', 21)).toBe('spring cam…s, batch 7');
  });

  it('cuts an end that other rows share (a common ?utm_…) rather than the part that tells them apart', () => {
    const links = [1, 2, 11, 12].map((i) => `https://example.com/products/category/item-${i}?utm_source=sms&utm_campaign=spring-sale-2026`);
    const shared = sharedEnds(links);
    const cuts = links.map((l, i) => cutMiddle(l, 32, shared[i]));
    expect(cuts).toEqual(['https://example.com/…ory/item-1…', 'https://example.com/…ory/item-2…', 'https://example.com/…ry/item-11…', 'https://example.com/…ry/item-12…']);
    // What the column may not shrink below to keep them apart: host, …, last part, ….
    expect(cutNeed(links[2], shared[2])).toBe('https://example.com/…item-11…'.length);
  });

  it('shared ends are counted against the nearest other value, not all of them', () => {
    expect(sharedEnds(['a/x-1', 'b/x-1', 'c/y-2', 'c/y-2'])).toEqual([4, 4, 0, 0]);
  });
});
