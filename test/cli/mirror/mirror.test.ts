// `smslink sync`, `report delivery`, `report links` and `search` against the
// emulator over a real socket. Every number a report prints is held to what
// the emulator says it holds (its control API lists each message with its
// status, times, segments, price, country and operator), computed here
// from that list on its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, tempDir, type RunOptions } from '../../helpers/run-cli.js';
import type { SeedMessageData } from '../../../src/emulator/index.js';
import { Mirror, mirrorPath } from '../../../src/mirror/index.js';
import { formatDateTime } from '../../../src/catalog/rules.js';

const KEY = 'MirrorTestKey0123456789abcdefABCDEF012345';
const STATUSES = ['DELIVRD', 'DELIVRD', 'DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'ACCEPTD', 'ENQUEUD', 'DELIVRD', 'PDLIVRD'];
// Kazakhstan (two operators), Russia, Uzbekistan, Germany (no operator known).
const NUMBERS = ['77011234567', '77051234567', '79161234567', '998901234567', '4915112345678'];
const TEXTS = ['Your code is 4711', 'Spring sale: 20% off shoes', 'Пакет доставлен, спасибо', 'Reminder: dentist tomorrow at 10'];

let emu: TestEmulator;
const seedMessages: SeedMessageData[] = Array.from({ length: 230 }, (_, i) => ({
  to: NUMBERS[i % NUMBERS.length],
  text: `${TEXTS[i % TEXTS.length]} #${i}`,
  status: STATUSES[(i * 7) % STATUSES.length],
  // Spread over 20 days, minutes apart.
  ago: (i % 20) * 86_400 + i * 61,
}));

beforeAll(async () => {
  emu = await startTestEmulator({
    apiKeys: [KEY],
    price: 0.0375,
    seed: {
      links: [
        { fullLink: 'https://example.com/spring-shoes', comment: 'spring campaign', clicks: 7 },
        { fullLink: 'https://example.com/dentist', comment: 'reminders', clicks: 2 },
        { fullLink: 'https://example.com/quiet', comment: 'never clicked' },
      ],
      messages: seedMessages,
    },
  });
});
afterAll(() => emu?.close());

type Cli = ((args: string[], opts?: RunOptions) => ReturnType<typeof runCli>) & { data: string };

/** A fresh data directory: its own mirror. */
function account(): Cli {
  const data = tempDir();
  const cli = (args: string[], opts: RunOptions = {}) =>
    runCli(['--base-url', emu.url, ...args], { now: () => new Date(emu.clock.now()), ...opts, env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC', ...opts.env } });
  return Object.assign(cli, { data });
}

/** Resolves once a sync running for `cli` has stored messages (so it holds the lock), however slow the machine. */
async function whenSyncHasStored(cli: Cli): Promise<void> {
  const path = mirrorPath({ SMSLINK_DATA_DIR: cli.data }, { baseUrl: emu.url, profile: 'default' });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
    const mirror = Mirror.openExisting(path);
    if (!mirror) continue;
    try {
      if (mirror.one<{ n: number }>('SELECT count(*) AS n FROM messages').n > 0) return;
    } catch {
      // the sync is still making its tables
    } finally {
      mirror.close();
    }
  }
  throw new Error('the sync stored nothing in 30 s');
}

interface Truth {
  id: number;
  to: string;
  status: string;
  segments: number;
  segUserBuy: number;
  price: number;
  startSendTs: string | null;
  statusUpdateTs: string | null;
  countryA2: string | null;
  operatorName: string | null;
  text: string;
}

async function truth(): Promise<Truth[]> {
  const res = await request(`${emu.url}/_emulator/messages?limit=1000`);
  return ((await res.body.json()) as { messages: Truth[] }).messages;
}

const FINAL = ['DELIVRD', 'UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED'];
const seconds = (ts: string) => Date.parse(`${ts.replace(' ', 'T')}Z`) / 1000;
const rank = (sorted: number[], p: number) => (sorted.length ? sorted[Math.ceil(p * sorted.length) - 1] : null);

/** The delivery report of `messages` grouped by `key`, computed from the emulator's list. */
function expected(messages: Truth[], key: (m: Truth) => string | null) {
  const groups = new Map<string, Truth[]>();
  for (const m of messages.filter((x) => x.startSendTs !== null)) {
    const g = key(m) ?? 'unknown';
    groups.set(g, [...(groups.get(g) ?? []), m]);
  }
  return new Map(
    [...groups].map(([g, ms]) => {
      const final = ms.filter((m) => FINAL.includes(m.status));
      const durations = final.map((m) => seconds(m.statusUpdateTs!) - seconds(m.startSendTs!)).sort((a, b) => a - b);
      const count = (s: string) => ms.filter((m) => m.status === s).length;
      return [
        g,
        {
          messages: ms.length,
          segments: ms.reduce((s, m) => s + m.segments, 0),
          delivered: count('DELIVRD'),
          undelivered: count('UNDELIV'),
          rejected: count('REJECTD'),
          expired: count('EXPIRED'),
          deleted: count('DELETED'),
          pending: ms.length - final.length,
          deliveryRate: final.length ? count('DELIVRD') / final.length : null,
          medianSeconds: rank(durations, 0.5),
          p90Seconds: rank(durations, 0.9),
          cost: ms.reduce((s, m) => s + m.segUserBuy * m.segments, 0),
        },
      ];
    }),
  );
}

function compare(report: Array<Record<string, unknown>>, by: string, want: ReturnType<typeof expected>): void {
  expect(report.map((r) => r[by]).sort()).toEqual([...want.keys()].sort());
  for (const row of report) {
    const w = want.get(String(row[by]))!;
    const { cost, deliveryRate, ...exact } = w;
    expect(row).toMatchObject(exact);
    expect(row.cost as number).toBeCloseTo(cost, 6);
    if (deliveryRate === null) expect(row.deliveryRate).toBeNull();
    else expect(row.deliveryRate as number).toBeCloseTo(deliveryRate, 6);
  }
}

const ALL_TIME = ['--since', '2024-01-01', '--until', '2026-01-01'];

describe('sync and report delivery', () => {
  it('mirrors every message and link, and each count, rate, median and cost of a report equals the emulator\'s', async () => {
    const cli = account();
    const sync = await cli(['sync', '--json', '--concurrency', '3']);
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ first: true, messagesFetched: 230, links: 3, linkStatsFetched: 2 });

    const held = await truth();
    expect(held).toHaveLength(230);
    for (const [by, key] of [
      ['country', (m: Truth) => m.countryA2],
      ['operator', (m: Truth) => m.operatorName],
      ['sender', () => 'SMSLINK'],
      ['day', (m: Truth) => m.startSendTs!.slice(0, 10)],
    ] as const) {
      const report = await cli(['report', 'delivery', '--by', by, ...ALL_TIME, '--json']);
      expect(report.code).toBe(0);
      const rows = JSON.parse(report.stdout) as Array<Record<string, unknown>>;
      if (by === 'sender') expect(rows).toHaveLength(1);
      else compare(rows, by, expected(held, key));
    }
  });

  it('is right again after the next sync when statuses change (GetSMSStatus), and fetches only what is new', async () => {
    const cli = account();
    const send = async (to: string) => expect((await emu.call('Message/SendSmsMessage', { recipient: to, text: 'late news' }, KEY)).code).toBe(0);
    // Sent before the first sync, with the clock still: NEW, not yet sent, when mirrored.
    for (const to of ['77011230000', '77051231111', '79161234567']) await send(to);
    const first = JSON.parse((await cli(['sync', '--json'])).stdout);
    expect(first.first).toBe(true);
    for (const to of ['99890765432', '77071234567']) await send(to);
    // The lifecycle runs its course: the three end REJECTD, UNDELIV and DELIVRD.
    await request(`${emu.url}/_emulator/clock`, { method: 'POST', body: JSON.stringify({ advance: 'pending' }), headers: { 'content-type': 'application/json' } });
    const second = await cli(['sync', '--json']);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ first: false, messagesFetched: 2 });
    // Looked up: the three sent before the first sync, and the seeded messages not yet final (their
    // seeded statuses stay); the three changed, and ended final. The two new ones came final with the list.
    const seededPending = seedMessages.filter((m) => !FINAL.includes(m.status!)).length;
    expect(summary).toMatchObject({ statusesChecked: 3 + seededPending, statusesChanged: 3, becameFinal: 3 });
    const held = await truth();
    const report = await cli(['report', 'delivery', '--by', 'country', ...ALL_TIME.slice(0, 2), '--until', '2030-01-01', '-o', 'ndjson']);
    expect(report.code).toBe(0);
    const rows = report.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    compare(rows, 'country', expected(held, (m) => m.countryA2));
    const late = held.filter((m) => m.text === 'late news');
    expect(late.map((m) => m.status).sort()).toEqual(['DELIVRD', 'DELIVRD', 'DELIVRD', 'REJECTD', 'UNDELIV']);
  });

  it('asks for statuses and clicks in requests as large as the contract allows (100 ids, 5 ids), and every status comes back right', async () => {
    // 250 messages not yet final and 12 clicked links: three GetSMSStatus and three GetStats requests.
    // The client refuses a request over the catalog's limit before sending, so a wrong chunk fails the sync.
    const big = await startTestEmulator({
      apiKeys: [KEY],
      seed: { links: Array.from({ length: 12 }, (_, i) => ({ fullLink: `https://example.com/chunk/${i}`, clicks: i + 1 })) },
    });
    try {
      for (let i = 0; i < 250; i++) expect((await big.call('Message/SendSmsMessage', { recipient: `7701${String(1_000_000 + i)}`, text: `chunk ${i}` }, KEY)).code).toBe(0);
      const data = tempDir();
      const cli = (args: string[]) => runCli(['--base-url', big.url, ...args], { now: () => new Date(big.clock.now()), env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC' } });
      const first = await cli(['sync', '--json']);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ messagesFetched: 250, links: 12, linkStatsFetched: 12 });
      await request(`${big.url}/_emulator/clock`, { method: 'POST', body: JSON.stringify({ advance: 'pending' }), headers: { 'content-type': 'application/json' } });
      const second = await cli(['sync', '--json']);
      expect(second.code, second.stderr).toBe(0);
      const report = await cli(['report', 'delivery', '--by', 'sender', '--since', '2000-01-01', '--until', '2100-01-01', '--json']);
      expect(JSON.parse(report.stdout)).toEqual([expect.objectContaining({ messages: 250, pending: 0 })]);
    } finally {
      await big.close();
    }
  });

  it('says how many statuses it checked, how many changed and how many became final, exactly, however many requests ran at once', async () => {
    // 250 messages sent at one instant (three GetSMSStatus requests, all in flight together): every
    // tenth to a number ending 2222, which the emulator keeps ACCEPTD until its validity ends.
    const own = await startTestEmulator({ apiKeys: [KEY] });
    try {
      for (let i = 0; i < 250; i++) {
        const to = i % 10 === 0 ? `77010${String(i).padStart(3, '0')}2222` : `7701${String(1_000_000 + i)}`;
        expect((await own.call('Message/SendSmsMessage', { recipient: to, text: `count ${i}` }, KEY)).code).toBe(0);
      }
      const data = tempDir();
      const cli = (args: string[], opts: RunOptions = {}) =>
        runCli(['--base-url', own.url, ...args], { now: () => new Date(own.clock.now()), ...opts, env: { SMSLINK_API_KEY: KEY, SMSLINK_DATA_DIR: data, TZ: 'UTC', ...opts.env } });
      const sync = async () => {
        const r = await cli(['sync', '--json', '--concurrency', '4']);
        expect(r.code, r.stderr).toBe(0);
        const { statusesChecked, statusesChanged, becameFinal, statusesRefreshed } = JSON.parse(r.stdout) as Record<string, number>;
        expect(statusesRefreshed).toBe(statusesChecked);
        return [statusesChecked, statusesChanged, becameFinal];
      };
      const advance = (seconds: number) => request(`${own.url}/_emulator/clock`, { method: 'POST', body: JSON.stringify({ advance: seconds }), headers: { 'content-type': 'application/json' } });
      // The first sync lists the messages (all NEW); it asks for no statuses.
      expect(await sync()).toEqual([0, 0, 0]);
      // Nothing moved: 250 looked up, none changed (this once said "50 statuses refreshed").
      expect(await sync()).toEqual([250, 0, 0]);
      // Two seconds on: all 250 ACCEPTD, none final yet.
      await advance(2);
      expect(await sync()).toEqual([250, 250, 0]);
      // Ten seconds on: 225 DELIVRD; the 25 to ...2222 stay ACCEPTD.
      await advance(10);
      expect(await sync()).toEqual([250, 225, 225]);
      expect(await sync()).toEqual([25, 0, 0]);
      // At a terminal, in words; csv keeps every field, the old one too.
      const table = await cli(['sync'], { tty: true, columns: 80, env: { NO_COLOR: '1' } });
      expect(table.stdout).toMatch(/statuses checked +25\n/);
      expect(table.stdout).toMatch(/statuses changed +0\n/);
      expect(table.stdout).toMatch(/became final +0\n/);
      expect(table.stdout).not.toContain('refreshed');
      const csv = await cli(['sync', '-o', 'csv']);
      expect(csv.stdout.split('\n').slice(0, 2)).toEqual(['first,since,messagesFetched,statusesChecked,statusesChanged,becameFinal,statusesRefreshed,links,linkStatsFetched', 'false,,0,25,0,0,25,0,0']);
    } finally {
      await own.close();
    }
  });

  it('prints csv with a header, and at a terminal a table and a bar chart', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const csv = await cli(['report', 'delivery', '--by', 'country', ...ALL_TIME, '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('country,messages,segments,delivered,undelivered,rejected,expired,deleted,pending,deliveryRate,medianSeconds,p90Seconds,cost');
    const table = await cli(['report', 'delivery', '--by', 'country', ...ALL_TIME], { tty: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    // At 80 columns the counts of each ending stay (a row adds up) and the rate; times and cost give way.
    // Each ending is headed by its status's word, as every table says the status.
    expect(lines[0]).toMatch(/^country +messages +delivered +undelivered +rejected +expired +pending +rate$/);
    const kz = lines.find((l) => l.startsWith('KZ'))!.split(/ +/);
    expect(Number(kz[1])).toBe(kz.slice(2, 7).reduce((sum, n) => sum + Number(n), 0));
    expect(kz[7]).toMatch(/%$/);
    // Money as everywhere in tables: four decimals (price 0.0375 a segment) and the account's currency.
    const wide = await cli(['report', 'delivery', '--by', 'country', ...ALL_TIME], { tty: true, columns: 140, env: { NO_COLOR: '1' } });
    const kzCost = expected(await truth(), (m) => m.countryA2).get('KZ')!.cost;
    expect(wide.stdout.split('\n').find((l) => l.startsWith('KZ'))).toMatch(new RegExp(` ${kzCost.toFixed(4).replace('.', '\\.')} KZT$`));
    expect(table.stdout).toContain('█ delivered  ▒ failed  ░ pending');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("the chart's legend says what --status takes: each word lists the messages the chart counts under it", async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const table = await cli(['report', 'delivery', ...ALL_TIME], { tty: true, columns: 80, env: { NO_COLOR: '1' } });
    const legend = /█ (\S+) {2}▒ (\S+) {2}░ (\S+)$/m.exec(table.stdout);
    expect(legend?.slice(1)).toEqual(['delivered', 'failed', 'pending']);
    const rows = JSON.parse((await cli(['report', 'delivery', ...ALL_TIME, '--json'])).stdout) as Array<Record<string, number>>;
    const sum = (...fields: string[]) => rows.reduce((n, r) => n + fields.reduce((m, f) => m + r[f], 0), 0);
    const counted = [sum('delivered'), sum('undelivered', 'rejected', 'expired', 'deleted'), sum('pending')];
    expect(counted.every((n) => n > 0)).toBe(true);
    for (const [i, word] of legend!.slice(1).entries()) {
      const list = await cli(['message', 'list', '--status', word, '--all', '-q']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout.trim().split('\n'), word).toHaveLength(counted[i]);
    }
  });

  it('by day counts whole days: the default --since 7d starts at 00:00 of that day, so the first row is no short day', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const held = await truth();
    const now = new Date(emu.clock.now());
    const weekAgo = new Date(now);
    weekAgo.setDate(weekAgo.getDate() - 7);
    const firstDay = formatDateTime(weekAgo).slice(0, 10);
    // The premise: that day has messages sent before this hour of it, which 7 days back to the second would leave out.
    expect(held.some((m) => m.startSendTs?.startsWith(firstDay) && m.startSendTs < formatDateTime(weekAgo))).toBe(true);
    const at = { now: () => now };
    const week = JSON.parse((await cli(['report', 'delivery', '--json'], at)).stdout) as Array<Record<string, unknown>>;
    expect(week[0].day).toBe(firstDay);
    // Up to now: what other tests sent a second after the emulator's clock (it stands still) is not in the period.
    const upToNow = held.filter((m) => m.startSendTs !== null && m.startSendTs <= formatDateTime(now));
    compare(week, 'day', expected(upToNow.filter((m) => m.startSendTs! >= `${firstDay} 00:00:00`), (m) => m.startSendTs!.slice(0, 10)));
    // --until 1d ends at the end of yesterday: the last row is a whole day too.
    const dayOf = (back: number) => formatDateTime(new Date(now.getFullYear(), now.getMonth(), now.getDate() - back, 12)).slice(0, 10);
    const span = JSON.parse((await cli(['report', 'delivery', '--since', '3d', '--until', '1d', '--json'], at)).stdout) as Array<Record<string, unknown>>;
    const inSpan = (m: Truth) => m.startSendTs !== null && m.startSendTs >= `${dayOf(3)} 00:00:00` && m.startSendTs <= `${dayOf(1)} 23:59:59`;
    expect(span.map((r) => r.day)).toEqual([dayOf(3), dayOf(2), dayOf(1)]);
    compare(span, 'day', expected(held.filter(inSpan), (m) => m.startSendTs!.slice(0, 10)));
    // A time typed as such is kept: from 08:00 the first row holds only what was sent from then on.
    const from8 = JSON.parse((await cli(['report', 'delivery', '--since', `${firstDay} 08:00`, '--json'], at)).stdout) as Array<Record<string, unknown>>;
    expect(from8[0].messages).toBe(held.filter((m) => m.startSendTs?.startsWith(firstDay) && m.startSendTs >= `${firstDay} 08:00:00`).length);
    // Other groupings keep 7 days to the second; the note under the table says where the period starts.
    const bySender = JSON.parse((await cli(['report', 'delivery', '--by', 'sender', '--json'], at)).stdout) as Array<Record<string, unknown>>;
    expect(bySender[0].messages).toBe(upToNow.filter((m) => m.startSendTs! >= formatDateTime(weekAgo)).length);
    const table = await cli(['report', 'delivery'], { ...at, tty: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(table.stderr.replace(/\n/g, ' ')).toContain(`Messages sent from ${firstDay} 00:00:00 to ${formatDateTime(now)}`);
  });

  it('bounds the first sync with --since, and says what the mirror holds with --status', async () => {
    const cli = account();
    const held = await truth();
    const since = '2025-01-10 00:00:00';
    const sync = await cli(['sync', '--since', since, '--json']);
    expect(sync.code).toBe(0);
    const wanted = held.filter((m) => m.startSendTs !== null && m.startSendTs >= since).length;
    expect(JSON.parse(sync.stdout)).toMatchObject({ first: true, since, messagesFetched: wanted });
    const status = await cli(['sync', '--status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ messages: wanted, links: 3, firstSyncDone: true, since, ageSeconds: 0 });
    const table = await cli(['sync', '--status'], { tty: true, env: { NO_COLOR: '1' } });
    expect(table.stdout).toMatch(/age +just now/);
  });

  it('--sync brings the mirror up to date first, with a progress bar on stderr at a terminal', async () => {
    const cli = account();
    const report = await cli(['report', 'delivery', '--sync', '--by', 'sender', ...ALL_TIME, '--json'], { tty: true, env: { NO_COLOR: '1' } });
    expect(report.code).toBe(0);
    expect(report.stderr).toMatch(/^messages:\n/);
    expect(report.stderr).toMatch(/\[[█░]+\] \d+\/\d+/);
    // Each step's name is taken off the screen with its bar when the step ends: no bare "messages:" is left behind.
    const steps = report.stderr.match(/[a-z][a-z ]*:\n/g) ?? [];
    expect(steps.length).toBeGreaterThan(0);
    expect(report.stderr.split('\x1b[1A\x1b[2K').length - 1).toBe(steps.length);
    expect(JSON.parse(report.stdout)).toEqual([expect.objectContaining({ sender: 'SMSLINK', messages: (await truth()).filter((m) => m.startSendTs).length })]);
  });

  it('a report and a search at a terminal say how old the mirror they read is, and how to bring it up to date', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const tty = { tty: true, columns: 80, env: { NO_COLOR: '1' } };
    const fresh = await cli(['report', 'delivery', ...ALL_TIME], tty);
    expect(fresh.stderr.replace(/\n/g, ' ')).toMatch(/from the mirror, synced just now\. $/);
    // Three hours on, with nothing synced: what was pending then may have ended since.
    const later = { ...tty, now: () => new Date(emu.clock.now() + 3 * 3600_000 + 5 * 60_000) };
    const report = await cli(['report', 'delivery', ...ALL_TIME], later);
    expect(report.code).toBe(0);
    expect(report.stderr.replace(/\n/g, ' ')).toContain('from the mirror, synced 3 h 5 min ago (`smslink sync` brings it up to date).');
    const empty = await cli(['report', 'delivery', '--since', '2020-01-01', '--until', '2020-01-02'], later);
    expect(empty.stderr.replace(/\n/g, ' ')).toContain('in the mirror, synced 3 h 5 min ago (`smslink sync` brings it up to date).');
    const search = await cli(['search', 'dentist', '--limit', '2'], later);
    expect(search.stdout).toMatch(/^kind +id/);
    expect(search.stderr.replace(/\n/g, ' ')).toContain('From the mirror, synced 3 h 5 min ago (`smslink sync` brings it up to date).');
    // Scripts get the data alone, as before.
    expect((await cli(['search', 'dentist', '--limit', '2', '-o', 'json'], { now: later.now })).stderr).toBe('');
  });

  it('refuses a report before any sync, and bad flags, naming the flag and the rule', async () => {
    const cli = account();
    const none = await cli(['report', 'delivery']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no mirror of this account yet; run `smslink sync` first');
    const by = await cli(['report', 'delivery', '--by', 'planet']);
    expect(by.code).toBe(2);
    expect(by.stderr).toContain('--by: invalid value "planet": must be one of day, sender, country, operator');
    const since = await cli(['sync', '--since', 'last week']);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since: invalid value "last week"');
    const rate = await cli(['report', 'delivery', '--rate', '5']);
    expect(rate.stderr).toContain('--rate only applies with --sync');
    const status = await cli(['sync', '--status', '--since', '7d']);
    expect(status.stderr).toContain('--status only reads the mirror; it cannot be combined with --since');
  });
});

describe('one sync at a time, and Ctrl-C', () => {
  it('refuses a second sync of the same mirror while one runs (exit 2), and the first completes', async () => {
    const cli = account();
    // A slow service: the first sync is still running when the second starts.
    await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['latency:300-300ms'] }), headers: { 'content-type': 'application/json' } });
    try {
      const first = cli(['sync', '--json', '--concurrency', '1']);
      await whenSyncHasStored(cli);
      const second = await cli(['sync', '--json']);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain('another sync of this mirror is running');
      expect((await first).code).toBe(0);
    } finally {
      await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 0 }), headers: { 'content-type': 'application/json' } });
    }
  });

  it('keeps what was fetched on Ctrl-C (exit 130), and the next run finishes the first sync', async () => {
    const cli = account();
    await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['latency:300-300ms'] }), headers: { 'content-type': 'application/json' } });
    const stop = new AbortController();
    let stopped;
    try {
      const run = cli(['sync', '--json', '--concurrency', '1'], { signal: stop.signal });
      // Page 0 is in; stop while the next ones are on their way.
      await whenSyncHasStored(cli);
      stop.abort();
      stopped = await run;
    } finally {
      await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 0 }), headers: { 'content-type': 'application/json' } });
    }
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/interrupted; the mirror keeps what was fetched \(\d+ messages\)/);
    const partial = JSON.parse((await cli(['sync', '--status', '--json'])).stdout);
    expect(partial.firstSyncDone).toBe(false);
    expect(partial.messages).toBeGreaterThan(0);
    const again = await cli(['sync', '--json']);
    expect(again.code).toBe(0);
    const done = JSON.parse((await cli(['sync', '--status', '--json'])).stdout);
    expect(done).toMatchObject({ firstSyncDone: true, messages: (await truth()).length });
  });
});

