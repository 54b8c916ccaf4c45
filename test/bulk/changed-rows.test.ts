// A row already sent is never sent again without being asked: a run
// interrupted, its template or a column edited, then rerun, holds back the
// rows sent before (exit 5, naming them and --resend-changed) and sends the
// rows not sent before; at a terminal it asks once. What makes "the same
// row" (a recipient, a full link) survives rows inserted and moved. Against
// the emulator, which counts what was made, and a recording server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ndjson, useBulkService } from '../helpers/bulk-files.js';
import { KEYS, runInPty, screenText } from '../helpers/pty.js';
import { runCli, runInterrupted, tempDir } from '../helpers/run-cli.js';

const KEY = 'ChangedKey0123456789abcdefABCDEF012345678';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY] });
});
afterAll(() => emu.close());
const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: KEY });
const cli = (args: string[]) => runCli(args, { env: env() });

async function listed(args: string[]): Promise<Array<Record<string, unknown>>> {
  const r = await cli([...args, '--all', '-o', 'ndjson']);
  expect(r.code).toBe(0);
  return r.stdout.trim() ? ndjson(r.stdout) : [];
}

/** How many times each value of `field` occurs. */
function tally(items: Array<Record<string, unknown>>, field: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(String(item[field]), (counts.get(String(item[field])) ?? 0) + 1);
  return counts;
}

const heldRowsOf = (stdout: string) =>
  ndjson(stdout)
    .filter((x) => x.state === 'held')
    .map((x) => Number(x.row));

describe('interrupted, edited, rerun (emulator): one message per recipient, one link per full link', () => {
  it('message send: a corrected --text holds back the rows already sent and sends the others; --resend-changed sends the held ones again', async () => {
    const rows = 200;
    const numbers = Array.from({ length: rows }, (_, i) => `7703${String(1000000 + i)}`);
    const file = join(tempDir(), 'sms.csv');
    writeFileSync(file, `recipient,name\n${numbers.map((n, i) => `${n},Client ${i}`).join('\n')}\n`);
    const send = (text: string, ...more: string[]) => ['message', 'send', '--from-file', file, '--text', text, '--name', 'changed-sms', '--concurrency', '4', ...more];
    expect((await runInterrupted([...send('Helo {{name}}'), '-o', 'ndjson'], 50, env())).code).toBe(130);
    const mine = async () => (await listed(['message', 'list', '--fields', 'to,text'])).filter((m) => numbers.includes(String(m.to)));
    const first = await mine();
    expect(first.length).toBeGreaterThanOrEqual(50);
    expect(first.length).toBeLessThan(rows);

    const rerun = await cli([...send('Hello {{name}}'), '-o', 'ndjson']);
    expect(rerun.code).toBe(5);
    const held = heldRowsOf(rerun.stdout);
    expect(held).toHaveLength(first.length);
    // Row r is recipient r - 2 (the header is row 1): the held rows are exactly those sent before.
    expect(new Set(held.map((r) => numbers[r - 2]))).toEqual(new Set(first.map((m) => String(m.to))));
    expect(rerun.stderr).toContain(`${rows - first.length} rows not sent before: sent.`);
    expect(rerun.stderr).toMatch(new RegExp(`Held back rows [\\d, ]+, \\.\\.\\. \\(${first.length} in all\\): an earlier run sent these rows with other values`));
    expect(rerun.stderr).toContain('Rerun with --resend-changed to send them as they are now.');
    expect(rerun.stderr).not.toMatch(/new rows?/);
    const after = await mine();
    expect(after).toHaveLength(rows);
    expect([...tally(after, 'to').values()].every((n) => n === 1)).toBe(true);

    // The same command again holds the same rows back, and sends nothing.
    const again = await cli(send('Hello {{name}}'));
    expect(again.code).toBe(5);
    expect(await mine()).toHaveLength(rows);

    const resent = await cli([...send('Hello {{name}}', '--resend-changed'), '-o', 'ndjson']);
    expect(resent.code).toBe(0);
    expect(resent.stderr).toContain(`${first.length} rows sent by an earlier run and changed since: sent again (--resend-changed).`);
    const last = await mine();
    expect(last).toHaveLength(rows + first.length);
    const twice = [...tally(last, 'to')].filter(([, n]) => n === 2).map(([to]) => to);
    expect(new Set(twice)).toEqual(new Set(first.map((m) => String(m.to))));
    expect(last.filter((m) => twice.includes(String(m.to))).map((m) => String(m.text).split(' ')[0]).sort()).toEqual([
      ...Array<string>(first.length).fill('Hello'),
      ...Array<string>(first.length).fill('Helo'),
    ]);
    // Nothing is left to send or hold.
    const done = await cli(send('Hello {{name}}'));
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`0 done, ${rows} already done of ${rows} rows`);
  });

  it('link create: an edited comment holds back the links already made and makes the others; --resend-changed makes the held ones again', async () => {
    const rows = 200;
    const urls = Array.from({ length: rows }, (_, i) => `https://example.com/changed/${i}`);
    const file = join(tempDir(), 'links.csv');
    const write = (comment: string) => writeFileSync(file, `fullLink,comment\n${urls.map((u) => `${u},${comment}`).join('\n')}\n`);
    write('changed-links spring');
    const create = ['link', 'create', '--from-file', file, '--concurrency', '4'];
    expect((await runInterrupted([...create, '-o', 'ndjson'], 50, env())).code).toBe(130);
    const mine = () => listed(['link', 'list', '--query', 'changed-links', '--fields', 'fullLink,comment']);
    const first = await mine();
    expect(first.length).toBeGreaterThanOrEqual(50);
    expect(first.length).toBeLessThan(rows);

    write('changed-links autumn');
    const rerun = await cli([...create, '-o', 'ndjson']);
    expect(rerun.code).toBe(5);
    expect(heldRowsOf(rerun.stdout).map((r) => urls[r - 2]).sort()).toEqual(first.map((l) => String(l.fullLink)).sort());
    expect(rerun.stderr).toContain(`${rows - first.length} rows not sent before: sent.`);
    expect(rerun.stderr).toContain('--resend-changed');
    const after = await mine();
    expect(after).toHaveLength(rows);
    expect([...tally(after, 'fullLink').values()].every((n) => n === 1)).toBe(true);

    const resent = await cli([...create, '--resend-changed']);
    expect(resent.code).toBe(0);
    const last = await mine();
    expect(last).toHaveLength(rows + first.length);
    expect(last.filter((l) => l.comment === 'changed-links autumn')).toHaveLength(rows);
  });
});

