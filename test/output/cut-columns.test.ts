// The column that tells rows apart wins, at every terminal width: in a list,
// a campaign and a bulk result, no two different full links look the same,
// the code (the end of the short link) gives way first, and no cell is cut
// while the terminal has cells to spare.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTable } from '../../src/output/table.js';
import { cellWidth } from '../../src/output/width.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

let emu: TestEmulator;
let links: string;
const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, NO_COLOR: '1' });
const WIDTHS = [60, 80, 120, 200];
const PLAIN = { bold: (s: string) => s, dim: (s: string) => s, red: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s, cyan: (s: string) => s };

beforeAll(async () => {
  emu = await startTestEmulator();
  for (let i = 0; i < 12; i++) {
    await emu.call('Link/Create', { data: { fullLink: `https://example.com/products/category/item-${i}?utm_source=sms&utm_campaign=spring-sale-2026`, comment: `spring batch ${i} 春のセール 🎉` } });
  }
  await emu.call('Message/SendSmsMessage', {
    recipient: '77011234567',
    text: 'Offers: https://example.com/shop/summer/item-1?utm=sms https://example.com/shop/summer/item-2?utm=sms https://example.com/shop/winter/item-1?utm=sms',
    params: { shortenLinks: 1 },
  });
  links = join(tempDir(), 'links.csv');
  writeFileSync(links, ['fullLink', ...Array.from({ length: 12 }, (_, i) => `https://example.com/item/${i % 2 ? 'shoes' : 'hats'}/${i}?ref=newsletter-november-2026`)].join('\n') + '\n');
});
afterAll(() => emu.close());

/** The rows of a table (lines after the header), and the full link shown in each. */
function fullLinks(stdout: string): string[] {
  return stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => /https:\S*/.exec(line.replace(/https:\/\/sho\.rt\/\S+/, ''))?.[0] ?? '');
}

function expectTheColumnThatTellsRowsApartWins(stdout: string, columns: number, rows: number) {
  const lines = stdout.trimEnd().split('\n');
  for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
  const shown = fullLinks(stdout);
  expect(shown.filter(Boolean), stdout).toHaveLength(rows);
  expect(new Set(shown).size, stdout).toBe(rows);
  // No cell is cut while the terminal has cells to spare: a cut column and the line it is on are full.
  if (stdout.includes('…')) expect(Math.max(...lines.map(cellWidth)), stdout).toBe(columns);
  const cut = shown.filter((link) => link.includes('…'));
  expect(new Set(cut.map(cellWidth)).size, stdout).toBeLessThanOrEqual(1);
}

describe.each(WIDTHS)('at %i columns', (columns) => {
  it('link list: every full link told apart, the code gives way first where not every column fits', async () => {
    const r = await runCli(['link', 'list', '--limit', '12'], { env: env(), tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    expectTheColumnThatTellsRowsApartWins(r.stdout, columns, 12);
    if (columns < 200) {
      expect(r.stdout.split('\n')[0]).toMatch(/^id +short link +full link/);
      expect(r.stderr).toMatch(/Not shown at this width: code\b/);
    } else {
      expect(r.stdout.split('\n')[0]).toMatch(/^id +code +short link +full link/);
      expect(r.stderr).not.toMatch(/Not shown/);
    }
  });

  it('link campaign: every full link told apart', async () => {
    const r = await runCli(['link', 'campaign', '1'], { env: env(), tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    expectTheColumnThatTellsRowsApartWins(r.stdout, columns, 3);
  });

  it('bulk results: every short link whole, the code gives way', async () => {
    const r = await runCli(['link', 'create', '--from-file', links, '--journal', join(tempDir(), 'journal')], { env: env(), tty: true, columns });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row).toMatch(/^\d+ +done +\d+ +(\S+ +)?http:\/\/127\.0\.0\.1:\d+\/[0-9A-Za-z]+ +-$/);
    for (const line of r.stdout.split('\n')) expect(cellWidth(line)).toBeLessThanOrEqual(columns);
  });

  it('a bulk result with full links (rows as the bulk engine writes them): every full link told apart', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      row: i + 2,
      state: 'done',
      id: 100 + i,
      code: `c${i}x`,
      shortLink: `https://sho.rt/c${i}x`,
      fullLink: `https://example.com/item/${i % 2 ? 'shoes' : 'hats'}/${i}?ref=newsletter-november-2026`,
      error: null,
    }));
    const { text } = renderTable(rows, ['row', 'state', 'id', 'code', 'shortLink', 'fullLink', 'error'], { paint: PLAIN, width: columns });
    expectTheColumnThatTellsRowsApartWins(text, columns, 12);
  });
});
