// `smslink message list --follow` against the emulator on a manual clock:
// a message sent after following starts is printed once, each status change
// once, Ctrl-C ends it with 0 and an auth failure with 4.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceExchange } from '../../src/emulator/server.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { binEnv, runCli, type RunOptions } from '../helpers/run-cli.js';
import { nextPause } from '../../src/cli/follow.js';

const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));

let emu: TestEmulator;
/** Requests the emulator has answered, by path (`message/list` ...), lower-cased. */
let seen: string[];
/** While set, every service request is answered with code 8 (the key no longer works). */
let refuse = false;
/** While set, the follow's requests (not the test's sends) get an HTTP 503 from a proxy in the way. */
let outage = false;

beforeEach(async () => {
  seen = [];
  refuse = false;
  outage = false;
  emu = await startTestEmulator({
    hooks: {
      before({ res, path }: ServiceExchange) {
        if (outage && !/send/i.test(path)) {
          seen.push('503');
          res.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Unavailable</body></html>');
          return true;
        }
        if (!refuse) return false;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 8, data: null, message: 'failed.api.auth' }));
        return true;
      },
      after({ path }: ServiceExchange) {
        seen.push(path.toLowerCase());
        return false;
      },
    },
  });
});
afterEach(() => emu.close());

const lists = () => seen.filter((p) => p === 'message/list').length;

/** Waits (generously: the machine is shared) until `done` holds. */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the follow has finished `n` more polls (a poll's List answered, then the next one asked). */
async function polls(n: number): Promise<void> {
  const target = lists() + n + 1;
  await until(() => lists() >= target, `${n} polls`);
}

function send(recipient: string, text = 'hello') {
  return emu.call('Message/SendSmsMessage', { recipient, text });
}

/** Starts `message list --follow` in-process; stop() presses Ctrl-C and gives the run's result. */
function follow(args: string[], opts: RunOptions = {}) {
  const ac = new AbortController();
  const running = runCli(['message', 'list', '--follow', '--interval', '500ms', ...args], {
    ...opts,
    signal: ac.signal,
    env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key, ...opts.env },
  });
  return {
    running,
    stop: () => (ac.abort(), running),
  };
}