describe('report links and search', () => {
  it('lists the most clicked links with clicks per day, from Link/GetStats kept in the mirror', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const report = await cli(['report', 'links', '--json']);
    expect(report.code).toBe(0);
    const rows = JSON.parse(report.stdout) as Array<Record<string, unknown>>;
    const today = new Date(emu.clock.now()).toISOString().slice(0, 10);
    expect(rows.map((r) => [r.fullLink, r.clicks, r.daily])).toEqual([
      ['https://example.com/spring-shoes', 7, { [today]: 7 }],
      ['https://example.com/dentist', 2, { [today]: 2 }],
    ]);
    expect(rows[0]).toMatchObject({ busiestDay: today, activeDays: 1, clicksPerDay: Math.round((7 / 31) * 100) / 100 });
    const top = await cli(['report', 'links', '--top', '1', '-o', 'csv']);
    expect(top.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('finds message texts, link comments and full links, ranked, offline, in every format', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    // Offline: with every request to the service failing, search still answers.
    await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['503'] }), headers: { 'content-type': 'application/json' } });
    let found;
    try {
      found = await cli(['search', 'dentist', '--json', '--limit', '100']);
    } finally {
      await request(`${emu.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ rate: 0 }), headers: { 'content-type': 'application/json' } });
    }
    expect(found.code).toBe(0);
    const hits = JSON.parse(found.stdout) as Array<Record<string, unknown>>;
    expect(hits.some((h) => h.kind === 'link' && String(h.text).includes('https://example.com/dentist'))).toBe(true);
    expect(hits.filter((h) => h.kind === 'message').every((h) => String(h.text).startsWith('Reminder: dentist'))).toBe(true);
    const spring = JSON.parse((await cli(['search', 'spring', 'campaign', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(spring).toEqual([expect.objectContaining({ kind: 'link', text: 'https://example.com/spring-shoes (spring campaign)' })]);
    const cyrillic = await cli(['search', 'доставлен', '--to', '+998 90', '-o', 'ndjson']);
    const lines = cyrillic.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((h) => h.kind === 'message' && String(h.to).startsWith('99890'))).toBe(true);
    const csv = await cli(['search', 'code', '4711', '-o', 'csv', '--limit', '3']);
    expect(csv.stdout.split('\n')[0]).toBe('kind,id,to,at,status,text');
    expect(csv.stdout.trim().split('\n')).toHaveLength(4);
    const table = await cli(['search', 'shoes'], { tty: true, env: { NO_COLOR: '1' } });
    expect(table.stdout.split('\n')[0]).toMatch(/^kind +id +to +at +status +text/);
    const nothing = await cli(['search', '***']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('has no words to search for');
  });

  it('at a terminal, a search cut short by --limit says how many matched and how to see them all', async () => {
    const cli = account();
    await cli(['sync', '--json']);
    const tty = { tty: true, columns: 80, env: { NO_COLOR: '1' } };
    // Every match, counted from the emulator's messages and the seeded links: messages and links alike.
    const dentist = (await truth()).filter((m) => /\bdentist/i.test(m.text)).length + 1;
    expect(dentist).toBeGreaterThan(5);
    const cut = await cli(['search', 'dentist', '--limit', '5'], tty);
    expect(cut.code).toBe(0);
    expect(cut.stdout.trim().split('\n')).toHaveLength(6);
    expect(cut.stderr.replace(/\n/g, ' ')).toContain(`Showing 1-5 of ${dentist} matches. All of them: \`--limit ${dentist}\`.`);
    // The command it names shows them all, and says nothing more.
    const all = await cli(['search', 'dentist', '--limit', String(dentist)], tty);
    expect(all.stdout.trim().split('\n')).toHaveLength(dentist + 1);
    expect(all.stderr).not.toContain('Showing');
    // --to counts that number's messages alone, as the list does.
    const to = (await truth()).filter((m) => /\bdentist/i.test(m.text) && m.to.includes('7916')).length;
    expect(to).toBeGreaterThan(1);
    expect((await cli(['search', 'dentist', '--to', '7916', '--limit', '1'], tty)).stderr.replace(/\n/g, ' ')).toContain(`Showing 1-1 of ${to} matches.`);
    // Scripts get the data alone.
    expect((await cli(['search', 'dentist', '--limit', '5', '-o', 'json'])).stderr).toBe('');
  });
});
