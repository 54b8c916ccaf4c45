// `smslink message list --status undelivered,rejected` against the emulator:
// the contract's Message/List takes one status, so several are one list each,
// merged in the list's order; --all and --limit work, --page does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedMessageData } from '../../../src/emulator/control/seed.js';
import type { ServiceExchange } from '../../../src/emulator/server.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { runCli, startCli, type RunningCli, type RunOptions } from '../../helpers/run-cli.js';

/**
 * 32 undelivered, 7 rejected, 6 delivered, sent at times out of id order;
 * two pairs (an undelivered and a rejected each) sent at the same second,
 * the oldest of all and among the newest, so that a merge by send time
 * meets a tie across lists.
 */
const SEED: SeedMessageData[] = [
  ...Array.from({ length: 41 }, (_, i) => ({
    to: `7701${String(i).padStart(7, '0')}`,
    text: `message ${i + 1}`,
    status: i % 8 === 3 ? 'REJECTD' : i % 7 === 5 ? 'DELIVRD' : 'UNDELIV',
    ago: ((i * 37) % 41) * 600,
  })),
  ...[30_000, 300].flatMap((ago, p) => [
    { to: `77020000${p}01`, text: `tie ${p} a`, status: 'UNDELIV', ago },
    // `ago` is when the status was reached: a rejection comes a second sooner after sending than a failed delivery.
    { to: `77020000${p}02`, text: `tie ${p} b`, status: 'REJECTD', ago: ago + 1 },
  ]),
];
const count = (status: string) => SEED.filter((m) => m.status === status).length;

let emu: TestEmulator;
/** Message/List requests answered, each as the statuses of its items (one, when it asked for one). */
let listed: string[] = [];
/** A run started with startCli, and how much of its stdout was written when each Message/List was answered. */
let running: RunningCli | undefined;
let shownAtList: number[] = [];
beforeAll(async () => {
  emu = await startTestEmulator({
    seed: { messages: SEED },
    hooks: {
      after({ path }: ServiceExchange, answer) {
        if (!/message\/list/i.test(path)) return false;
        const items = (JSON.parse(answer.body) as { data: { items: Item[] } }).data.items;
        listed.push([...new Set(items.map((m) => m.status))].join(','));
        shownAtList.push(running?.stdout.text.length ?? 0);
        return false;
      },
    },
  });
});
afterAll(() => emu.close());

const cli = (args: string[], opts: RunOptions = {}) => {
  listed = [];
  return runCli(['message', 'list', ...args], { ...opts, env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key } });
};
type Item = { id: number; status: string; startSendTs: string };
const json = (stdout: string) => JSON.parse(stdout) as Item[];

/** Every message of the account in the emulator's order for `sort`, then only those of `statuses`. */
async function expected(statuses: string[], sort: string[] = []): Promise<number[]> {
  const all = await cli(['--all', '-o', 'json', ...sort]);
  return json(all.stdout)
    .filter((m) => statuses.includes(m.status))
    .map((m) => m.id);
}

