// The journal beside the input makes a rerun resume: rows are known by their
// content, done rows are skipped, failed and new ones sent, rows of unknown
// outcome never sent twice; a journal of another command or service is
// refused. Against a recording server with a fake service behind it, and
// the emulator for a fixed row.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { BULK_KEY, csvOf, links, ndjson, useBulkService } from '../helpers/bulk-files.js';

const bulk = useBulkService();
const { file } = bulk;

describe('journals', () => {
  it('a rerun skips rows already done and retries failed ones', async () => {
    const input = file('links.csv', csvOf(links(10)));
    bulk.svc.fault((k) => k.endsWith('/p4'), 'code1');
    const first = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(first.code).toBe(5);
    expect(existsSync(`${input}.journal`)).toBe(true);
    const before = bulk.server.requests.length;
    bulk.svc.fault(() => false, 'code1');
    // the fault is still planned for p4: it fails again, nothing else is resent
    const second = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env: bulk.env });
    expect(bulk.server.requests.length - before).toBe(1);
    expect(second.stderr).toContain('9 already done');
    expect(readFileSync(`${input}.journal`, 'utf8')).not.toContain(BULK_KEY);
  });

  it('each request reaches the service only after its row is journaled as sending', async () => {
    const input = file('links.csv', csvOf(links(300)));
    const early: number[] = [];
    bulk.server.respond((req) => {
      // https://example.com/pN is on row N + 1 (the header is row 1).
      const row = Number(/\/p(\d+)$/.exec(new URLSearchParams(req.body).get('data[fullLink]') ?? '')?.[1]) + 1;
      const lines = readFileSync(`${input}.journal`, 'utf8').split('\n').filter(Boolean);
      const entries = lines.map((l) => JSON.parse(l) as { row?: number; state?: string });
      if (!entries.some((e) => e.row === row && e.state === 'sending')) early.push(row);
      return undefined;
    });
    const r = await runCli(['link', 'create', '--from-file', input, '--concurrency', '16'], { env: bulk.env });
    expect(r.code).toBe(0);
    expect(bulk.server.requests).toHaveLength(300);
    expect(early).toEqual([]);
  });

  it('with --no-reconcile, never resends a row whose outcome is unknown, unless --resend-unknown', async () => {
    const recipients = ['77010000001', '77010000002', '77010000003'];
    const input = file('sms.csv', `recipient,text\n${recipients.map((r) => `${r},hello`).join('\n')}\n`);
    bulk.svc.fault((k) => k === '77010000002', 'http502');
    const args = ['message', 'send', '--from-file', input, '-o', 'ndjson', '--no-reconcile'];
    const first = await runCli(args, { env: bulk.env });
    expect(first.code).toBe(5);
    expect(ndjson(first.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'unknown' });
    const second = await runCli(args, { env: bulk.env });
    expect(second.code).toBe(5);
    expect(second.stderr).toContain('Outcome unknown for row 3: the request may have reached the service; not sent again (lookups are off: --no-reconcile)');
    expect(bulk.svc.created.get('77010000002')).toBe(1);
    const third = await runCli([...args, '--resend-unknown'], { env: bulk.env });
    expect(bulk.svc.created.get('77010000002')).toBe(2);
    expect(third.code).toBe(5); // the planned fault answers 502 again
    expect(bulk.svc.created.get('77010000001')).toBe(1);
  });

  it('rows are known by content: after an edit of a full link, an insert and an append, done rows are skipped and the rows not sent before are sent, and the summary says so', async () => {
    const input = file('links.csv', csvOf(links(3)));
    expect((await runCli(['link', 'create', '--from-file', input], { env: bulk.env })).code).toBe(0);
    // Row 3 (p2) is changed, two rows are appended, and a row is inserted before the others.
    writeFileSync(input, `fullLink,comment\nhttps://example.com/first,row 0\nhttps://example.com/p1,row 1\nhttps://example.com/p2-fixed,row 2\nhttps://example.com/p3,row 3\n${csvOf(links(2, 4)).split('\n').slice(1).join('\n')}`);
    const rerun = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env: bulk.env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('link create: 4 done, 2 already done of 6 rows');
    // Another full link is another link, not the same one changed.
    expect(rerun.stderr).toContain('4 rows not sent before: sent.');
    expect(ndjson(rerun.stdout).map((x) => x.row).sort()).toEqual([2, 4, 6, 7]);
    expect([...bulk.svc.created.entries()].sort()).toEqual(
      ['first', 'p1', 'p2', 'p2-fixed', 'p3', 'p4', 'p5'].map((p) => [`https://example.com/${p}`, 1]),
    );
    expect(rerun.stderr).not.toMatch(/delete/i);
  });

  it('a journal of another command (or of the earlier format) is refused, and the message never suggests deleting it', async () => {
    const input = file('links.csv', csvOf(links(2)));
    await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    const sms = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    const other = await runCli(['message', 'send', '--from-file', sms, '--journal', `${input}.journal`], { env: bulk.env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was written by `smslink link create`, not `smslink message send`; give this run its own --journal FILE');
    expect(other.stderr).not.toMatch(/delete/i);
    // A journal of the earlier format, which knew rows by position, cannot say which rows are done.
    const old = file('old.csv', csvOf(links(1)));
    writeFileSync(`${old}.journal`, `${JSON.stringify({ smslinkJournal: 1, command: 'link create', inputHash: 'sha256:x', input: old })}\n{"row":1,"state":"done"}\n`);
    const before = bulk.server.requests.length;
    const v1 = await runCli(['link', 'create', '--from-file', old], { env: bulk.env });
    expect(v1.code).toBe(2);
    expect(v1.stderr).toContain('was written by an earlier smslink, which knew rows by their position in the file');
    expect(v1.stderr).not.toMatch(/delete/i);
    expect(bulk.server.requests.length).toBe(before);
  });

  it('a journal of a run against another service is refused; another flag value or --text makes a row sent before a changed row: held back unless --resend-changed', async () => {
    const input = file('links.csv', csvOf(links(2)));
    const trial = await runCli(['--sandbox', 'link', 'create', '--from-file', input], { env: { SMSLINK_DATA_DIR: tempDir() } });
    expect(trial.code).toBe(0);
    const real = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain(`records a run against sandbox, not ${bulk.server.url}: its rows were sent there, not here. Give this run its own --journal FILE`);
    expect(real.stderr).not.toMatch(/delete/i);
    expect(bulk.server.requests).toHaveLength(0);

    const more = file('more.csv', 'fullLink\nhttps://example.com/x\n');
    expect((await runCli(['link', 'create', '--from-file', more, '--comment', 'spring'], { env: bulk.env })).code).toBe(0);
    const autumn = await runCli(['link', 'create', '--from-file', more, '--comment', 'autumn'], { env: bulk.env });
    expect(autumn.code).toBe(5);
    expect(autumn.stderr).toContain('Held back row 2: an earlier run sent this row with other values, and sending it now would send it twice. Rerun with --resend-changed');
    const forms = () => bulk.server.requests.map((q) => new URLSearchParams(q.body).get('data[comment]'));
    expect(forms()).toEqual(['spring']);
    const resent = await runCli(['link', 'create', '--from-file', more, '--comment', 'autumn', '--resend-changed'], { env: bulk.env });
    expect(resent.code).toBe(0);
    expect(resent.stderr).toContain('1 row sent by an earlier run and changed since: sent again (--resend-changed).');
    expect(forms()).toEqual(['spring', 'autumn']);
    const again = await runCli(['link', 'create', '--from-file', more, '--comment', 'spring'], { env: bulk.env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('1 already done');
    expect(bulk.server.requests).toHaveLength(2);

    const sms = file('sms.csv', 'recipient,name\n77011234567,Ann\n');
    expect((await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}'], { env: bulk.env })).code).toBe(0);
    const reworded = await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}!', '-o', 'ndjson'], { env: bulk.env });
    expect(reworded.code).toBe(5);
    expect(ndjson(reworded.stdout)).toEqual([expect.objectContaining({ row: 2, state: 'held', error: expect.stringContaining('--resend-changed') })]);
    expect(bulk.server.requests.slice(2).map((q) => new URLSearchParams(q.body).get('text'))).toEqual(['Hi Ann']);
  });

  it('--fresh says in plain words that every row is sent again, and does it', async () => {
    const input = file('links.csv', csvOf(links(2)));
    expect((await runCli(['link', 'create', '--from-file', input], { env: bulk.env })).code).toBe(0);
    const fresh = await runCli(['link', 'create', '--from-file', input, '--fresh'], { env: bulk.env });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain('--fresh: every row is sent again, the 2 rows the journal records as done included: what they made before will exist twice');
    expect(bulk.svc.created.get('https://example.com/p1')).toBe(2);
    // After --fresh the journal counts the new run: a plain rerun sends nothing.
    const rerun = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(rerun.stderr).toContain('0 done, 2 already done of 2 rows');
    expect(bulk.svc.created.get('https://example.com/p1')).toBe(2);
  });

  it('the journal names the service by its base URL; one with credentials or a query is refused before any journal is written', async () => {
    const input = file('links.csv', csvOf(links(1)));
    const url = new URL(bulk.server.url);
    const withCredentials = `${url.protocol}//user:pw-in-url@${url.host}/?debug=1`;
    const refused = await runCli(['link', 'create', '--from-file', input], { env: { ...bulk.env, SMSLINK_BASE_URL: withCredentials } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).not.toContain('pw-in-url');
    expect(existsSync(`${input}.journal`)).toBe(false);
    const r = await runCli(['link', 'create', '--from-file', input], { env: { ...bulk.env, SMSLINK_BASE_URL: `${bulk.server.url}/` } });
    expect(r.code).toBe(0);
    const header = JSON.parse(readFileSync(`${input}.journal`, 'utf8').split('\n')[0]) as { target: string };
    expect(header.target).toBe(`${url.protocol}//${url.host}`);
    expect(bulk.server.requests).toHaveLength(1);
  });

  it('refuses a --journal that is the input or not a journal, and leaves that file alone', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\n');
    const notes = file('notes.txt', 'my notes\n');
    const self = await runCli(['link', 'create', '--from-file', input, '--journal', input], { env: bulk.env });
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('--journal must not be the input file itself');
    const other = await runCli(['link', 'create', '--from-file', input, '--journal', notes], { env: bulk.env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not an smslink journal');
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    expect(readFileSync(input, 'utf8')).toBe('fullLink\nhttps://example.com/a\n');
    expect(bulk.server.requests).toHaveLength(0);
  });

  it('code 999 on a send is unknown, and the rerun does not resend it (lookups off)', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    bulk.svc.fault(() => true, 'code999');
    const first = await runCli(['message', 'send', '--from-file', input, '-o', 'ndjson', '--no-reconcile'], { env: bulk.env });
    expect(JSON.parse(first.stdout.trim())).toMatchObject({ row: 2, state: 'unknown' });
    await runCli(['message', 'send', '--from-file', input, '--no-reconcile'], { env: bulk.env });
    expect(bulk.svc.created.get('77011234567')).toBe(1);
  });

  it('a line cut short by a crash does not run into the next one, and makes the journal damaged: the row it does not show as done is looked up first', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n');
    bulk.svc.fault((k) => k.endsWith('/b'), 'code1');
    await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${input}.journal`, '{"row":3,"sta');
    // The rerun journals the row not done as possibly sent, looks it up (not there), then retries it, all after the cut line.
    const rerun = await runCli(['link', 'create', '--from-file', input], { env: bulk.env });
    expect(rerun.stderr).toContain('The journal was damaged (line 6 is cut short)');
    const lines = readFileSync(`${input}.journal`, 'utf8').trim().split('\n');
    const cut = lines.indexOf('{"row":3,"sta');
    expect(cut).toBeGreaterThan(0);
    expect(lines.slice(cut + 1).map((l) => JSON.parse(l) as { row: number; state: string })).toEqual([
      expect.objectContaining({ row: 3, state: 'sending', input: { fullLink: 'https://example.com/b' }, until: expect.any(Number) }),
      expect.objectContaining({ repaired: 'line 6 is cut short' }),
      expect.objectContaining({ row: 3, state: 'failed', error: expect.stringContaining('a lookup found no such link') }),
      expect.objectContaining({ row: 3, state: 'sending', input: { fullLink: 'https://example.com/b' } }),
      expect.objectContaining({ row: 3, state: 'failed' }),
    ]);
    // Dealt with: the next run is not told of it again.
    expect((await runCli(['link', 'create', '--from-file', input], { env: bulk.env })).stderr).not.toContain('damaged');
  });
});

describe('fix a bad row and rerun (emulator)', () => {
  const emulators: RunningEmulator[] = [];
  afterEach(async () => {
    for (const e of emulators.splice(0)) await e.close();
  });

  it('every row exists exactly once: the fixed row is the only one sent, and the summary says so', async () => {
    const emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [BULK_KEY] });
    emulators.push(emu);
    const cli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: BULK_KEY } });
    const urls = Array.from({ length: 20 }, (_, i) => `https://example.com/fix/${i}`);
    const input = join(tempDir(), 'links.csv');
    writeFileSync(input, `fullLink\n${urls.map((u, i) => (i === 7 ? 'example.com/fix/7' : u)).join('\n')}\n`);
    const first = await cli(['link', 'create', '--from-file', input]);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('19 done, 1 invalid of 20 rows');
    writeFileSync(input, `fullLink\n${urls.join('\n')}\n`);
    const rerun = await cli(['link', 'create', '--from-file', input, '-o', 'ndjson']);
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('1 done, 19 already done of 20 rows');
    expect(rerun.stderr).toContain('1 row not sent before: sent.');
    expect(rerun.stderr).not.toMatch(/delete/i);
    expect(ndjson(rerun.stdout)).toEqual([expect.objectContaining({ row: 9, state: 'done' })]);
    const listed = ndjson((await cli(['link', 'list', '--all', '-o', 'ndjson', '--fields', 'fullLink'])).stdout).map((l) => l.fullLink);
    expect(listed.sort()).toEqual([...urls].sort());
  });
});
