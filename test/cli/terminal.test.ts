// What a person sees in a real terminal (a pseudo-terminal): tables that fit
// its width, and output longer than the screen through a pager.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runInPty, screenText } from '../helpers/pty.js';
import { tempDir } from '../helpers/run-cli.js';
import { cellWidth } from '../../src/output/width.js';

let emu: TestEmulator;
const env = (more: Record<string, string> = {}) => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, ...more });

beforeAll(async () => {
  emu = await startTestEmulator();
  for (let i = 0; i < 40; i++) {
    await emu.call('Link/Create', {
      data: { fullLink: `https://example.com/products/category/item-${i}?utm_source=sms&utm_campaign=spring`, comment: `spring batch ${i} 春のセール 🎉` },
    });
  }
});
afterAll(() => emu.close());

describe('tables in a terminal', () => {
  it.each([60, 80, 120])('link list at %i columns: no line wider than the terminal, every short link whole', async (columns) => {
    const r = await runInPty(['link', 'list'], { columns, rows: 60, env: env({ SMSLINK_PAGER: 'cat' }) });
    expect(r.code).toBe(0);
    const lines = screenText(r.output).split('\n');
    for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
    const rows = lines.filter((l) => /^\d+ /.test(l));
    expect(rows).toHaveLength(25);
    // The code is the end of the short link: it gives way for the full link, which is cut in the middle, keeping
    // its scheme and last part; the status stays beside it.
    for (const row of rows) expect(row).toMatch(new RegExp(`^\\d+ +${emu.url.replace(/[.:/]/g, '\\$&')}/[0-9A-Za-z]+ +https://\\S*…\\S*item-\\d+… +active`));
  });

  it('link get shows the whole URL, wrapped under itself', async () => {
    const r = await runInPty(['link', 'get', '1'], { columns: 60, env: env() });
    const text = screenText(r.output);
    const start = text.indexOf('full link');
    const joined = text
      .slice(start)
      .split('\n')
      .slice(0, 3)
      .map((l) => l.slice(12).trim())
      .join('');
    expect(joined).toContain('https://example.com/products/category/item-0?utm_source=sms&utm_campaign=spring');
  });
});

describe('the pager', () => {
  it('takes output longer than the screen, with the notes that follow the table', async () => {
    const out = join(tempDir(), 'paged.txt');
    const r = await runInPty(['link', 'list', '--page-size', '50'], { rows: 24, env: env({ SMSLINK_PAGER: `cat > ${out}` }) });
    expect(r.code).toBe(0);
    const paged = screenText(readFileSync(out, 'utf8'));
    expect(paged.split('\n')[0]).toMatch(/^\S*id +short link +full link/);
    expect(paged.match(/^\S*\d+ /gm)).toHaveLength(40);
    // A note written after the table (here: the columns left out at 80) is paged after it, not printed before.
    expect(paged.trimEnd().endsWith('(see --fields).')).toBe(true);
    expect(paged.indexOf('Not shown at this width:')).toBeGreaterThan(paged.lastIndexOf(emu.url));
    expect(screenText(r.output)).not.toMatch(/short link/);
  });

  it('is not used for output that fits the screen, with --no-pager, or with SMSLINK_PAGER=cat', async () => {
    const out = join(tempDir(), 'paged.txt');
    const short = await runInPty(['link', 'list', '--limit', '5'], { rows: 24, env: env({ SMSLINK_PAGER: `cat > ${out}` }) });
    expect(screenText(short.output)).toMatch(/short link/);
    expect(existsSync(out)).toBe(false);
    const off = await runInPty(['link', 'list', '--page-size', '50', '--no-pager'], { rows: 24, env: env({ SMSLINK_PAGER: `cat > ${out}` }) });
    expect(screenText(off.output).match(/^\d+ /gm)).toHaveLength(40);
    expect(existsSync(out)).toBe(false);
  });

  it('is less -FRX by default: a person reads, presses q, and the command ends with exit 0', async () => {
    const r = await runInPty(['link', 'list', '--page-size', '50'], {
      rows: 24,
      env: env(),
      steps: [{ waitFor: /\n:|\(END\)/, write: 'q' }],
    });
    expect(r.code).toBe(0);
    // less showed the first screen: the header and the newest links.
    expect(screenText(r.output)).toMatch(/id +short link +full link/);
  });
});