describe('what makes the same row', () => {
  const bulk = useBulkService();
  const texts = () => bulk.server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body))).map((f) => `${f.recipient}:${f.text}`);

  it('rows inserted, moved, repeated for a recipient, or with a corrected recipient are not sent before, and none is held', async () => {
    const sms = bulk.file('sms.csv', 'recipient,text\n77010000001,A\n77010000002,B\n77010000003,C\n123,D\n');
    const first = await runCli(['message', 'send', '--from-file', sms], { env: bulk.env });
    expect(first.code).toBe(5); // row 5's recipient is too short
    // A row inserted first, the others moved, a second message to 77010000002, row 5's recipient corrected.
    writeFileSync(sms, 'recipient,text\n77010000009,new\n77010000003,C\n77010000001,A\n77010000002,B\n77010000002,B again\n77010000004,D\n');
    const rerun = await runCli(['message', 'send', '--from-file', sms, '-o', 'ndjson'], { env: bulk.env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('3 rows not sent before: sent.');
    expect(texts().slice(3).sort()).toEqual(['77010000002:B again', '77010000004:D', '77010000009:new']);
  });

  it('of two messages to one recipient, the one edited is held back, the other is done', async () => {
    const sms = bulk.file('sms.csv', 'recipient,text\n77010000001,your code 1\n77010000001,your parcel left\n77010000002,your code 2\n');
    expect((await runCli(['message', 'send', '--from-file', sms], { env: bulk.env })).code).toBe(0);
    writeFileSync(sms, 'recipient,text\n77010000001,your code 1\n77010000001,your parcel has left\n77010000002,your code 2\n77010000001,see you\n');
    const rerun = await runCli(['message', 'send', '--from-file', sms, '-o', 'ndjson'], { env: bulk.env });
    expect(rerun.code).toBe(5);
    expect(heldRowsOf(rerun.stdout)).toEqual([3]);
    expect(rerun.stderr).toContain('Held back row 3:');
    // The row after it, to the same recipient, is not sent before: its sent row is paired with row 3 already.
    expect(texts().slice(3)).toEqual(['77010000001:see you']);
  });

  it('a row that failed and was corrected is sent without asking: it was never sent', async () => {
    const sms = bulk.file('sms.csv', 'recipient,text\n77010000001,hi\n77010000002,hi\n');
    let refused = true;
    bulk.svc.fault((k) => refused && k === '77010000002', 'code1');
    expect((await runCli(['message', 'send', '--from-file', sms], { env: bulk.env })).code).toBe(5);
    refused = false;
    writeFileSync(sms, 'recipient,text\n77010000001,hi\n77010000002,hello\n');
    const rerun = await runCli(['message', 'send', '--from-file', sms], { env: bulk.env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('1 row not sent before: sent.');
  });

  it('--fresh sends every row, changed ones included, and asks nothing', async () => {
    const sms = bulk.file('sms.csv', 'recipient,text\n77010000001,hi\n');
    expect((await runCli(['message', 'send', '--from-file', sms], { env: bulk.env })).code).toBe(0);
    writeFileSync(sms, 'recipient,text\n77010000001,hello\n');
    const fresh = await runCli(['message', 'send', '--from-file', sms, '--fresh'], { env: bulk.env });
    expect(fresh.code).toBe(0);
    expect(texts()).toEqual(['77010000001:hi', '77010000001:hello']);
  });

  it('--resend-changed only applies with --from-file', async () => {
    const r = await runCli(['message', 'send', '--to', '77010000001', '--text', 'hi', '--resend-changed'], { env: bulk.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resend-changed only applies with --from-file');
    expect(bulk.server.requests).toHaveLength(0);
  });
});

describe('at a terminal', () => {
  let file = 0;
  /** A file of 3 messages sent with one text, then rerun in a terminal with another. */
  async function changedAt(answer: string) {
    file += 1;
    const numbers = [1, 2, 3].map((n) => `7704${file}00000${n}`);
    const path = join(tempDir(), 'sms.csv');
    writeFileSync(path, `recipient,name\n${numbers.map((n, i) => `${n},Client ${i}`).join('\n')}\n`);
    expect((await cli(['message', 'send', '--from-file', path, '--text', 'Helo {{name}}, see you'])).code).toBe(0);
    const text = 'Hello {{name}}, see you at the shop on Monday: ' + 'the new season is in. '.repeat(6);
    const r = await runInPty(['message', 'send', '--from-file', path, '--text', text, '-q'], {
      env: { ...env(), NO_COLOR: '1' },
      // The estimate of what the file's rows come to is asked first (go on: yes), then the changed rows.
      steps: [
        { waitFor: 'Send 3 messages? [y/N] ', write: `y${KEYS.enter}` },
        { waitFor: 'again? [y/N] ', write: answer },
      ],
      columns: 200,
    });
    const messages = (await listed(['message', 'list', '--fields', 'to,text'])).filter((m) => numbers.includes(String(m.to)));
    return { ...r, screen: screenText(r.output), messages };
  }

  it('asks once for all the changed rows, with how many, a row then and now and the cost; y sends them again', async () => {
    const r = await changedAt(`y${KEYS.enter}`);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen.match(/again\? \[y\/N\]/g)).toHaveLength(1);
    expect(r.screen).toContain('3 rows were sent by an earlier run and have changed since: sending them now sends them twice. For example, row 2 (to 77041000001):');
    expect(r.screen).toContain('  then: text "Helo Client 0, see you"');
    expect(r.screen).toContain('  now:  text "Hello Client 0, see you at the shop on Monday: the new season is in.');
    // Each new text is 180 GSM-7 characters: two segments.
    expect(r.screen).toContain('Sending them again costs 3 messages, 6 segments; the other rows are sent either way.');
    expect(r.screen).toContain('3 rows sent by an earlier run and changed since: sent again (as you answered).');
    expect(r.messages).toHaveLength(6);
  });

  it('n (or Enter) holds them back and sends nothing: exit 5, naming the rows and --resend-changed', async () => {
    for (const answer of [`n${KEYS.enter}`, KEYS.enter]) {
      const r = await changedAt(answer);
      expect(r.code, r.screen).toBe(5);
      expect(r.screen).toContain('Holding them back; the other rows are sent.');
      expect(r.screen).toContain('Held back rows 2, 3, 4: an earlier run sent these rows with other values');
      expect(r.screen).toContain('--resend-changed');
      expect(r.messages).toHaveLength(3);
    }
  });
});