describe('message list --status with several statuses', () => {
  it('--all streams: the merged rows start before the last page of a list is read', async () => {
    listed = [];
    shownAtList = [];
    running = startCli(['message', 'list', '--status', 'undelivered,rejected', '--all', '--page-size', '25', '-o', 'ndjson'], {
      env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key },
    });
    const r = await running.done;
    running = undefined;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(count('UNDELIV') + count('REJECTD'));
    // A page of each (25 undelivered, 5 rejected), then the second page of undelivered: asked for after 25 rows were out.
    expect(listed).toEqual(['UNDELIV', 'REJECTD', 'UNDELIV']);
    expect(shownAtList.slice(0, 2)).toEqual([0, 0]);
    expect(shownAtList[2]).toBeGreaterThan(0);
  });

  it('--all: one request per status, merged newest first, in json', async () => {
    expect(count('UNDELIV')).toBeGreaterThan(25);
    const r = await cli(['--status', 'undelivered,REJECTD', '--all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(listed.filter((s) => s === 'UNDELIV').length).toBeGreaterThanOrEqual(1);
    expect(new Set(listed)).toEqual(new Set(['UNDELIV', 'REJECTD']));
    const ids = json(r.stdout).map((m) => m.id);
    expect(ids).toHaveLength(count('UNDELIV') + count('REJECTD'));
    expect(ids).toEqual(await expected(['UNDELIV', 'REJECTD']));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('--limit n: the first n of the merged list in the --sort order (ties by id)', async () => {
    const r = await cli(['--status', 'rejected, undelivered', '--sort', 'startSendTs:asc', '--limit', '7', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const items = json(r.stdout);
    expect(items[0].startSendTs).toBe(items[1].startSendTs); // the tie across the two lists
    expect(items.map((m) => m.id)).toEqual((await expected(['UNDELIV', 'REJECTD'], ['--sort', 'startSendTs:asc'])).slice(0, 7));
    expect(items.some((m) => m.status === 'REJECTD')).toBe(true);
    const desc = await cli(['--status', 'undeliv,rejectd', '--sort', 'startSendTs:desc', '--limit', '30', '-q']);
    expect(desc.stdout.trim().split('\n').map(Number)).toEqual((await expected(['UNDELIV', 'REJECTD'], ['--sort', 'startSendTs:desc'])).slice(0, 30));
  });

  it('without --all: the first page of the merged list, and the note says how to see more', async () => {
    const script = await cli(['--status', 'undelivered,rejected', '-o', 'json']);
    expect(script.code).toBe(0);
    expect(json(script.stdout).map((m) => m.id)).toEqual((await expected(['UNDELIV', 'REJECTD'])).slice(0, 25));
    const total = count('UNDELIV') + count('REJECTD');
    expect(script.stderr).toContain(`25 of ${total} messages shown; add --all for every page`);

    const table = await cli(['--status', 'undelivered,rejected', '--no-color'], { tty: true, columns: 80 });
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(25);
    const words = new Set(rows.map((l) => /\b(undelivered|rejected|delivered)\b/.exec(l)?.[1]));
    expect(words).toEqual(new Set(['undelivered', 'rejected']));
    expect(table.stdout + table.stderr).toContain(`Showing 1-25 of ${total} messages. Next: \`--limit ${total}\`, or \`--all\` for every page.`);
  });

  it('one status, typed in a list, is a list of one: one request, --page works', async () => {
    const r = await cli(['--status', 'rejected,REJECTD', '--page', '0', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(listed).toEqual(['REJECTD']);
    expect(json(r.stdout)).toHaveLength(count('REJECTD'));
  });

  it.each([
    ['--page with several statuses says to use --limit or --all', ['--status', 'undelivered,rejected', '--page', '1'], '--page cannot be combined with several --status values (one list each, merged): use --limit <n> for the first n, or --all'],
    ['a mistyped status anywhere in the list is named with a suggestion', ['--status', 'undelivered,delivred', '--all'], '--status: invalid value "delivred" (did you mean delivered?)'],
    ['--status given twice names the comma form', ['--status', 'undelivered', '--status', 'rejected'], '--status was given twice ("undelivered" and "rejected"); for several statuses, give them comma-separated: --status undelivered,rejected'],
  ])('%s: exit 2, and nothing is sent', async (_, args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(listed).toEqual([]);
  });

  it('failed is undelivered, rejected, expired and deleted, as report delivery counts it: a list each, merged', async () => {
    const r = await cli(['--status', 'Failed', '--all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout).map((m) => m.id)).toEqual(await expected(['UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED']));
    // Said with a status of the group, each is asked for once.
    const dry = await cli(['--status', 'failed,undelivered,delivered', '--dry-run', '-o', 'json']);
    expect((JSON.parse(dry.stdout) as Array<{ fields: Record<string, string> }>).map((d) => d.fields['criteria[status]'])).toEqual(['UNDELIV', 'REJECTD', 'EXPIRED', 'DELETED', 'DELIVRD']);
    const help = await cli(['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('failed (UNDELIV, REJECTD, EXPIRED, DELETED), pending (NEW, ENQUEUD, ACCEPTD, PDLIVRD), as report delivery counts them');
    const typo = await cli(['--status', 'faild']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--status: invalid value "faild" (did you mean failed?)');
  });

  it('--dry-run shows the request of each status', async () => {
    const r = await cli(['--status', 'undelivered,rejected', '--dry-run', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout) as Array<{ fields: Record<string, string> }>;
    expect(docs.map((d) => d.fields['criteria[status]'])).toEqual(['UNDELIV', 'REJECTD']);
    expect(listed).toEqual([]);
  });
});

describe('message list --follow --status with several statuses', () => {
  it('prints each new message once it is in one of them, and no other', async () => {
    let lists = 0;
    const live = await startTestEmulator({
      hooks: {
        after({ path }: ServiceExchange) {
          if (/message\/list/i.test(path)) lists++;
          return false;
        },
      },
    });
    /** Waits (generously: the machine is shared) until `n` more lists were answered: a poll asks one per status. */
    const until = async (n: number) => {
      const target = lists + n;
      const deadline = Date.now() + 30_000;
      while (lists < target) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} lists`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const ac = new AbortController();
    try {
      const running = runCli(['message', 'list', '--follow', '--interval', '500ms', '--status', 'undelivered,rejected', '-o', 'ndjson'], {
        signal: ac.signal,
        env: { SMSLINK_BASE_URL: live.url, SMSLINK_API_KEY: live.key },
      });
      const sendTo = async (to: string) => Number(((await live.call('Message/SendSmsMessage', { recipient: to, text: 'hi' })).data as { messageId: string }).messageId);
      await until(1); // following has begun: its start is marked
      const undelivered = await sendTo('77011231111');
      await sendTo('77011232345'); // delivered: not printed
      const rejected = await sendTo('77011230000');
      await until(4);
      live.clock.advance(60_000); // long enough for every final status
      await until(6); // two whole polls after it (the one under way may have asked one status before)
      ac.abort();
      const r = await running;
      expect(r.code, r.stderr).toBe(0);
      const events = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; id: number; status: string });
      // Each once; in id order unless the clock moved between one poll's two lists.
      expect(events.map((e) => [e.event, e.id, e.status]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
        ['new', undelivered, 'UNDELIV'],
        ['new', rejected, 'REJECTD'],
      ]);
    } finally {
      ac.abort(); // a failure above must not leave the follow polling a closed emulator
      await live.close();
    }
  }, 60_000);
});
