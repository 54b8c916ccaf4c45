// Bulk create and send from files: validation first, streaming results,
// journals that make reruns resume without sending anything twice.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { fakeService, type FakeService } from '../helpers/fake-service.js';

let server: RecordingServer;
let svc: FakeService;
let env: Record<string, string>;
let dir: string;
const KEY = 'BulkKey0123456789abcdefABCDEF0123456789ab';

beforeEach(async () => {
  server = await startRecordingServer();
  svc = fakeService(server);
  env = { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY };
  dir = tempDir();
});
afterEach(() => server.close());

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const links = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `https://example.com/p${from + i}`);
const csvOf = (urls: string[]) => `fullLink,comment\n${urls.map((u, i) => `${u},row ${i + 1}`).join('\n')}\n`;
const ndjson = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('link create --from-file', () => {
  it('creates one link per CSV row and streams results with row numbers', async () => {
    const input = file('links.csv', csvOf(links(25)));
    const r = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(25);
    // Spreadsheet rows: the header is row 1.
    expect(rows.map((x) => x.row).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
    expect(rows.every((x) => x.state === 'done' && typeof x.shortLink === 'string')).toBe(true);
    expect([...svc.created.values()].every((n) => n === 1)).toBe(true);
    expect(svc.created.size).toBe(25);
    expect(r.stderr).toContain('link create: 25 done of 25 rows');
  });

  it('reads NDJSON (by extension) and stdin (with --format)', async () => {
    const input = file('links.ndjson', '{"fullLink":"https://example.com/a","status":"inactive"}\n\n{"fullLink":"www.example.com/b","expirationDate":"2027-01-01"}\n');
    expect((await runCli(['link', 'create', '--from-file', input], { env })).code).toBe(0);
    expect(server.requests.map((q) => decodeURIComponent(q.body))).toEqual([
      'data[fullLink]=https://example.com/a&data[status]=0',
      'data[fullLink]=www.example.com/b&data[expirationDate]=2027-01-01',
    ]);
    const piped = await runCli(['link', 'create', '--from-file', '-', '--format', 'csv', '-q'], { env, stdin: 'fullLink\nhttps://example.com/c\n' });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^https:\/\/sho\.rt\/c\d+\n$/);
    expect(piped.stderr).toContain('cannot be resumed; pass --journal FILE');
  });

  it('--validate-only reports every bad row with its column and rule, and sends nothing', async () => {
    const input = file('links.csv', 'fullLink,status,expirationDate,comment\nhttps://example.com/ok,,,\nnot-a-url,,,\nhttps://example.com/x,maybe,2026-02-30,\n');
    const r = await runCli(['link', 'create', '--from-file', input, '--validate-only', '-o', 'csv'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      'row,column,error\n' +
        '3,fullLink,must be a URL with a scheme (https://...) or starting with www.\n' +
        '4,status,must be 0 or 1\n' +
        '4,expirationDate,must be a real date written YYYY-MM-DD\n',
    );
    expect(r.stderr).toContain('3 rows checked: 1 valid, 2 invalid. Nothing was sent.');
    expect(server.requests).toHaveLength(0);
  });

  it('skips bad rows, sends the rest and exits 5', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/1\nbad\nhttps://example.com/3\n');
    const r = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
    expect(r.code).toBe(5);
    expect(ndjson(r.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'invalid', error: expect.stringContaining('column fullLink') });
    expect(svc.created.size).toBe(2);
  });

  it('keeps at most --concurrency requests in flight', async () => {
    svc.delayMs = 20;
    const input = file('links.csv', csvOf(links(40)));
    await runCli(['link', 'create', '--from-file', input, '--concurrency', '3'], { env });
    expect(svc.inFlight.max).toBe(3);
  });

  it('each request reaches the service only after its row is journaled as sending', async () => {
    const input = file('links.csv', csvOf(links(300)));
    const early: number[] = [];
    server.respond((req) => {
      // https://example.com/pN is on row N + 1 (the header is row 1).
      const row = Number(/\/p(\d+)$/.exec(new URLSearchParams(req.body).get('data[fullLink]') ?? '')?.[1]) + 1;
      const lines = readFileSync(`${input}.journal`, 'utf8').split('\n').filter(Boolean);
      const entries = lines.map((l) => JSON.parse(l) as { row?: number; state?: string });
      if (!entries.some((e) => e.row === row && e.state === 'sending')) early.push(row);
      return undefined;
    });
    const r = await runCli(['link', 'create', '--from-file', input, '--concurrency', '16'], { env });
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(300);
    expect(early).toEqual([]);
  });

  it('--rate bounds requests per second', async () => {
    const input = file('links.csv', csvOf(links(12)));
    const started = Date.now();
    await runCli(['link', 'create', '--from-file', input, '--rate', '5', '--concurrency', '8'], { env });
    // 12 requests at 5 per second need at least two full intervals.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('draws a progress bar on a terminal from the start: finished/total, rate, ETA, done, failed, unknown, in flight', async () => {
    svc.delayMs = 20; // the bar is redrawn every 100 ms
    const input = file('links.csv', csvOf(links(30)));
    const r = await runCli(['link', 'create', '--from-file', input, '--no-color', '-q', '--concurrency', '2'], { env, tty: true });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\r\x1b[2K').filter(Boolean);
    const bar = /^\[[█░]{24}\] (\d+)\/30 {2}[\d.]+\/s {2}ETA \S+ {2}(\d+) done {2}0 failed {2}0 unknown {2}(\d+) in flight$/;
    expect(lines[0]).toMatch(bar);
    expect(bar.exec(lines[0])!.slice(1, 3)).toEqual(['0', '0']);
    expect(lines.some((line) => Number(bar.exec(line)?.[3]) === 2)).toBe(true);
  });

  it('the progress bar counts rows of unknown outcome apart from failed ones', async () => {
    const input = file('sms.csv', `recipient,text\n${Array.from({ length: 30 }, (_, i) => `770100000${String(i + 10)},hello`).join('\n')}\n`);
    svc.fault((k) => k === '77010000012', 'http502');
    svc.delayMs = 20; // the bar is redrawn at most every 100 ms
    // Without lookups (--no-reconcile) the row stays unknown.
    const r = await runCli(['message', 'send', '--from-file', input, '--no-color', '-q', '--concurrency', '1', '--no-reconcile'], { env, tty: true });
    expect(r.code).toBe(5);
    const lines = r.stderr.split('\r\x1b[2K');
    expect(lines.some((line) => / 0 failed {2}1 unknown {2}\d in flight$/.test(line))).toBe(true);
    expect(lines.some((line) => / 1 failed/.test(line))).toBe(false);
  });

  it('refuses bulk flags without --from-file, and --from-file with a URL', async () => {
    expect((await runCli(['link', 'create', 'https://example.com', '--journal', 'x'], { env })).code).toBe(2);
    for (const flag of ['--fresh', '--no-reconcile']) {
      const r = await runCli(['message', 'send', '--to', '77011234567', '--text', 'hi', flag], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag} only applies with --from-file`);
    }
    expect((await runCli(['link', 'create', 'https://example.com', '--from-file', 'x.csv'], { env })).code).toBe(2);
    const nohdr = await runCli(['link', 'create', '--from-file', file('x.csv', 'url\nhttps://e.com\n')], { env });
    expect(nohdr.code).toBe(2);
    expect(nohdr.stderr).toContain('the input has no fullLink column (columns: url)');
    const ext = await runCli(['link', 'create', '--from-file', file('x.txt', '')], { env });
    expect(ext.stderr).toContain('cannot tell the format of "x.txt"');
  });
});

describe('journals', () => {
  it('a rerun skips rows already done and retries failed ones', async () => {
    const input = file('links.csv', csvOf(links(10)));
    svc.fault((k) => k.endsWith('/p4'), 'code1');
    const first = await runCli(['link', 'create', '--from-file', input], { env });
    expect(first.code).toBe(5);
    expect(existsSync(`${input}.journal`)).toBe(true);
    const before = server.requests.length;
    svc.fault(() => false, 'code1');
    // the fault is still planned for p4: it fails again, nothing else is resent
    const second = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
    expect(server.requests.length - before).toBe(1);
    expect(second.stderr).toContain('9 already done');
    expect(readFileSync(`${input}.journal`, 'utf8')).not.toContain(KEY);
  });

  it('with --no-reconcile, never resends a row whose outcome is unknown, unless --resend-unknown', async () => {
    const recipients = ['77010000001', '77010000002', '77010000003'];
    const input = file('sms.csv', `recipient,text\n${recipients.map((r) => `${r},hello`).join('\n')}\n`);
    svc.fault((k) => k === '77010000002', 'http502');
    const args = ['message', 'send', '--from-file', input, '-o', 'ndjson', '--no-reconcile'];
    const first = await runCli(args, { env });
    expect(first.code).toBe(5);
    expect(ndjson(first.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'unknown' });
    const second = await runCli(args, { env });
    expect(second.code).toBe(5);
    expect(second.stderr).toContain('Outcome unknown for row 3: the request may have reached the service; not sent again (lookups are off: --no-reconcile)');
    expect(svc.created.get('77010000002')).toBe(1);
    const third = await runCli([...args, '--resend-unknown'], { env });
    expect(svc.created.get('77010000002')).toBe(2);
    expect(third.code).toBe(5); // the planned fault answers 502 again
    expect(svc.created.get('77010000001')).toBe(1);
  });

  it('rows are known by content: after an edit and an append, done rows are skipped and new and changed rows sent, and the summary says so', async () => {
    const input = file('links.csv', csvOf(links(3)));
    expect((await runCli(['link', 'create', '--from-file', input], { env })).code).toBe(0);
    // Row 3 (p2) is changed, two rows are appended, and a row is inserted before the others.
    writeFileSync(input, `fullLink,comment\nhttps://example.com/first,row 0\nhttps://example.com/p1,row 1\nhttps://example.com/p2-fixed,row 2\nhttps://example.com/p3,row 3\n${csvOf(links(2, 4)).split('\n').slice(1).join('\n')}`);
    const rerun = await runCli(['link', 'create', '--from-file', input, '-o', 'ndjson'], { env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain('link create: 4 done, 2 already done of 6 rows');
    expect(rerun.stderr).toContain('3 new rows since the last run: sent; 1 row changed since the last run: sent as new rows.');
    expect(ndjson(rerun.stdout).map((x) => x.row).sort()).toEqual([2, 4, 6, 7]);
    expect([...svc.created.entries()].sort()).toEqual(
      ['first', 'p1', 'p2', 'p2-fixed', 'p3', 'p4', 'p5'].map((p) => [`https://example.com/${p}`, 1]),
    );
    expect(rerun.stderr).not.toMatch(/delete/i);
  });

  it('a journal of another command (or of the earlier format) is refused, and the message never suggests deleting it', async () => {
    const input = file('links.csv', csvOf(links(2)));
    await runCli(['link', 'create', '--from-file', input], { env });
    const sms = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    const other = await runCli(['message', 'send', '--from-file', sms, '--journal', `${input}.journal`], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was written by `smslink link create`, not `smslink message send`; give this run its own --journal FILE');
    expect(other.stderr).not.toMatch(/delete/i);
    // A journal of the earlier format, which knew rows by position, cannot say which rows are done.
    const old = file('old.csv', csvOf(links(1)));
    writeFileSync(`${old}.journal`, `${JSON.stringify({ smslinkJournal: 1, command: 'link create', inputHash: 'sha256:x', input: old })}\n{"row":1,"state":"done"}\n`);
    const before = server.requests.length;
    const v1 = await runCli(['link', 'create', '--from-file', old], { env });
    expect(v1.code).toBe(2);
    expect(v1.stderr).toContain('was written by an earlier smslink, which knew rows by their position in the file');
    expect(v1.stderr).not.toMatch(/delete/i);
    expect(server.requests.length).toBe(before);
  });

  it('a journal of a run against another service is refused; other flag values or another --text make new rows, sent as such', async () => {
    const input = file('links.csv', csvOf(links(2)));
    const trial = await runCli(['--sandbox', 'link', 'create', '--from-file', input], { env: { SMSLINK_DATA_DIR: tempDir() } });
    expect(trial.code).toBe(0);
    const real = await runCli(['link', 'create', '--from-file', input], { env });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain(`records a run against sandbox, not ${server.url}: its rows were sent there, not here. Give this run its own --journal FILE`);
    expect(real.stderr).not.toMatch(/delete/i);
    expect(server.requests).toHaveLength(0);

    const more = file('more.csv', 'fullLink\nhttps://example.com/x\n');
    expect((await runCli(['link', 'create', '--from-file', more, '--comment', 'spring'], { env })).code).toBe(0);
    const autumn = await runCli(['link', 'create', '--from-file', more, '--comment', 'autumn'], { env });
    expect(autumn.code).toBe(0);
    expect(autumn.stderr).toContain('1 row changed since the last run: sent as new rows');
    const forms = () => server.requests.map((q) => new URLSearchParams(q.body).get('data[comment]'));
    expect(forms()).toEqual(['spring', 'autumn']);
    const again = await runCli(['link', 'create', '--from-file', more, '--comment', 'spring'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('1 already done');
    expect(server.requests).toHaveLength(2);

    const sms = file('sms.csv', 'recipient,name\n77011234567,Ann\n');
    expect((await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}'], { env })).code).toBe(0);
    const reworded = await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}!'], { env });
    expect(reworded.code).toBe(0);
    expect(server.requests.slice(2).map((q) => new URLSearchParams(q.body).get('text'))).toEqual(['Hi Ann', 'Hi Ann!']);
  });

  it('--fresh says in plain words that every row is sent again, and does it', async () => {
    const input = file('links.csv', csvOf(links(2)));
    expect((await runCli(['link', 'create', '--from-file', input], { env })).code).toBe(0);
    const fresh = await runCli(['link', 'create', '--from-file', input, '--fresh'], { env });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain('--fresh: every row is sent again, the 2 rows the journal records as done included: what they made before will exist twice');
    expect(svc.created.get('https://example.com/p1')).toBe(2);
    // After --fresh the journal counts the new run: a plain rerun sends nothing.
    const rerun = await runCli(['link', 'create', '--from-file', input], { env });
    expect(rerun.stderr).toContain('0 done, 2 already done of 2 rows');
    expect(svc.created.get('https://example.com/p1')).toBe(2);
  });

  it('the journal names the service by its base URL without credentials or query', async () => {
    const input = file('links.csv', csvOf(links(1)));
    const url = new URL(server.url);
    const withCredentials = `${url.protocol}//user:pw-in-url@${url.host}/?debug=1`;
    const r = await runCli(['link', 'create', '--from-file', input], { env: { ...env, SMSLINK_BASE_URL: withCredentials } });
    expect(r.code).toBe(0);
    const header = JSON.parse(readFileSync(`${input}.journal`, 'utf8').split('\n')[0]) as { target: string };
    expect(header.target).toBe(`${url.protocol}//${url.host}`);
  });

  it('Ctrl-C stops new requests, lets those in flight finish, exits 130; the rerun completes each row exactly once', async () => {
    svc.delayMs = 5;
    const input = file('links.csv', csvOf(links(200)));
    const ac = new AbortController();
    const watcher = setInterval(() => {
      if (server.requests.length >= 50) ac.abort();
    }, 1);
    const first = await runCli(['link', 'create', '--from-file', input, '--concurrency', '8'], { env, signal: ac.signal });
    clearInterval(watcher);
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('Interrupted');
    expect(svc.created.size).toBeLessThan(200);
    const second = await runCli(['link', 'create', '--from-file', input, '--concurrency', '8'], { env });
    expect(second.code).toBe(0);
    expect(svc.created.size).toBe(200);
    expect([...svc.created.values()].every((n) => n === 1)).toBe(true);
  });
});

describe('message send --from-file', () => {
  it('fills --text placeholders from the row and flag defaults', async () => {
    const input = file('sms.csv', 'recipient,name,code,validity\n+7 701 000 00 01,Ann,4711,\n77010000002,Bob,0815,120\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code {{ code }}', '--validity', '90', '--from', 'SHOP'], { env });
    expect(r.code).toBe(0);
    const forms = server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));
    expect(forms).toContainEqual({ recipient: '77010000001', text: 'Hi Ann, your code 4711', from: 'SHOP', 'params[validity]': '90' });
    expect(forms).toContainEqual({ recipient: '77010000002', text: 'Hi Bob, your code 0815', from: 'SHOP', 'params[validity]': '120' });
  });

  it('a flag with no column of its own (--shorten-links, --name with {{name}} in the text) applies to every row', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n77010000002,Bob\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}} https://example.com/x', '--shorten-links', '--name', 'spring'], { env });
    expect(r.code).toBe(0);
    const forms = server.requests.map((q) => Object.fromEntries(new URLSearchParams(q.body)));
    expect(forms.map((f) => [f.text, f['params[shortenLinks]'], f['params[name]']]).sort()).toEqual([
      ['Hi Ann https://example.com/x', '1', 'spring'],
      ['Hi Bob https://example.com/x', '1', 'spring'],
    ]);
  });

  it('an unknown placeholder is an error before anything is sent', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}} {{surname}}'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--text: unknown placeholder {{surname}}; the input\'s columns are recipient, name');
    expect(server.requests).toHaveLength(0);
  });

  it('an empty placeholder value makes that row invalid', async () => {
    const input = file('sms.csv', 'recipient,name\n77010000001,Ann\n77010000002,\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}', '-o', 'ndjson'], { env });
    expect(r.code).toBe(5);
    expect(ndjson(r.stdout).find((x) => x.row === 3)).toMatchObject({ state: 'invalid', error: 'column name: is empty but --text uses {{name}}' });
  });

  it('checks every row with the single-send rules', async () => {
    const input = file('sms.ndjson', '{"recipient":"123","text":"x"}\n{"recipient":"77010000001","text":"x","validity":30}\n{"recipient":"77010000001","text":"x","at":"2020-01-01 00:00:00"}\nnot json\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--validate-only', '-o', 'ndjson'], { env });
    expect(ndjson(r.stdout).map((x) => [x.row, x.column])).toEqual([
      [1, 'recipient'],
      [2, 'validity'],
      [3, 'at'],
      [4, '(row)'],
    ]);
  });
});
