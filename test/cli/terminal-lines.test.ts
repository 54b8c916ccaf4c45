// Live lines that fit: the bulk progress line and the --wait line never
// take more than the terminal's width, so each redraw replaces the last
// instead of leaving wrapped copies on the screen. Run in a real terminal
// (test/helpers/pty.ts) at 60, 80 and 100 columns.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runInPty } from '../helpers/pty.js';
import { tempDir } from '../helpers/run-cli.js';
import { cellWidth } from '../../src/output/width.js';

const CLEAR = '\r\x1b[2K';

/** What each redraw of a live line showed: the text after each clear, up to the next clear or newline, colours removed. */
function frames(output: string): string[] {
  return output
    .split(CLEAR)
    .slice(1)
    // eslint-disable-next-line no-control-regex
    .map((frame) => frame.split(/\r?\n|\r/)[0].replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, ''))
    .filter(Boolean);
}

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());
const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key });

describe.each([60, 80, 100])('at %i columns', (columns) => {
  it('the bulk progress line fits, "already done" included, and shows the rate kept to', async () => {
    const dir = tempDir();
    const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `https://example.com/fit/${columns}/${from + i}`);
    const input = join(dir, 'links.csv');
    writeFileSync(input, `fullLink\n${rows(0, 10).join('\n')}\n`);
    const first = await runInPty(['link', 'create', '--from-file', input, '-q'], { columns, env: env(), timeoutMs: 60_000 });
    expect(first.code).toBe(0);
    // The rerun skips the 10 done rows and sends 30 more at 15 a second: two seconds of redraws.
    writeFileSync(input, `fullLink\n${rows(0, 40).join('\n')}\n`);
    const r = await runInPty(['link', 'create', '--from-file', input, '-q', '--rate', '15'], { columns, env: env(), timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    const shown = frames(r.output).filter((f) => /^(\[[█░]*\] )?\d+\/40( |$)/.test(f));
    expect(shown.length, r.output).toBeGreaterThan(3);
    for (const frame of shown) expect(cellWidth(frame), frame).toBeLessThan(columns);
    if (columns >= 80) expect(shown.some((f) => f.includes('10 already done'))).toBe(true);
    // The rate is requests a second over the last seconds, so it stays near --rate (it showed 198/s under --rate 20). The
    // service counts calendar seconds: 15 at the end of one and 15 at the start of the next are 30 in just over a second.
    const rates = shown.map((f) => Number(/ ([\d.]+)\/s/.exec(f)?.[1] ?? 0));
    expect(Math.max(...rates), shown.join('\n')).toBeLessThanOrEqual(30);
  }, 90_000);

  it('the --wait line fits', async () => {
    const sent = await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'hello' });
    const id = String((sent.data as { messageId: number }).messageId);
    // The emulator's clock stands still: the message stays new until the wait gives up.
    const r = await runInPty(['message', 'status', id, id, id, '--wait', '--wait-timeout', '2s'], { columns, env: env(), timeoutMs: 60_000 });
    expect(r.code).toBe(3);
    const live = frames(r.output).filter((f) => f.includes('waiting for delivery'));
    expect(live.length).toBeGreaterThan(1);
    for (const frame of live) expect(cellWidth(frame), frame).toBeLessThan(columns);
    // The final line is whole, broken at spaces as any note: no word is split by the terminal's own wrap.
    // eslint-disable-next-line no-control-regex
    const end = r.output.slice(r.output.lastIndexOf(CLEAR) + CLEAR.length).replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '');
    const lines = end.split(/\r?\n/).filter(Boolean);
    for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
    // After the 2 s given, never the 3 s a moment past them would round up to.
    expect(lines.join(' ')).toMatch(/; gave up waiting after 2 s \(--wait-timeout\)/);
  }, 90_000);
});
