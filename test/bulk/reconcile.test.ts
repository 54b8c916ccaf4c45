// Rows whose answer was lost are settled by a lookup in the emulator, not
// left to the user: at the end of the run that lost them, and before a rerun
// sends anything an earlier run left unknown. Answers are lost on purpose
// through the emulator's hooks (the operation is done, then the connection
// is dropped), so each test knows which rows reached the service; and
// reruns through random faults end with every row in the service once.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator, type ServiceExchange } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startRecordingServer } from '../helpers/recording-server.js';

const KEY = 'ReconKey0123456789abcdefABCDEF0123456789';
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** An emulator that drops the connection after the operations `lose` picks (counted per operation, from 1), and slows the others by `delay`. */
async function emulator(opts: { lose?: (op: string, n: number) => boolean; delay?: (op: string, n: number) => number } = {}) {
  const seen = new Map<string, number>();
  emu = await startEmulator({
    port: 0,
    db: ':memory:',
    apiKeys: [KEY],
    hooks: {
      async after(x: ServiceExchange) {
        const op = x.path.toLowerCase();
        const n = (seen.get(op) ?? 0) + 1;
        seen.set(op, n);
        const ms = opts.delay?.(op, n) ?? 0;
        if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
        if (!opts.lose?.(op, n)) return false;
        x.req.socket.destroy();
        return true;
      },
    },
  });
  const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY };
  return { url: emu.url, env, cli: (args: string[]) => runCli(args, { env }), seen };
}

const ndjson = (text: string) => (text.trim() ? text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : []);

async function all(cli: (args: string[]) => Promise<{ stdout: string }>, noun: 'link' | 'message', fields: string) {
  return ndjson((await cli([noun, 'list', '--all', '-o', 'ndjson', '--fields', fields])).stdout);
}

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

