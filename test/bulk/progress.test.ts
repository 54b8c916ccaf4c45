// The progress of a bulk run on a terminal: a bar from the start, redrawn
// while requests hang, that counts rows of unknown outcome apart from failed
// ones and makes way for what Ctrl-C has to say.
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/run-cli.js';
import { csvOf, links, useBulkService } from '../helpers/bulk-files.js';
import { fitLine } from '../../src/bulk/progress.js';

const bulk = useBulkService();
const { file } = bulk;

describe('the progress bar on a terminal', () => {
  it('draws a progress bar on a terminal from the start: finished/total, rate, ETA, done, failed, unknown, in flight', async () => {
    bulk.svc.delayMs = 20; // the bar is redrawn every 100 ms
    const input = file('links.csv', csvOf(links(30)));
    const r = await runCli(['link', 'create', '--from-file', input, '--no-color', '-q', '--concurrency', '2'], { env: bulk.env, tty: true });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\r\x1b[2K').filter(Boolean);
    const bar = /^\[[█░]{24}\] (\d+)\/30 {2}[\d.]+\/s {2}ETA (?:\?|\d+ [a-z]+(?: \d+ [a-z]+)?) {2}(\d+) done {2}0 failed {2}0 unknown {2}(\d+) in flight$/;
    expect(lines[0]).toMatch(bar);
    expect(bar.exec(lines[0])!.slice(1, 3)).toEqual(['0', '0']);
    expect(lines.some((line) => Number(bar.exec(line)?.[3]) === 2)).toBe(true);
  });

  it('the progress bar counts rows of unknown outcome apart from failed ones', async () => {
    const input = file('sms.csv', `recipient,text\n${Array.from({ length: 30 }, (_, i) => `770100000${String(i + 10)},hello`).join('\n')}\n`);
    bulk.svc.fault((k) => k === '77010000012', 'http502');
    bulk.svc.delayMs = 20; // the bar is redrawn at most every 100 ms
    // Without lookups (--no-reconcile) the row stays unknown.
    const r = await runCli(['message', 'send', '--from-file', input, '--no-color', '-q', '--concurrency', '1', '--no-reconcile', '--yes'], { env: bulk.env, tty: true });
    expect(r.code).toBe(5);
    const lines = r.stderr.split('\r\x1b[2K');
    expect(lines.some((line) => / 0 failed {2}1 unknown {2}\d in flight$/.test(line))).toBe(true);
    expect(lines.some((line) => / 1 failed/.test(line))).toBe(false);
  });

  it('the bar keeps moving while requests hang; Ctrl-C says what it waits for; a second one stops at once with the summary', async () => {
    bulk.svc.delayMs = 10_000; // no answer comes within the test
    const input = file('links.csv', `fullLink\n${Array.from({ length: 10 }, (_, i) => `https://example.com/stall${i}`).join('\n')}\n`);
    const interrupt = new AbortController();
    const stopNow = new AbortController();
    const { run } = await import('../../src/cli/run.js');
    const { Readable } = await import('node:stream');
    let stderr = '';
    let stdout = '';
    const hung = () => stderr.split('\r\x1b[2K').filter((l) => l.endsWith('0 done  0 failed  0 unknown  4 in flight')).length;
    const marks: Record<string, number> = {};
    // Nothing answers, and the bar is redrawn all the same: Ctrl-C once it has been drawn 4 times so,
    // and again once it has been drawn again after "stopping" (the run waits for its requests till then).
    const onBar = () => {
      if (!interrupt.signal.aborted && hung() >= 4) {
        interrupt.abort();
        marks.said = stderr.includes('stopping: waiting for 4 requests in flight (Ctrl-C again to stop now)') ? 1 : 0;
        marks.bars = hung();
      } else if (interrupt.signal.aborted && !stopNow.signal.aborted && hung() > marks.bars) {
        stopNow.abort();
      }
    };
    const code = await run(['link', 'create', '--from-file', input, '--no-color', '-o', 'csv'], {
      stdout: { isTTY: true, write: (s: string) => ((stdout += s), true) },
      stderr: {
        isTTY: true,
        columns: 120,
        write: (s: string) => {
          stderr += s;
          // After this write is done: what Ctrl-C says is written in its turn.
          if (s.includes('\r\x1b[2K')) setImmediate(onBar);
          return true;
        },
      },
      stdin: Readable.from([]),
      env: { ...bulk.env, SMSLINK_CONFIG_DIR: tempDir() },
      signal: interrupt.signal,
      stopNow: stopNow.signal,
    });
    // The answers would come 10 s later: the second Ctrl-C ended the run without them.
    expect(code).toBe(130);
    expect(marks.bars).toBeGreaterThanOrEqual(4);
    expect(marks.said).toBe(1);
    expect(stderr).toContain('link create: 0 done, 4 unknown of 10 rows');
    expect(stderr).toContain('Stopped at once, with 4 requests in flight (their rows are unknown now). Rerun the same command to continue.');
    expect(stdout.split('\n')[0]).toBe('row,state,id,code,shortLink,error');
    expect(stdout.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['2,unknown', '3,unknown', '4,unknown', '5,unknown']);
  });
});

describe('the progress line at any width', () => {
  const pieces = [
    { text: '10/40', shed: 0 },
    { text: '15/s', shed: 3 },
    { text: 'ETA 2s', shed: 4 },
    { text: '10 already done', shed: 6 },
    { text: '5 done', shed: 5 },
    { text: '0 failed', shed: 9 },
    { text: '0 unknown', shed: 9 },
    { text: '4 in flight', shed: 7 },
  ];

  it.each([
    [119, '[██████████░░░░░░░░░░░░░░] 10/40  15/s  ETA 2s  10 already done  5 done  0 failed  0 unknown  4 in flight'],
    [99, '[██████████░░░░░░░░░░░░░░] 10/40  15/s  ETA 2s  10 already done  5 done  4 in flight'],
    [79, '[█████░░░░░░░] 10/40  15/s  ETA 2s  10 already done  5 done  4 in flight'],
    [59, '10/40  15/s  ETA 2s  10 already done  5 done  4 in flight'],
    [39, '10/40  15/s  ETA 2s  5 done'],
    [8, '10/40'],
    [4, '10/…'],
  ])('in %i cells: zero counts give way first, then the bar, then the least needed counts', (width, line) => {
    expect(fitLine(pieces, 0.4, width)).toBe(line);
  });
});
