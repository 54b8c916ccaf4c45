// `smslink message list --follow` against the emulator on a manual clock:
// a message sent after following starts is printed once, each status change
// after the start once (of messages sent before it too, none already final),
// Ctrl-C ends it with 0 and an auth failure with 4.
//
// Each test has its own emulator, so they run side by side; they wait on what
// the emulator was asked and what was printed, never for a fixed time, and
// move the emulator's clock for deliveries (--interval is the least, 500ms).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it, vi, type TestContext } from 'vitest';
import { FINAL_STATUSES } from '../../../src/catalog/codes.js';
import type { ServiceExchange } from '../../../src/emulator/server.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { binEnv, runCli, startCli, type RunOptions } from '../../helpers/run-cli.js';
import { nextPause } from '../../../src/cli/message/follow.js';

// All at once: the tests spend their time waiting for polls, not on the CPU.
vi.setConfig({ maxConcurrency: 16 });

const BIN = fileURLToPath(new URL('../../../bin/smslink.js', import.meta.url));
const LIST = 'message/list';
const STATUS = 'message/getsmsstatus';

/** Waits (generously: the machine is shared) until `done` holds. */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const records = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** One test's emulator, what it was asked, and switches that make it fail. */
async function world({ onTestFinished }: Pick<TestContext, 'onTestFinished'>) {
  /** Every request answered, in order, by path (`message/list` ...), lower-cased; `503` for one the proxy refused. */
  const seen: string[] = [];
  /** The follow's requests (not the test's sends). */
  const asked = () => seen.filter((p) => !/send/.test(p));
  /** When each List was answered (performance.now()). */
  const listedAt: number[] = [];
  /** How many GetSMSStatus answers had every status final. */
  let finalAnswers = 0;
  const state = {
    /** While set, every service request is answered with code 8 (the key no longer works). */
    refuse: false,
    /** While set, the follow's requests (not the test's sends) get an HTTP 503 from a proxy in the way. */
    outage: false,
  };
  const emu: TestEmulator = await startTestEmulator({
    hooks: {
      before({ res, path }: ServiceExchange) {
        if (state.outage && !/send/i.test(path)) {
          seen.push('503');
          res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Unavailable</body></html>');
          return true;
        }
        if (!state.refuse) return false;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 8, data: null, message: 'failed.api.auth' }));
        return true;
      },
      after({ path }: ServiceExchange, answer) {
        const op = path.toLowerCase();
        seen.push(op);
        if (op === LIST) listedAt.push(performance.now());
        if (op === STATUS) {
          const data = (JSON.parse(answer.body) as { data: { status: string }[] | null }).data ?? [];
          if (data.length && data.every((r) => FINAL_STATUSES.has(r.status))) finalAnswers++;
        }
        return false;
      },
    },
  });
  onTestFinished(() => emu.close());
  const count = (op: string) => seen.filter((p) => p === op).length;

  /**
   * Waits until the poll that made the latest request and `n` more have
   * ended: the List of each answered, then the next poll's first request
   * asked (so whatever a poll prints is out before the test looks).
   */
  async function settle(n = 1): Promise<void> {
    const mark = asked().length - 1;
    await until(() => {
      const now = asked();
      let lists = 0;
      for (let i = Math.max(0, mark); i < now.length - 1; i++) if (now[i] === LIST && ++lists === n + 1) return true;
      return false;
    }, `${n} more polls`);
  }

  return {
    emu,
    state,
    seen,
    asked,
    listedAt,
    count,
    settle,
    /** Sends a message (not through the follow) and gives its id. */
    async send(recipient: string, text = 'hello'): Promise<number> {
      const r = await emu.call('Message/SendSmsMessage', { recipient, text });
      return Number((r.data as { messageId: string }).messageId);
    },
    /** Waits until the follow has taken its starting point (its first List answered). */
    started: (ms = 30_000) => until(() => count(LIST) >= 1, 'the first list', ms),
    /**
     * Once the follow has printed the new message and asked its status, the
     * clock moves on far enough for delivery; waits for the poll that hears
     * the final status and one more after it.
     */
    async deliver(): Promise<void> {
      await until(() => count(STATUS) >= 1, 'a poll asking the new message\'s status');
      emu.clock.advance(60_000);
      await until(() => finalAnswers >= 1, 'the final status');
      await settle(1);
    },
    /** Starts `message list --follow` in-process; stop() presses Ctrl-C and gives the run's result. */
    follow(args: string[], opts: RunOptions = {}) {
      const ac = new AbortController();
      // A test that fails before stop() must not leave the follow polling a closed emulator for the rest of the run.
      onTestFinished(() => ac.abort());
      const cli = startCli(['message', 'list', '--follow', '--interval', '500ms', ...args], {
        ...opts,
        signal: ac.signal,
        env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, ...opts.env },
      });
      return { ...cli, stop: () => (ac.abort(), cli.done) };
    },
    /** Follows with `args`, sends one message once following has started, sees it to its final status, then presses Ctrl-C. */
    async followOne(args: string[], recipient: string, text?: string, opts: RunOptions = {}) {
      const f = this.follow(args, opts);
      await this.started();
      const id = await this.send(recipient, text);
      await this.deliver();
      return { id, r: await f.stop() };
    },
  };
}