describe('a row whose answer was lost in this run', () => {
  it('a message is found by Message/List (recipient, text, time window) and reported done with its id', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'message/sendsmsmessage' && (n === 2 || n === 4) });
    const input = file('sms.csv', `recipient,name\n${[1, 2, 3, 4, 5].map((i) => `7701000000${i},N${i}`).join('\n')}\n`);
    const r = await svc.cli(['message', 'send', '--from-file', input, '--text', 'Hello {{name}}', '--concurrency', '1', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('message send: 5 done (2 of them found by a lookup after their answer was lost) of 5 rows');
    const rows = ndjson(r.stdout);
    const messages = await all(svc.cli, 'message', 'id,to');
    expect(messages).toHaveLength(5);
    for (const row of rows) {
      expect(row.state).toBe('done');
      const to = `7701000000${Number(row.row) - 1}`;
      expect(messages.find((m) => String(m.id) === String(row.messageId))?.to, `row ${row.row}`).toBe(to);
    }
    const journal = readFileSync(`${input}.journal`, 'utf8');
    expect(journal.split('\n').filter((l) => l.includes('"found":true'))).toHaveLength(2);
  });

  it('a link is found by Link/List (fullLink, comment, status, expiry); what the lookup cannot find is failed, not unknown', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'link/create' && n === 3 });
    const urls = [1, 2, 3, 4].map((i) => `https://example.com/lost/${i}`);
    const input = file('links.csv', `fullLink,status,expirationDate,comment\n${urls.map((u) => `${u},inactive,2031-01-31,spring`).join('\n')}\n`);
    const r = await svc.cli(['link', 'create', '--from-file', input, '--concurrency', '1', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    const lost = ndjson(r.stdout).find((x) => x.row === 4)!;
    const links = await all(svc.cli, 'link', 'id,fullLink,shortLink');
    expect(links).toHaveLength(4);
    expect(links.find((l) => l.fullLink === urls[2])).toMatchObject({ id: lost.id, shortLink: lost.shortLink });
    // The search used the journaled day and the shared comment.
    expect(svc.seen.get('link/list')).toBeGreaterThanOrEqual(1);
  });

  it('with --shorten-links the service rewrote the text: the lookup matches it with any link in place of each link', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'message/sendsmsmessage' && n === 1 });
    const input = file('sms.csv', 'recipient,text\n77013334455,"Sale: https://example.com/sale today"\n77013334466,"Sale: https://example.com/sale today"\n');
    const r = await svc.cli(['message', 'send', '--from-file', input, '--shorten-links', '--concurrency', '1', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('2 done (1 of them found by a lookup after their answer was lost)');
    expect(ndjson(r.stdout).map((x) => [x.row, x.state])).toEqual([
      [3, 'done'],
      [2, 'done'],
    ]);
    const sent = await all(svc.cli, 'message', 'to,text');
    expect(sent).toHaveLength(2);
    expect(sent.map((m) => m.text)).toEqual([expect.stringMatching(/^Sale: http:\/\/127\.0\.0\.1:\d+\/\w+ today$/), expect.anything()]);
  });

  it('reading stdin without a journal, the lookup never takes what another row of the run made', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'link/create' && n === 2 });
    // Two identical rows: the first is made and answered, the second is made and its answer lost.
    const stdin = 'fullLink,comment\nhttps://example.com/twin,twin\nhttps://example.com/twin,twin\n';
    const r = await runCli(['link', 'create', '--from-file', '-', '--format', 'csv', '--concurrency', '1', '-o', 'ndjson'], { env: svc.env, stdin });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('2 done (1 of them found by a lookup after their answer was lost)');
    const rows = ndjson(r.stdout);
    const links = await all(svc.cli, 'link', 'id');
    expect(links).toHaveLength(2);
    expect(new Set(rows.map((x) => String(x.id)))).toEqual(new Set(links.map((l) => String(l.id))));
  });

  it('with --no-reconcile the row stays unknown, and the message says how to have it looked up', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'link/create' && n === 1 });
    const input = file('links.csv', 'fullLink\nhttps://example.com/nr\n');
    const r = await svc.cli(['link', 'create', '--from-file', input, '--no-reconcile']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Outcome unknown for row 2: the request may have reached the service; not sent again (lookups are off: --no-reconcile)');
    expect(svc.seen.get('link/list')).toBeUndefined();
    // The rerun looks it up, finds it and sends nothing.
    const rerun = await svc.cli(['link', 'create', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('Of the rows an earlier run left with no answer, a lookup found 1 in the service (done, not sent again).');
    expect(await all(svc.cli, 'link', 'fullLink')).toHaveLength(1);
  });
});