const records = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('message list --follow', () => {
  it('prints a message sent after it starts once, then its status change once; Ctrl-C exits 0', async () => {
    const before = await send('77011230001', 'sent before');
    const f = follow(['-o', 'ndjson']);
    await until(() => lists() >= 1, 'the first list');
    const sent = await send('77011234567', 'Your code is 4711');
    const id = Number((sent.data as { messageId: string }).messageId);
    await polls(2);
    emu.clock.advance(60_000); // long enough for delivery
    await polls(3);
    const r = await f.stop();
    expect(r.code).toBe(0);
    const events = records(r.stdout);
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ['new', id],
      ['status', id],
    ]);
    expect(events[0]).toMatchObject({ event: 'new', to: '77011234567', text: 'Your code is 4711', status: 'NEW' });
    expect(events[1]).toMatchObject({ event: 'status', previousStatus: 'NEW', status: 'DELIVRD', text: 'Your code is 4711' });
    expect(events.some((e) => e.id === Number((before.data as { messageId: string }).messageId))).toBe(false);
    // Only the printed message not yet final was asked about, and no more once it was final.
    const statusAsks = seen.filter((p) => p === 'message/getsmsstatus').length;
    expect(statusAsks).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('json is written as one object per line; csv has an event column; filters choose the new messages', async () => {
    const f = follow(['--json', '--to', '7701999']);
    await until(() => lists() >= 1, 'the first list');
    await send('77011234567', 'not this one');
    const sent = await send('77019990000', 'rejected one');
    await polls(2);
    emu.clock.advance(60_000);
    await polls(3);
    const r = await f.stop();
    expect(r.code).toBe(0);
    const id = Number((sent.data as { messageId: string }).messageId);
    expect(records(r.stdout).map((e) => [e.event, e.id, e.status])).toEqual([
      ['new', id, 'NEW'],
      ['status', id, 'REJECTD'],
    ]);

    const listed = lists();
    const c = follow(['-o', 'csv', '--fields', 'id,status,previousStatus']);
    await until(() => lists() > listed, 'the first list');
    const next = await send('77015550000');
    await polls(2);
    emu.clock.advance(60_000);
    await polls(3);
    const csv = await c.stop();
    const nextId = (next.data as { messageId: string }).messageId;
    expect(csv.stdout).toBe(`event,id,status,previousStatus\nnew,${nextId},NEW,\nstatus,${nextId},REJECTD,NEW\n`);
  }, 90_000);

  it('-q prints the id of each new message, once, and no status changes', async () => {
    const f = follow(['-q']);
    await until(() => lists() >= 1, 'the first list');
    const id = ((await send('77011234567')).data as { messageId: string }).messageId;
    await polls(2);
    emu.clock.advance(60_000);
    await polls(3);
    const r = await f.stop();
    expect(r).toMatchObject({ code: 0, stdout: `${id}\n` });
  }, 60_000);

  it('--jq filters each record as it comes', async () => {
    const f = follow(['--jq', 'select(.event == "status") | "\\(.id) \\(.previousStatus) -> \\(.status)"']);
    await until(() => lists() >= 1, 'the first list');
    const id = (await send('77011231111')).data as { messageId: string };
    await polls(2);
    emu.clock.advance(60_000);
    await polls(3);
    const r = await f.stop();
    expect(r).toMatchObject({ code: 0, stdout: `${id.messageId} NEW -> UNDELIV\n` });
  }, 60_000);

  it('at a terminal prints a line per event, new and status told apart', async () => {
    const f = follow(['--no-color'], { tty: true, columns: 100 });
    await until(() => lists() >= 1, 'the first list');
    const sent = await send('77011234567', 'A text long enough that it has to be cut at one hundred columns, as the terminal is that wide and no more');
    const id = (sent.data as { messageId: string }).messageId;
    await polls(2);
    emu.clock.advance(60_000);
    await polls(3);
    const r = await f.stop();
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^-  new     ${id}  to 77011234567 from \\S+  NEW  A text long enough .*…$`));
    expect(lines[0].length).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  status  ${id}  NEW -> DELIVRD$`));
    expect(r.stderr).toContain('Following messages');
  }, 60_000);

  it('stops at the first auth failure with exit 4 and the usual message', async () => {
    const f = follow(['-o', 'ndjson']);
    await until(() => lists() >= 1, 'the first list');
    refuse = true;
    const r = await f.running;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/code 8 \(authentication failed/);
  }, 60_000);

  it('outlasts an outage (HTTP 503 after the retries), saying so once, and prints what came meanwhile', async () => {
    const f = follow(['-o', 'ndjson', '--retries', '0']);
    await until(() => lists() >= 1, 'the first list');
    outage = true;
    await until(() => seen.filter((p) => p === '503').length >= 2, 'two failed polls');
    const sent = await send('77011234567');
    outage = false;
    const id = Number((sent.data as { messageId: string }).messageId);
    await until(() => lists() >= 3, 'polls after the outage');
    await polls(1);
    const r = await f.stop();
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([expect.objectContaining({ event: 'new', id })]);
    expect(r.stderr.match(/warning: .*HTTP 503.*; still following/g)).toHaveLength(1);
    expect(r.stderr).toContain('The service answers again; still following.');
  }, 90_000);

  it('asks less often while nothing changes (1.5 times longer each time, up to 10s), and at once again after activity', async () => {
    expect([1000, 1500, 2250, 3375, 5063, 7595, 10_000].map((p) => nextPause(p, 1000, false))).toEqual([1500, 2250, 3375, 5063, 7595, 10_000, 10_000]);
    expect(nextPause(10_000, 1000, true)).toBe(1000);
    // An --interval longer than 10s stays as given.
    expect(nextPause(30_000, 30_000, false)).toBe(30_000);
    // Idle for 6 s from 500ms: 500, 750, 1125, 1688, 2531 ms pauses make 5 polls at most; without back-off there would be 12.
    const f = follow(['-o', 'ndjson']);
    await until(() => lists() >= 1, 'the first list');
    const from = lists();
    await new Promise((r) => setTimeout(r, 6000));
    const idle = lists() - from;
    await f.stop();
    expect(idle).toBeLessThanOrEqual(6);
  }, 60_000);

  it('refuses flags that choose pages or order, and --interval without --follow (exit 2, nothing sent)', async () => {
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

  it("ends cleanly under `| head -1` with pipefail (exit 0)", async () => {
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
    await until(() => lists() >= 1, 'the first list', 60_000);
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