describe.concurrent('message list --follow', () => {
  it('prints a message sent after it starts once, then its status change once; Ctrl-C exits 0', async (t) => {
    const { expect } = t;
    const w = await world(t);
    // Delivered before the start: nothing of it is printed.
    const before = await w.send('77011230001', 'sent before');
    w.emu.clock.advance(60_000);
    const { id, r } = await w.followOne(['-o', 'ndjson'], '77011234567', 'Your code is 4711');
    expect(r.code).toBe(0);
    const events = records(r.stdout);
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ['new', id],
      ['status', id],
    ]);
    expect(events[0]).toMatchObject({ event: 'new', to: '77011234567', text: 'Your code is 4711', status: 'NEW' });
    expect(events[1]).toMatchObject({ event: 'status', previousStatus: 'NEW', status: 'DELIVRD', text: 'Your code is 4711' });
    expect(events.some((e) => e.id === before)).toBe(false);
    // The printed message was asked about at each poll while not final (twice: NEW, then DELIVRD), and no more once it was final.
    // Exactly twice holds because followOne moves the clock within 20 ms of the first question (its `until` ticks), long
    // before the follow's next poll (750 ms later): both run in this process, so the order is the event loop's, not the machine's.
    const asked = w.asked();
    expect(asked.filter((p) => p === STATUS)).toHaveLength(2);
    expect(asked.slice(asked.lastIndexOf(STATUS)).filter((p) => p === LIST).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('--status prints a message sent before the start as it reaches the status after it, once; none final before', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const undeliveredBefore = await w.send('77015551111', 'undelivered before the start');
    w.emu.clock.advance(60_000);
    // Sent a moment before following starts, undelivered seconds after; and one delivered then, not printed.
    const sentBefore = await w.send('77015551111', 'undelivered after the start');
    await w.send('77015552345', 'delivered after the start');
    const f = w.follow(['--status', 'undelivered', '-o', 'ndjson']);
    await w.started();
    await w.deliver();
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    const events = records(r.stdout);
    expect(events).toEqual([expect.objectContaining({ event: 'status', id: sentBefore, status: 'UNDELIV', previousStatus: 'NEW', text: 'undelivered after the start' })]);
    expect(events.some((e) => e.id === undeliveredBefore)).toBe(false);
    const asked = w.asked();
    // One list at the start, then the polls (each asks the statuses first).
    expect(asked.slice(0, 3)).toEqual([LIST, STATUS, LIST]);
    // Final, it is asked about no more: the last status question came before the last two lists.
    expect(asked.slice(asked.lastIndexOf(STATUS)).filter((p) => p === LIST).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('filters choose the messages from before the start too (--to); the account\'s newest message still marks the start', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const before = await w.send('77019991111', 'to the number followed');
    await w.send('77011231111', 'to another number');
    const f = w.follow(['-o', 'ndjson', '--to', '7701999']);
    await w.started();
    await w.deliver();
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout)).toEqual([expect.objectContaining({ event: 'status', id: before, to: '77019991111', status: 'UNDELIV', previousStatus: 'NEW' })]);
    // The messages --to chooses, and the account's newest (a filter's own newest may be older than messages that come to match it).
    expect(w.asked().slice(0, 3)).toEqual([LIST, LIST, STATUS]);
  }, 60_000);

  it('a message sent before the start that comes to match a filter is not new (--campaign-status DONE)', async (t) => {
    const { expect } = t;
    const w = await world(t);
    await w.send('77011234567', 'done before the start');
    w.emu.clock.advance(60_000);
    // Not final at the start, so not chosen by --campaign-status DONE then; its campaign is done after the start.
    const cameToMatch = await w.send('77011234567', 'done after the start');
    const f = w.follow(['-o', 'ndjson', '--campaign-status', 'DONE']);
    await w.started();
    const after = await w.send('77011239999', 'sent after the start');
    await until(() => w.count(LIST) >= 3, 'the first poll');
    w.emu.clock.advance(60_000);
    await until(() => f.stdout.text.includes('"new"'), 'the message sent after the start');
    await w.settle(2);
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout)).toEqual([expect.objectContaining({ event: 'new', id: after, status: 'DELIVRD' })]);
    expect(cameToMatch).toBeLessThan(after);
  }, 60_000);

  it('without --status, prints each status change after the start of a message sent before it', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const sentBefore = await w.send('77011234567', 'on its way');
    const f = w.follow(['-o', 'ndjson']);
    await w.started();
    await w.deliver();
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(records(r.stdout)).toEqual([expect.objectContaining({ event: 'status', id: sentBefore, status: 'DELIVRD', previousStatus: 'NEW' })]);
  }, 60_000);

  it('--status failed follows undelivered, rejected, expired and deleted; -q gives each id once, from before the start too', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const sentBefore = await w.send('77015551111');
    const f = w.follow(['--status', 'failed', '-q']);
    await w.started();
    const rejected = await w.send('77015550000');
    await w.send('77015552345'); // delivered: not printed
    await until(() => w.count(STATUS) >= 1, 'a poll asking the status of the one sent before');
    w.emu.clock.advance(60_000);
    await until(() => f.stdout.text.trim().split('\n').length >= 2, 'both ids');
    // A poll asks four lists (one per status of the group): two whole polls more, and nothing more is printed.
    await w.settle(8);
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map(Number).sort((a, b) => a - b)).toEqual([sentBefore, rejected]);
  }, 60_000);

  it('json is written as one object per line; filters choose the new messages', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const f = w.follow(['--json', '--to', '7701999']);
    await w.started();
    await w.send('77011234567', 'not this one');
    const id = await w.send('77019990000', 'rejected one');
    await w.deliver();
    const r = await f.stop();
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((e) => [e.event, e.id, e.status])).toEqual([
      ['new', id, 'NEW'],
      ['status', id, 'REJECTD'],
    ]);
  }, 60_000);

  it('csv has an event column, and previousStatus where asked for', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const { id, r: csv } = await w.followOne(['-o', 'csv', '--fields', 'id,status,previousStatus'], '77015550000');
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(`event,id,status,previousStatus\nnew,${id},NEW,\nstatus,${id},REJECTD,NEW\n`);
  }, 60_000);

  it('--with-number-info adds country and operator to csv, as message list has them', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const { id, r: csv } = await w.followOne(['-o', 'csv', '--with-number-info'], '77011234567');
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...rows] = csv.stdout.trimEnd().split('\n');
    expect(header).toBe('event,id,to,from,status,previousStatus,segNum,startSendTs,statusUpdateTs,text,countryA2,operatorName');
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(new RegExp(`^(new|status),${id},77011234567,.*,hello,KZ,Kcell$`));
  }, 60_000);

  it('-q prints the id of each new message, once, and no status changes', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const { id, r } = await w.followOne(['-q'], '77011234567');
    expect(r).toMatchObject({ code: 0, stdout: `${id}\n` });
  }, 60_000);

  it('--jq filters each record as it comes', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const { id, r } = await w.followOne(['--jq', 'select(.event == "status") | "\\(.id) \\(.previousStatus) -> \\(.status)"'], '77011231111');
    expect(r).toMatchObject({ code: 0, stdout: `${id} NEW -> UNDELIV\n` });
  }, 60_000);

  it('at a terminal prints a line per event, new and status told apart', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const text = 'A text long enough that it has to be cut at one hundred columns, as the terminal is that wide and no more';
    const { id, r } = await w.followOne(['--no-color'], '77011234567', text, { tty: true, columns: 100 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    // Statuses in the words every screen uses, times to the minute as in every table.
    // A time not there yet is `-` as wide as a time: the columns after it line up.
    expect(lines[0]).toMatch(new RegExp(`^- {15}  new     ${id}  to 77011234567 from \\S+  new  A text long enough .*…$`));
    expect(lines[0].length).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  status  ${id}  new -> delivered$`));
    expect(lines[0].indexOf('new ')).toBe(lines[1].indexOf('status'));
    expect(r.stderr).toContain('Following messages');
  }, 60_000);

  it('at 80 columns a long status leaves the text on the line, cut to fit; the sender gives way first', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const f = w.follow(['--no-color', '--status', 'partly-delivered'], { tty: true, columns: 80 });
    await w.started();
    const text = 'Your order 4711 is on its way: track it at the link below';
    // Partly delivered 4 s after sending, delivered at 6 s (the emulator's test number ending 3333).
    const id = await w.send('77015553333', text);
    w.emu.clock.advance(5_000);
    await until(() => f.stdout.text.includes('\n'), 'the new line');
    const r = await f.stop();
    expect(r.code, r.stderr).toBe(0);
    const [first] = r.stdout.split('\n');
    expect(first).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  new     ${id}  to 77015553333  partly delivered  Your order .*…$`));
    expect(first.length).toBeLessThanOrEqual(80);
  }, 60_000);

  it('stops at the first auth failure with exit 4 and the usual message', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const f = w.follow(['-o', 'ndjson']);
    await w.started();
    w.state.refuse = true;
    const r = await f.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/code 8 \(authentication failed/);
  }, 60_000);

  it('outlasts an outage (HTTP 503 after the retries), saying so once, and prints what came meanwhile', async (t) => {
    const { expect } = t;
    const w = await world(t);
    const f = w.follow(['-o', 'ndjson', '--retries', '0']);
    await w.started();
    w.state.outage = true;
    await until(() => w.count('503') >= 2, 'two failed polls');
    const id = await w.send('77011234567');
    w.state.outage = false;
    await until(() => f.stderr.text.includes('answers again') && f.stdout.text.includes('"new"'), 'the poll after the outage');
    await w.settle(1);
    const r = await f.stop();
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([expect.objectContaining({ event: 'new', id })]);
    expect(r.stderr.match(/warning: .*HTTP 503.*; still following/g)).toHaveLength(1);
    expect(r.stderr.match(/The service answers again; still following\./g)).toHaveLength(1);
  }, 60_000);

  it('asks less often while nothing changes (1.5 times longer each time, up to 10s), and at once again after activity', async (t) => {
    const { expect } = t;
    expect([1000, 1500, 2250, 3375, 5063, 7595, 10_000].map((p) => nextPause(p, 1000, false))).toEqual([1500, 2250, 3375, 5063, 7595, 10_000, 10_000]);
    expect(nextPause(10_000, 1000, true)).toBe(1000);
    // An --interval longer than 10s stays as given.
    expect(nextPause(30_000, 30_000, false)).toBe(30_000);
    // Idle from 500ms: the follow's Lists come at least 500, 750, then 1125 ms apart (a few ms of timer rounding allowed).
    const w = await world(t);
    const f = w.follow(['-o', 'ndjson']);
    await until(() => w.listedAt.length >= 4, 'three idle polls');
    await f.stop();
    const gaps = w.listedAt.slice(1, 4).map((at, i) => at - w.listedAt[i]);
    [500, 750, 1125].forEach((pause, i) => expect(gaps[i]).toBeGreaterThanOrEqual(pause - 5));
  }, 60_000);

  it('refuses flags that choose pages or order, and --interval without --follow (exit 2, nothing sent)', async (t) => {
    const { expect } = t;
    const { emu, seen } = await world(t);
    const env = { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key };
    for (const [args, message] of [
      [['--follow', '--all'], '--follow reads the newest messages itself; it cannot be combined with --all'],
      [['--follow', '--sort', 'to'], 'it cannot be combined with --sort'],
      [['--follow', '--interval', '100ms'], '--interval: invalid value "100ms": must be from 500ms to 1h'],
      [['--interval', '2s'], '--interval applies only with --follow'],
    ] as const) {
      const r = await runCli(['message', 'list', ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    const dry = await runCli(['message', 'list', '--follow', '--to', '7701', '--dry-run', '-o', 'json'], { env });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).fields).toMatchObject({ 'criteria[to]': '7701', 'pagination[pageSize]': '100', 'sort[campaignId]': 'DESC' });
    expect(seen).toEqual([]);
  });

  it("ends cleanly under `| head -1` with pipefail (exit 0)", async (t) => {
    const { expect } = t;
    const { emu, send, started } = await world(t);
    const child = spawn('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" message list --follow -o ndjson --interval 500ms | head -1`], {
      env: binEnv({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const closed = once(child, 'close');
    let exited = false;
    void closed.then(() => (exited = true));
    // A message now and then: the first line goes to head, a later write finds the pipe closed.
    await started(60_000);
    for (let i = 0; !exited && i < 200; i++) {
      await send(`7701123${String(i).padStart(4, '0')}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    const [code] = (await closed) as [number];
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(records(out)).toEqual([expect.objectContaining({ event: 'new' })]);
  }, 90_000);
});