describe('before a rerun sends a row an earlier run left unknown', () => {
  it('identical rows whose answers were lost take one message each', async () => {
    const svc = await emulator({ lose: (op, n) => op === 'message/sendsmsmessage' && n !== 2 });
    // Rows 2 and 4 send the same text to the same number; both answers are lost.
    const input = file('sms.csv', 'recipient,text\n77012223344,same\n77012223355,other\n77012223344,same\n');
    const first = await svc.cli(['message', 'send', '--from-file', input, '--concurrency', '1', '--no-reconcile', '-o', 'ndjson']);
    expect(ndjson(first.stdout).map((x) => [x.row, x.state])).toEqual([
      [2, 'unknown'],
      [3, 'done'],
      [4, 'unknown'],
    ]);
    const rerun = await svc.cli(['message', 'send', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('a lookup found 2 in the service (done, not sent again)');
    expect((await all(svc.cli, 'message', 'to')).filter((m) => m.to === '77012223344')).toHaveLength(2);
  });

  it('a message another row of the journal made is never taken for a lost one', async () => {
    const svc = await emulator();
    const input = file('sms.csv', 'recipient,text\n77012223344,same\n');
    expect((await svc.cli(['message', 'send', '--from-file', input])).code).toBe(0);
    // A second identical row is added, and the journal says its request left (a kill -9 before it did).
    writeFileSync(input, 'recipient,text\n77012223344,same\n77012223344,same\n');
    const { canonical, rowKey } = await import('../../src/bulk/identity.js');
    const values = canonical({ recipient: '77012223344', text: 'same' });
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${input}.journal`, `${JSON.stringify({ row: 3, key: rowKey(values, 2), state: 'sending', at: Date.now(), input: JSON.parse(values) })}\n`);
    // The one message there is row 2's (the journal says so): row 3 was not made, and is sent now.
    const rerun = await svc.cli(['message', 'send', '--from-file', input]);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('a lookup found 0 in the service (done, not sent again) and 1 not there (sent now)');
    expect(await all(svc.cli, 'message', 'to')).toHaveLength(2);
  });

  it('a row the journal marks sending whose request never arrived is found absent and sent', async () => {
    const svc = await emulator();
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\n');
    expect((await svc.cli(['link', 'create', '--from-file', input])).code).toBe(0);
    // What a kill -9 between the journal's `sending` line and the request leaves behind, for a row added since.
    writeFileSync(input, 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n');
    const { canonical, rowKey } = await import('../../src/bulk/identity.js');
    const values = canonical({ fullLink: 'https://example.com/b' });
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${input}.journal`, `${JSON.stringify({ row: 3, key: rowKey(values), state: 'sending', at: Date.now(), input: JSON.parse(values) })}\n`);
    const rerun = await svc.cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('a lookup found 0 in the service (done, not sent again) and 1 not there (sent now)');
    expect(ndjson(rerun.stdout)).toEqual([expect.objectContaining({ row: 3, state: 'done' })]);
    expect((await all(svc.cli, 'link', 'fullLink')).map((l) => l.fullLink).sort()).toEqual(['https://example.com/a', 'https://example.com/b']);
  });

  it('a lookup that fails leaves the row unknown and unsent, and says why', async () => {
    const rec = await startRecordingServer();
    try {
      let created = 0;
      rec.respond((req) => {
        if (req.path.endsWith('Create')) return ++created === 1 ? { status: 502, body: '<html>bad gateway</html>' } : undefined;
        if (req.path.endsWith('List')) return { status: 500, body: '<html>down</html>' };
        return undefined;
      });
      const env = { SMSLINK_BASE_URL: rec.url, SMSLINK_API_KEY: KEY, SMSLINK_RETRIES: '0' };
      const input = file('links.csv', 'fullLink\nhttps://example.com/x\n');
      const first = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
      expect(first.code).toBe(5);
      expect(ndjson(first.stdout)).toEqual([expect.objectContaining({ row: 2, state: 'unknown', error: expect.stringContaining('the lookup failed too') })]);
      const rerun = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
      expect(rerun.code).toBe(5);
      expect(ndjson(rerun.stdout)).toEqual([expect.objectContaining({ row: 2, state: 'unknown', error: expect.stringMatching(/outcome unknown from an earlier run, and the lookup failed \(.*\); not resent/) })]);
      expect(rerun.stderr).toContain('Outcome unknown for row 2: the request may have reached the service, and no lookup could settle it');
      expect(created).toBe(1);
    } finally {
      await rec.close();
    }
  });
});

describe('a lookup that cannot read the whole list', () => {
  it('leaves a lost message unknown instead of taking it as absent and sending it again', async () => {
    const rec = await startRecordingServer();
    try {
      let sent = 0;
      let lists = 0;
      // Every Message/List page is full and the list never ends: none of its messages is the lost one.
      const other = (i: number) => ({ id: String(1_000_000 + i), campaignId: '1', to: '77010000000', text: 'someone else', status: 'DELIVRD' });
      rec.respond((req) => {
        if (/SendSmsMessage$/i.test(req.path)) return ++sent === 1 ? { status: 502, body: 'lost' } : undefined;
        if (/Message\/List$/i.test(req.path)) {
          lists += 1;
          return { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => other(lists * 100 + i)), totalItemCount: '100000000' }, message: '' } };
        }
        return undefined;
      });
      const env = { SMSLINK_BASE_URL: rec.url, SMSLINK_API_KEY: KEY, SMSLINK_RETRIES: '0' };
      const input = file('sms.csv', 'recipient,text\n77011234567,hello\n');
      const r = await runCli(['message', 'send', '--from-file', input, '-o', 'ndjson'], { env });
      expect(r.code).toBe(5);
      expect(ndjson(r.stdout)).toEqual([expect.objectContaining({ row: 2, state: 'unknown', error: expect.stringContaining('too many to look through') })]);
      expect(lists).toBe(500);
      expect(sent).toBe(1);
    } finally {
      await rec.close();
    }
  });
});

