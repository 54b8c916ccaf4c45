// `smslink link stats` as a person uses it: the interval that is sent for
// each way of giving (or not giving) --since/--until, on a fixed clock; and
// the chart of real clicks on the emulator at 60, 80 and 120 columns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli } from '../../helpers/run-cli.js';
import { localTimeZone } from '../../../src/emulator/sandbox.js';
import { cellWidth as cells } from '../../../src/output/width.js';

const rec = useRecordingServer('StatsTestKey0123456789abcdefABCDEF0123456');
// Local time: the CLI sends the machine's wall clock.
const now = () => new Date(2026, 10, 24, 10, 0, 0);
const stats = (args: string[], opts: Parameters<typeof rec.cli>[1] = {}) => rec.cli(['link', 'stats', ...args], { now, ...opts });
// Each link is read first (Link/Get: a link that does not exist is no link without clicks); then the statistics.
const statsRequest = () => rec.server.requests.find((q) => /getstats$/i.test(q.path))!;
const sent = () => Object.fromEntries(new URLSearchParams(statsRequest().body));

describe('the interval sent', () => {
  it.each([
    ['neither: daily, and the service picks its latest 90 days', ['1'], { type: 'daily' }],
    ['--type monthly', ['1', '--type', 'monthly'], { type: 'monthly' }],
    ['--type in capitals', ['1', '--type', 'HOURLY'], { type: 'hourly' }],
    ['--since 7d: 7 days ago to now', ['1', '--since', '7d'], { type: 'daily', 'criteria[dateFrom]': '2026-11-17 10:00:00', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
    ['--from -2w (the alias)', ['1', '--from', '-2w'], { type: 'daily', 'criteria[dateFrom]': '2026-11-10 10:00:00', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
    ['--from alone never runs past now', ['1', '--from', '2026-11-20'], { type: 'daily', 'criteria[dateFrom]': '2026-11-20 00:00:00', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
    ['--until alone: the longest interval ending there', ['1', '--until', '2026-11-01'], { type: 'daily', 'criteria[dateTo]': '2026-11-01 23:59:59' }],
    ['--to now', ['1', '--to', 'now'], { type: 'daily', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
    [
      'both, as given (minutes filled)',
      ['1', '--type', 'hourly', '--since', '2026-11-20 08:00', '--until', '2026-11-21 18:30'],
      { type: 'hourly', 'criteria[dateFrom]': '2026-11-20 08:00:00', 'criteria[dateTo]': '2026-11-21 18:30:59' },
    ],
    ['minute: --since 3h is the longest interval', ['1', '--type', 'minute', '--since', '3h'], { type: 'minute', 'criteria[dateFrom]': '2026-11-24 07:00:00', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
    ['monthly: --since 2024-01-01 ends now', ['1', '--type', 'monthly', '--since', '2024-01-01'], { type: 'monthly', 'criteria[dateFrom]': '2024-01-01 00:00:00', 'criteria[dateTo]': '2026-11-24 10:00:00' }],
  ])('%s', async (_what, args, form) => {
    const r = await stats(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(sent()).toEqual({ 'ids[]': '1', ...form });
  });

  it.each([
    ['--since alone', ['--since', '2025-01-01'], '2025-03-31 23:59:59', 'daily statistics cover at most 90 days: showing 2025-01-01 00:00:00 to 2025-03-31 23:59:59 (--type monthly covers 3 years)'],
    ['both', ['--since', '2026-01-01', '--until', '2026-06-30'], '2026-03-31 23:59:59', 'showing 2026-01-01 00:00:00 to 2026-03-31 23:59:59'],
    // Three calendar years, a leap day among them: the last month is whole.
    ['monthly', ['--type', 'monthly', '--since', '2020-01-01'], '2022-12-31 23:59:59', 'monthly statistics cover at most 3 years: showing 2020-01-01 00:00:00 to 2022-12-31 23:59:59'],
    ['minute', ['--type', 'minute', '--since', '4h'], '2026-11-24 08:59:59', 'minute statistics cover at most 3 hours: showing 2026-11-24 06:00:00 to 2026-11-24 08:59:59 (--type hourly covers 1 week)'],
  ])('a range longer than the type covers is cut as the service would, and said (%s)', async (_what, args, dateTo, warning) => {
    const r = await stats(['1', ...args]);
    expect(r.code).toBe(0);
    expect(sent()['criteria[dateTo]']).toBe(dateTo);
    expect(r.stderr).toMatch(/^warning: /);
    expect(r.stderr).toContain(warning);
  });

  it('--dry-run shows the interval that would be sent', async () => {
    const r = await stats(['1', '--since', '1d', '--dry-run', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/criteria\[dateFrom\]\s+2026-11-23 10:00:00\n\s+criteria\[dateTo\]\s+2026-11-24 10:00:00/);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--dry-run JSON keeps every value of a repeated field', async () => {
    const r = await rec.cli(['link', 'stats', '1', '2', '3', '--type', 'daily', '--dry-run']);
    expect(JSON.parse(r.stdout).fields['ids[]']).toEqual(['1', '2', '3']);
  });
});

describe('refused with exit 2, nothing sent', () => {
  it.each([
    [['--type', 'weekly'], '--type: invalid value "weekly": must be one of monthly, daily, hourly, minute'],
    [['--since', 'last week'], '--since: invalid value "last week": must be a time: YYYY-MM-DD, "YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead)'],
    [['--to', '2026-13-01'], '--to: invalid value "2026-13-01": must be a real date: YYYY-MM-DD, '],
    [['--until', '1mo'], '--until: invalid value "1mo": must be a time'],
    [['--since', '2d', '--from', '3d'], '--since and --from were both given ("2d" and "3d"); --from is another name for --since; it takes one value: give it once'],
    [['--until', 'now', '--to', 'now'], '--until and --to were both given ("now" and "now"); --to is another name for --until; it takes one value: give it once'],
    // Quoted as typed, with the time each stood for.
    [['--since', '2026-11-05', '--until', '2026-11-01'], '--until: invalid value "2026-11-01" (2026-11-01 23:59:59): must not be before --since "2026-11-05" (2026-11-05 00:00:00)'],
    [['--since', '2026-12-01'], '--since: invalid value "2026-12-01" (2026-12-01 00:00:00): is in the future (now is 2026-11-24 10:00:00); there are no clicks to count yet'],
    [['--from', '+1d'], '--from: invalid value "+1d" (in 1 d, 2026-11-25 10:00:00): is in the future'],
  ])('%j', async (args, message) => {
    const r = await stats(['1', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('link stats with no ids is a usage error, not an empty success', async () => {
    const r = await rec.cli(['link', 'stats', '-', '--type', 'daily'], { stdin: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<link...>');
    expect(rec.server.requests).toHaveLength(0);
  });
});

it('help names --since and --until, their aliases, the default type and examples', async () => {
  const r = await runCli(['link', 'stats', '--help']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/--since <time>\s+start, e\.g\. 7d or 2026-11-01 \(alias --from;\s+times:/);
  expect(r.stdout).toMatch(/--until <time>\s+end, e\.g\. 1d or 2026-11-30 \(alias --to;\s+times:/);
  expect(r.stdout).toMatch(/--type <type>\s+monthly, daily, hourly or minute \(default: daily\)/);
  expect(r.stdout).toContain('--from and --to still work as their aliases');
  expect(r.stdout).toContain('smslink link stats 417863 417864 --since 7d');
});

describe('the chart of real clicks (emulator)', () => {
  let emu: TestEmulator;
  const start = new Date(2026, 10, 24, 10, 0, 0);
  const ids: number[] = [];
  const codes: string[] = [];
  const cli = (args: string[], columns = 80) =>
    runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, NO_COLOR: '1' }, now: () => new Date(emu.clock.now()), columns, tty: true });
  const visit = async (code: string, times: number) => {
    for (let i = 0; i < times; i++) expect((await emu.raw('GET', `/${code}`)).status).toBe(302);
  };

  beforeAll(async () => {
    // The account's zone is the machine's, as in the sandbox: the CLI's local "now" is the service's.
    emu = await startTestEmulator({ tz: localTimeZone() });
    emu.clock.set(new Date(2026, 7, 1, 9, 0, 0));
    for (const name of ['a', 'b', 'c']) {
      const r = await cli(['link', 'create', `https://example.com/${name}`, '-o', 'json']);
      const link = JSON.parse(r.stdout) as { id: number; code: string };
      ids.push(link.id);
      codes.push(link.code);
    }
    // Clicks 20 days ago (a: 12, b: 3), 2 days ago (a: 1), and today (b: 2); c is never visited.
    emu.clock.set(new Date(2026, 10, 4, 15, 0, 0));
    await visit(codes[0], 12);
    await visit(codes[1], 3);
    emu.clock.set(new Date(2026, 10, 22, 9, 30, 0));
    await visit(codes[0], 1);
    emu.clock.set(new Date(2026, 10, 24, 8, 0, 0));
    await visit(codes[1], 2);
    emu.clock.set(start);
  });
  afterAll(() => emu.close());

  it('plain `link stats <id>`: 90 days in a few lines, the header first', async () => {
    const r = await cli(['link', 'stats', String(ids[0]), '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`period      clicks of ${codes[0]}`);
    expect(lines.slice(1)).toEqual([
      '2026-08-27 … 2026-11-03  (69 days, no clicks)',
      expect.stringMatching(/^2026-11-04 {2}█+ 12 \(12 redirects\)$/),
      '2026-11-05 … 2026-11-21  (17 days, no clicks)',
      expect.stringMatching(/^2026-11-22 {2}█+ 1 \(1 redirect\)$/),
      '2026-11-23 … 2026-11-24  (2 days, no clicks)',
      'total       13 clicks, 13 redirects',
    ]);
  });

  for (const columns of [60, 80, 120]) {
    it(`three links since 3 weeks at ${columns} columns: one line per link that had clicks, no line wider`, async () => {
      const r = await cli(['link', 'stats', ...ids.map(String), '--since', '3w', '-o', 'table'], columns);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const line of lines) expect(cells(line), line).toBeLessThanOrEqual(columns);
      const [a, b, c] = codes;
      const pad = (s: string) => s.padEnd(Math.max('link'.length, a.length));
      expect(lines).toEqual([
        `period      ${pad('link')}  clicks`,
        '2026-11-03  (no clicks)',
        expect.stringMatching(new RegExp(`^2026-11-04  ${pad(a)}  █+ 12 \\(12 redirects\\)$`)),
        expect.stringMatching(new RegExp(`^ {12}${pad(b)}  █+ 3 \\(3 redirects\\)$`)),
        '2026-11-05 … 2026-11-21  (17 days, no clicks)',
        expect.stringMatching(new RegExp(`^2026-11-22  ${pad(a)}  █+ 1 \\(1 redirect\\)$`)),
        '2026-11-23  (no clicks)',
        expect.stringMatching(new RegExp(`^2026-11-24  ${pad(b)}  █+ 2 \\(2 redirects\\)$`)),
        `total       ${pad(a)}  13 clicks, 13 redirects`,
        `            ${pad(b)}  5 clicks, 5 redirects`,
        `            ${pad(c)}  0 clicks, 0 redirects`,
      ]);
    });
  }

  it('CSV keeps the service numbers keyed by id for scripts', async () => {
    const r = await cli(['link', 'stats', String(ids[0]), String(ids[1]), '--since', '1d', '-o', 'csv']);
    expect(r.stdout).toBe(
      `period,clicks_${ids[0]},redirects_${ids[0]},clicks_${ids[1]},redirects_${ids[1]}\n2026-11-23,0,0,0,0\n2026-11-24,0,0,2,2\n`,
    );
  });
});

describe('sent and shown', () => {
  it('fills date-only --from/--to to the start and end of the day', async () => {
    await rec.cli(['link', 'stats', '1', '2', '--type', 'daily', '--from', '2026-11-01', '--to', '2026-11-30']);
    expect(decodeURIComponent(statsRequest().body)).toBe('ids[]=1&ids[]=2&type=daily&criteria[dateFrom]=2026-11-01 00:00:00&criteria[dateTo]=2026-11-30 23:59:59');
  });

  it('keeps full timestamps as given', async () => {
    await rec.cli(['link', 'stats', '1', '--type', 'minute', '--from', '2026-11-01 10:00:00']);
    expect(decodeURIComponent(statsRequest().body)).toContain('criteria[dateFrom]=2026-11-01 10:00:00');
  });

  it('keys columns by link id and draws bars scaled to the busiest period, then totals, links named by code', async () => {
    const csv = await rec.cli(['link', 'stats', '417863', '417864', '--type', 'monthly', '-o', 'csv']);
    expect(csv.stdout).toBe('period,clicks_417863,redirects_417863,clicks_417864,redirects_417864\n2026-10,1,1,0,0\n2026-11,4,3,2,2\n');
    // The chart looks up the code of each id it was given.
    rec.server.respond((req) =>
      req.path.endsWith('/Get') ? { body: { code: 0, data: { id: req.body.slice(3), code: req.body === 'id=417863' ? 'ddoj' : 'ddok' }, message: '' } } : undefined,
    );
    const table = await rec.cli(['link', 'stats', '417863', '417864', '--type', 'monthly', '-o', 'table']);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^period\s+link\s+clicks$/);
    const bar = (line: string) => line.match(/█+/)?.[0].length ?? 0;
    expect(lines[1]).toMatch(/^2026-10\s+ddoj\s+█+ 1 \(1 redirect\)$/);
    expect(lines[2]).toMatch(/^2026-11\s+ddoj\s+█+ 4 \(3 redirects\)$/);
    expect(lines[3]).toMatch(/^\s+ddok\s+█+ 2 \(2 redirects\)$/);
    expect(bar(lines[2])).toBeGreaterThan(bar(lines[3]));
    expect(bar(lines[3])).toBeGreaterThan(bar(lines[1]));
    expect(bar(lines[2]) / bar(lines[1])).toBeCloseTo(4, 0);
    expect(lines.slice(4)).toEqual(['total    ddoj  5 clicks, 4 redirects', '         ddok  2 clicks, 2 redirects']);
  });

  it.each([
    [['1', '--type', 'weekly'], /--type: invalid value "weekly": must be one of monthly, daily, hourly, minute/],
    [['1', '--type', 'daily', '--from', '2026-11-05', '--to', '2026-11-01'], /--to: invalid value "2026-11-01" \(2026-11-01 23:59:59\): must not be before --from "2026-11-05"/],
  ])('%j is refused with exit 2', async (args, message) => {
    const r = await rec.cli(['link', 'stats', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(rec.server.requests).toHaveLength(0);
  });
});
