// `smslink message send` against the recording server.
// --wait: wait.test.ts; sending from a file: test/bulk.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { formatDateTime } from '../../../src/catalog/rules.js';

const rec = useRecordingServer('MessageTestKey0123456789abcdefABCDEF012345');

const cli = rec.cli;
const form = (i = 0) => Object.fromEntries(new URLSearchParams(rec.server.requests[i].body));

describe('message send', () => {
  it('normalises the number and sends every option', async () => {
    const at = formatDateTime(new Date(Date.now() + 3 * 3_600_000));
    const r = await cli([
      'message', 'send', '--to', '+7 (701) 123-45-67', '--text', 'Hi & bye', '--from', 'SHOP', '--name', 'otp',
      '--at', at, '--shorten-links', '--validity', '90',
    ]);
    expect(r.code).toBe(0);
    expect(form()).toEqual({
      recipient: '77011234567',
      text: 'Hi & bye',
      from: 'SHOP',
      'params[name]': 'otp',
      'params[deferredToTs]': at,
      'params[shortenLinks]': '1',
      'params[validity]': '90',
    });
    expect(JSON.parse(r.stdout)).toEqual({ campaignId: 9001, messageId: 123456, status: 2 });
  });

  it('-q prints the message id; tables label the campaign status as such, scripts keep the service\'s status', async () => {
    expect((await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '-q'])).stdout).toBe('123456\n');
    const table = (await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '-o', 'table'])).stdout;
    expect(table).toMatch(/^campaign status\s+sent without moderation$/m);
    expect(table).not.toMatch(/^status/m);
    expect((await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '-o', 'csv'])).stdout).toBe('messageId,campaignId,status\n123456,9001,2\n');
  });

  it('--text - refuses a blank stdin, naming its line breaks, and sends nothing', async () => {
    const r = await cli(['message', 'send', '--to', '77011234567', '--text', '-'], { stdin: '\n\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--text: invalid value "\\n": must not be blank (spaces or line breaks alone)');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--text - reads the text from stdin', async () => {
    await cli(['message', 'send', '--to', '77011234567', '--text', '-'], { stdin: 'Привет, мир 😀\n' });
    expect(form().text).toBe('Привет, мир 😀');
  });

  it('uses the sender from the settings when --from is not given', async () => {
    await cli(['message', 'send', '--to', '77011234567', '--text', 'x'], { env: { SMSLINK_SENDER: 'ACME' } });
    expect(form().from).toBe('ACME');
  });

  it.each([
    [['--to', '12345', '--text', 'x'], /--to: invalid value "12345": must have 7 to 15 digits once a leading \+, spaces, dashes and brackets are removed/],
    [['--to', '77011234567'], /--text is required/],
    [['--to', '77011234567', '--text', 'x', '--validity', '30'], /--validity: invalid value "30": must be between 60 and 1440/],
    [['--to', '77011234567', '--text', 'x', '--at', '2020-01-01 10:00:00'], /--at: invalid value "2020-01-01 10:00:00": must be more than 1 hour and at most 14 days from now/],
    [['--to', '77011234567', '--text', 'x', '--at', 'tomorrow'], /--at: invalid value "tomorrow": must be a time: "YYYY-MM-DD HH:MM\[:SS\]"/],
    [['--to', '77011234567', '--text', '   '], /--text: invalid value " {3}": must not be blank \(spaces or line breaks alone\)/],
  ])('%j is refused with exit 2 and nothing is sent', async (args, message) => {
    const r = await cli(['message', 'send', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(rec.server.requests).toHaveLength(0);
  });

  describe('--at as a person types it (fixed clock: 2026-11-20 14:30:15 local)', () => {
    const now = () => new Date(2026, 10, 20, 14, 30, 15);
    it.each([
      ['+2h', '2026-11-20 16:30:15'],
      ['+90m', '2026-11-20 16:00:15'],
      ['+13d', '2026-12-03 14:30:15'],
      ['2026-11-24 03:00', '2026-11-24 03:00:00'],
      ['16:00', '2026-11-20 16:00:00'],
    ])('--at %s sends %s', async (at, wire) => {
      const r = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', at], { now });
      expect(r.code).toBe(0);
      expect(form()['params[deferredToTs]']).toBe(wire);
    });

    it.each([
      // The value as typed, then the time it stood for.
      ['+30m', /--at: invalid value "\+30m" \(in 30 min, 2026-11-20 15:00:15\): must be more than 1 hour and at most 14 days from now$/m],
      ['+15d', /--at: invalid value "\+15d" \(in 15 d, 2026-12-05 14:30:15\): must be more than 1 hour and at most 14 days from now$/m],
      ['-2h', /--at: invalid value "-2h" \(2 h ago, 2026-11-20 12:30:15\): must be more than 1 hour and at most 14 days from now$/m],
      // Without a sign a time counts back, on --at as on every time flag: 2h is 2 hours ago, and +2h is offered.
      ['2h', /--at: invalid value "2h" \(2 h ago, 2026-11-20 12:30:15\): must be more than 1 hour and at most 14 days from now \(did you mean \+2h\? a time without \+ counts back\)/],
      ['90m', /--at: invalid value "90m" \(1 h 30 min ago, 2026-11-20 13:00:15\): .* \(did you mean \+90m\?/],
      ['09:00', /--at: invalid value "09:00" \(2026-11-20 09:00:00\): must be more than 1 hour and at most 14 days from now$/m],
      ['2026-11-24', /--at: invalid value "2026-11-24": must be a time: "YYYY-MM-DD HH:MM\[:SS\]", HH:MM \(today\), now, 7d \(ago\) or \+2h \(ahead\)/],
      ['in 2 hours', /--at: invalid value "in 2 hours": must be a time: .*; times: `smslink help time`/],
    ])('--at %s is refused with exit 2 and nothing is sent', async (at, message) => {
      const r = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', at], { now });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(rec.server.requests).toHaveLength(0);
    });
  });

  it('a scheduled send says when it goes out, and in how long; scripts keep the service\'s fields', async () => {
    const now = () => new Date(2026, 10, 26, 19, 9, 0);
    const table = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', '2026-11-27 09:00', '--no-color'], { now, tty: true });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^scheduled +2026-11-27 09:00:00 \(in 13 h 51 min\)$/m);
    const json = JSON.parse((await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', '+2h'], { now })).stdout);
    expect(json).not.toHaveProperty('scheduled');
    const plain = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--no-color'], { now, tty: true });
    expect(plain.stdout).not.toContain('scheduled');
  });

  it('help says which times --at takes, with examples', async () => {
    const r = await cli(['message', 'send', '--help']);
    expect(r.stdout).toContain('or a time from now with a +: +90m, +2h,\n+3d, +1w');
    expect(r.stdout).toContain('more than 1 hour and at most 14 days from now');
    expect(r.stdout).toContain('--at +2h');
    expect(r.stdout).toContain('--at "2026-12-01 09:00"');
  });

  it('--dry-run shows encoding and segments', async () => {
    const gsm = await cli(['message', 'send', '--to', '77011234567', '--text', 'a'.repeat(161), '--dry-run']);
    expect(JSON.parse(gsm.stdout)).toMatchObject({ dryRun: true, encoding: 'GSM-7', segments: 2, fields: { recipient: '77011234567' } });
    const ucs = await cli(['message', 'send', '--to', '77011234567', '--text', 'Привет', '--dry-run', '-o', 'table']);
    expect(ucs.stdout).toContain('encoding: UCS-2');
    expect(ucs.stdout).toContain('segments: 1');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('says the outcome is unknown when the answer is lost after sending, and how to check, with the number as typed', async () => {
    rec.server.respond(() => ({ status: 502, body: '<html>Bad Gateway</html>' }));
    const r = await cli(['message', 'send', '--to', '+77011234567', '--text', 'x']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/HTTP 502/);
    expect(r.stderr).toContain('may or may not have been sent; check with `smslink message list --to +77011234567` before sending again.');
    // A number typed with spaces and brackets is quoted, so the command pastes into a shell as one.
    const spaced = await cli(['message', 'send', '--to', '+7 (701) 123-45-67', '--text', 'x']);
    expect(spaced.code).toBe(3);
    expect(spaced.stderr).toContain("check with `smslink message list --to '+7 (701) 123-45-67'` before sending again.");
    // At an 80-column terminal the command stays whole on one line.
    const narrow = await cli(['message', 'send', '--to', '+7 (701) 123-45-67', '--text', 'x'], { tty: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(narrow.stderr.split('\n')).toContain("`smslink message list --to '+7 (701) 123-45-67'` before sending again.");
  });
});