describe('output order', () => {
  it('-q and the table print in input order whatever order rows finish in; ndjson prints as they finish, each with its row', async () => {
    // Every third request is slow: the answers come back out of order.
    const svc = await emulator({ delay: (op, n) => (op === 'link/create' && n % 3 === 1 ? 30 : 0) });
    const urls = Array.from({ length: 60 }, (_, i) => `https://example.com/order/${i}`);
    const input = file('links.csv', `fullLink\n${urls.join('\n')}\n`);
    const quiet = await svc.cli(['link', 'create', '--from-file', input, '-q', '--concurrency', '8']);
    expect(quiet.code).toBe(0);
    const byShort = new Map((await all(svc.cli, 'link', 'fullLink,shortLink')).map((l) => [l.shortLink, l.fullLink]));
    expect(quiet.stdout.trim().split('\n').map((s) => byShort.get(s))).toEqual(urls);

    const table = file('table.csv', `fullLink\n${urls.map((u) => `${u}/table`).join('\n')}\n`);
    const shown = await svc.cli(['link', 'create', '--from-file', table, '-o', 'table', '--concurrency', '8', '--no-color']);
    const rowColumn = shown.stdout.trim().split('\n').slice(1).map((line) => Number(line.trim().split(/\s+/)[0]));
    expect(rowColumn).toEqual(urls.map((_, i) => i + 2));

    const other = file('more.csv', `fullLink\n${urls.map((u) => `${u}/nd`).join('\n')}\n`);
    const nd = ndjson((await svc.cli(['link', 'create', '--from-file', other, '-o', 'ndjson', '--concurrency', '8'])).stdout);
    expect(nd.map((x) => x.row)).not.toEqual([...nd.map((x) => Number(x.row))].sort((a, b) => a - b));
    const made = new Map((await all(svc.cli, 'link', 'fullLink,shortLink')).map((l) => [l.shortLink, l.fullLink]));
    for (const x of nd) expect(made.get(x.shortLink)).toBe(`${urls[Number(x.row) - 2]}/nd`);
  });
});

