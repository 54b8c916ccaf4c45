// Bulk edge cases: dry runs, missing settings, malformed CSV rows, queued rows
// at Ctrl-C, journals pointed at the wrong file, quiet output, ambiguous codes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { fakeService, type FakeService } from '../helpers/fake-service.js';

let server: RecordingServer;
let svc: FakeService;
let env: Record<string, string>;
let dir: string;

beforeEach(async () => {
  server = await startRecordingServer();
  svc = fakeService(server);
  env = { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'EdgeKey0123456789abcdefABCDEF0123456789ab' };
  dir = tempDir();
});
afterEach(() => server.close());

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('bulk edge cases', () => {
  it('--dry-run checks every row, shows the first request, sends nothing', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n');
    const r = await runCli(['--dry-run', 'link', 'create', '--from-file', input], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dry run: 2 requests like this one would be sent');
    expect(r.stderr).toContain('body: data[fullLink]=https%3A%2F%2Fexample.com%2Fa');
    expect(server.requests).toHaveLength(0);
  });

  it('a bad flag value that fills empty cells is the command\'s error: exit 2, no row sent', async () => {
    const sms = file('sms.csv', 'recipient,name,validity\n77011234567,A,120\n77011234568,B,\n');
    const r = await runCli(['message', 'send', '--from-file', sms, '--text', 'Hi {{name}}', '--validity', '30'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--validity: invalid value "30": must be between 60 and 1440');
    const links = file('links.csv', 'fullLink,expirationDate\nhttps://example.com/a,2030-01-01\nhttps://example.com/b,\n');
    for (const bad of [['--expires', '2026-02-30'], ['--status', 'bogus']]) {
      const l = await runCli(['link', 'create', '--from-file', links, ...bad], { env });
      expect(l.code).toBe(2);
      expect(l.stderr).toContain(`${bad[0]}: invalid value "${bad[1]}"`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('without a key: exit 4 before anything, and no row is journaled as sending', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\n');
    const r = await runCli(['link', 'create', '--from-file', input], { env: { SMSLINK_BASE_URL: server.url } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('no API key is set');
    expect(server.requests).toHaveLength(0);
    const journal = (() => {
      try {
        return readFileSync(`${input}.journal`, 'utf8');
      } catch {
        return '';
      }
    })();
    expect(journal).not.toContain('sending');
  });

  it('a CSV row with more fields than the header is that row\'s error, not a cut value', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,Hello, world\n77011234568,"Hello, world"\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--validate-only', '-o', 'csv'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('row,column,error\n2,(row),has 3 fields but the header has 2 (quote values that contain commas)\n');
  });

  it('Ctrl-C: rows waiting in the queue are not started', async () => {
    const input = file('links.csv', `fullLink\n${Array.from({ length: 20 }, (_, i) => `https://example.com/q${i}`).join('\n')}\n`);
    const ac = new AbortController();
    const watcher = setInterval(() => server.requests.length >= 1 && ac.abort(), 2);
    const r = await runCli(['link', 'create', '--from-file', input, '--rate', '1', '--concurrency', '4'], { env, signal: ac.signal });
    clearInterval(watcher);
    expect(r.code).toBe(130);
    // --rate 1 lets one request out per second: after Ctrl-C nothing else starts.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(server.requests.length).toBe(1);
  });

  it('refuses a --journal that is the input or not a journal, and leaves that file alone', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\n');
    const notes = file('notes.txt', 'my notes\n');
    const self = await runCli(['link', 'create', '--from-file', input, '--journal', input], { env });
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('--journal must not be the input file itself');
    const other = await runCli(['link', 'create', '--from-file', input, '--journal', notes], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not an smslink journal');
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    expect(readFileSync(input, 'utf8')).toBe('fullLink\nhttps://example.com/a\n');
    expect(server.requests).toHaveLength(0);
  });

  it('-q prints results only; row errors go to stderr', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nnot-a-url\n');
    const r = await runCli(['link', 'create', '--from-file', input, '-q'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/^https:\/\/sho\.rt\/c\d+\n$/);
    expect(r.stderr).toContain('row 3: invalid: column fullLink: must be a URL');
  });

  it('code 999 on a send is unknown, and the rerun does not resend it (lookups off)', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    svc.fault(() => true, 'code999');
    const first = await runCli(['message', 'send', '--from-file', input, '-o', 'ndjson', '--no-reconcile'], { env });
    expect(JSON.parse(first.stdout.trim())).toMatchObject({ row: 2, state: 'unknown' });
    await runCli(['message', 'send', '--from-file', input, '--no-reconcile'], { env });
    expect(svc.created.get('77011234567')).toBe(1);
  });

  it('--wait does not combine with --from-file', async () => {
    const input = file('sms.csv', 'recipient,text\n77011234567,hi\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--wait'], { env });
    expect(r.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('journal and warnings', () => {
  it('a line cut short by a crash does not run into the next one', async () => {
    const input = file('links.csv', 'fullLink\nhttps://example.com/a\nhttps://example.com/b\n');
    svc.fault((k) => k.endsWith('/b'), 'code1');
    await runCli(['link', 'create', '--from-file', input], { env });
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${input}.journal`, '{"row":3,"sta');
    // The rerun retries the failed row 3 and journals it again after the cut line.
    await runCli(['link', 'create', '--from-file', input], { env });
    const lines = readFileSync(`${input}.journal`, 'utf8').trim().split('\n');
    const cut = lines.indexOf('{"row":3,"sta');
    expect(cut).toBeGreaterThan(0);
    expect(lines.slice(cut + 1).map((l) => JSON.parse(l) as { row: number; state: string })).toEqual([
      expect.objectContaining({ row: 3, state: 'sending', input: { fullLink: 'https://example.com/b' } }),
      expect.objectContaining({ row: 3, state: 'failed' }),
    ]);
  });

  it('columns used by --text placeholders are not reported as ignored', async () => {
    const input = file('sms.csv', 'recipient,name,code\n77011234567,Ann,4711\n');
    const r = await runCli(['message', 'send', '--from-file', input, '--text', 'Hi {{name}}, your code is {{code}}'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('ignoring columns');
  });
});

describe('a stalled run at a terminal', () => {
  it('the bar keeps moving while requests hang; Ctrl-C says what it waits for; a second one stops at once with the summary', async () => {
    svc.delayMs = 10_000; // no answer comes within the test
    const input = file('links.csv', `fullLink\n${Array.from({ length: 10 }, (_, i) => `https://example.com/stall${i}`).join('\n')}\n`);
    const interrupt = new AbortController();
    const stopNow = new AbortController();
    const { run } = await import('../../src/cli/run.js');
    const { Readable } = await import('node:stream');
    let stderr = '';
    let stdout = '';
    let started = 0;
    const marks: Record<string, number> = {};
    // From the first bar on: Ctrl-C 600 ms later, and again 400 ms after that.
    const onFirstBar = () => {
      started = Date.now();
      setTimeout(() => {
        marks.bars = stderr.split('\r\x1b[2K').length - 1;
        interrupt.abort();
        marks.said = stderr.includes('stopping: waiting for 4 requests in flight (Ctrl-C again to stop now)') ? 1 : 0;
      }, 600);
      setTimeout(() => stopNow.abort(), 1000);
    };
    const code = await run(['link', 'create', '--from-file', input, '--no-color', '-o', 'csv'], {
      stdout: { isTTY: true, write: (s: string) => ((stdout += s), true) },
      stderr: {
        isTTY: true,
        write: (s: string) => {
          if (!started && s.includes('\r\x1b[2K')) onFirstBar();
          stderr += s;
          return true;
        },
      },
      stdin: Readable.from([]),
      env: { ...env, SMSLINK_CONFIG_DIR: tempDir() },
      signal: interrupt.signal,
      stopNow: stopNow.signal,
    });
    const took = Date.now() - started;
    expect(code).toBe(130);
    expect(took).toBeLessThan(1500);
    // Redrawn every 100 ms though nothing finished: ~6 bars in 600 ms, each with the 4 requests in flight.
    expect(marks.bars).toBeGreaterThanOrEqual(4);
    expect(stderr.split('\r\x1b[2K').filter((l) => l.endsWith('0 done  0 failed  0 unknown  4 in flight')).length).toBeGreaterThanOrEqual(4);
    expect(marks.said).toBe(1);
    expect(stderr).toContain('link create: 0 done, 4 unknown of 10 rows');
    expect(stderr).toContain('Stopped at once, with 4 requests in flight (their rows are unknown now). Rerun the same command to continue.');
    expect(stdout.split('\n')[0]).toBe('row,state,id,code,shortLink,error');
    expect(stdout.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['2,unknown', '3,unknown', '4,unknown', '5,unknown']);
  });
});