describe('the reorder buffer of -q', () => {
  it('is bounded: behind a slow first row, 999 more rows start, and no further one until it is done', async () => {
    let others = 0;
    let stalledAt = 0;
    emu = await startEmulator({
      port: 0,
      db: ':memory:',
      apiKeys: [KEY],
      hooks: {
        async after(x) {
          if (x.path.toLowerCase() !== 'link/create') return false;
          if (others++ > 0) return false;
          // The first row answers only once the others have stopped coming for half a second.
          for (let last = -1; last !== others; await new Promise((resolve) => setTimeout(resolve, 500))) last = others;
          stalledAt = others - 1;
          return false;
        },
      },
    });
    const urls = Array.from({ length: 1500 }, (_, i) => `https://example.com/window/${i}`);
    const input = file('links.csv', `fullLink\n${urls.join('\n')}\n`);
    const r = await runCli(['link', 'create', '--from-file', input, '-q', '--concurrency', '4'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1500);
    expect(stalledAt).toBe(999);
  });
});

describe('reruns through --fault-rate 0.25 with faults that strike after the operation (reset, 500, 502, truncated)', () => {
  const emulators: RunningEmulator[] = [];
  afterEach(async () => {
    for (const e of emulators.splice(0)) await e.close();
  });

  /** Two emulators on one database: one answers through faults, the other shows what really happened. */
  async function faultyAndClean(faultRate: number, faults: string) {
    const db = join(tempDir(), 'figures.db');
    const faulty = await startEmulator({ port: 0, db, apiKeys: [KEY], faultRate, faults, seed: 16 });
    const clean = await startEmulator({ port: 0, db, apiKeys: [KEY] });
    emulators.push(faulty, clean);
    const through = (url: string) => (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: url, SMSLINK_API_KEY: KEY } });
    return { faulty: through(faulty.url), clean: through(clean.url) };
  }

  /** Runs a bulk command until it exits 0, at most `max` times; returns each run's exit code and summary. */
  async function untilDone(cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>, args: string[], max: number) {
    const runs: Array<{ code: number; summary: string; unknown: number }> = [];
    while (runs.length < max) {
      const r = await cli(args);
      const unknown = ndjson(r.stdout).filter((x) => x.state === 'unknown').length;
      runs.push({ code: r.code, summary: r.stderr.split('\n').find((l) => / of \d+ rows/.test(l)) ?? r.stderr, unknown });
      if (r.code === 0) break;
    }
    return runs;
  }

  function counts(values: unknown[]): Map<string, number> {
    const m = new Map<string, number>();
    for (const v of values) m.set(String(v), (m.get(String(v)) ?? 0) + 1);
    return m;
  }

  const ROWS = 300;

  it('a 300-row message send, rerun until exit 0 (at most 4 runs), ends with one message per recipient and none unknown', async () => {
    const { faulty, clean } = await faultyAndClean(0.25, 'reset,500,502,truncated');
    const numbers = Array.from({ length: ROWS }, (_, i) => `7704${String(1000000 + i)}`);
    const input = join(tempDir(), 'sms.csv');
    writeFileSync(input, `recipient,name\n${numbers.map((n, i) => `${n},client ${i}`).join('\n')}\n`);
    const runs = await untilDone(faulty, ['message', 'send', '--from-file', input, '--text', 'Figure {{name}}', '--concurrency', '8', '-o', 'ndjson'], 4);
    console.log(`message send through faults: ${runs.map((r, i) => `run ${i + 1} exit ${r.code}: ${r.summary}`).join(' | ')}`);
    expect(runs.at(-1)!.code).toBe(0);
    expect(runs.at(-1)!.unknown).toBe(0);
    const listed = ndjson((await clean(['message', 'list', '--all', '-o', 'ndjson', '--fields', 'to,text'])).stdout).filter((m) => String(m.text).startsWith('Figure '));
    const perRecipient = counts(listed.map((m) => m.to));
    expect(listed).toHaveLength(ROWS);
    expect([...perRecipient.keys()].sort()).toEqual(numbers);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
  });

  it('a 300-row link create, rerun until exit 0 (at most 4 runs), ends with one link per fullLink and none unknown', async () => {
    const { faulty, clean } = await faultyAndClean(0.25, 'reset,500,502,truncated');
    const urls = Array.from({ length: ROWS }, (_, i) => `https://example.com/figure/${i}`);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink,comment\n${urls.map((u, i) => `${u},batch ${i % 7}`).join('\n')}\n`);
    const runs = await untilDone(faulty, ['link', 'create', '--from-file', input, '--concurrency', '8', '-o', 'ndjson'], 4);
    console.log(`link create through faults: ${runs.map((r, i) => `run ${i + 1} exit ${r.code}: ${r.summary}`).join(' | ')}`);
    expect(runs.at(-1)!.code).toBe(0);
    expect(runs.at(-1)!.unknown).toBe(0);
    const listed = ndjson((await clean(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'])).stdout);
    const perLink = counts(listed.map((l) => l.fullLink));
    expect(listed).toHaveLength(ROWS);
    expect([...perLink.keys()].sort()).toEqual([...urls].sort());
    expect([...perLink.values()].every((n) => n === 1)).toBe(true);
  });
});
