// A flag that takes one value, given twice, is a usage error naming the flag
// and both values, before anything is sent; commander alone would keep the
// last value silently. Flags documented as repeatable stay repeatable.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';

const rec = useRecordingServer('RepeatKey0123456789abcdefABCDEF0123456789');

describe('a one-value flag given twice', () => {
  it('--to twice on message send: exit 2, both numbers named, and how to send to several (--from-file); nothing sent', async () => {
    const r = await rec.cli(['message', 'send', '--to', '77015550000', '--to', '77015551111', '--text', 'two?']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: --to was given twice ("77015550000" and "77015551111"); a message goes to one number; to send to several, put them in a CSV file (column recipient) and use --from-file\n',
    );
    expect(rec.server.requests).toHaveLength(0);
  });

  it.each([
    [['message', 'list', '--status', 'undelivered', '--status', 'rejected'], '--status', 'undelivered', 'rejected'],
    [['link', 'create', 'https://example.com', '--comment', 'a', '--comment', 'b'], '--comment', 'a', 'b'],
    [['link', 'list', '--query', 'old', '--query=new'], '--query', 'old', 'new'],
    [['link', 'list', '-o', 'json', '--output', 'csv'], '--output', 'json', 'csv'],
    [['--timeout', '5', 'link', 'get', '1', '--timeout', '9'], '--timeout', '5', '9'],
    [['link', 'create', '--from-file', 'x.csv', '--concurrency', '2', '--concurrency', '8'], '--concurrency', '2', '8'],
  ])('%j: exit 2, naming the flag and both values; nothing sent', async (args, flag, first, second) => {
    const r = await rec.cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${flag} was given twice ("${first}" and "${second}"); it takes one value: give it once\n`);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('a secret given twice is not repeated back', async () => {
    const r = await rec.cli(['serve', '--control-token', 'first-token-value', '--control-token', 'second-token-value']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --control-token was given twice; it takes one value: give it once\n');
  });
});

describe('repeatable flags stay repeatable', () => {
  it('--sort twice sends both; several ids are several ids', async () => {
    expect((await rec.cli(['link', 'list', '--sort', 'code', '--sort', 'clickCnt:desc'])).code).toBe(0);
    expect(decodeURIComponent(rec.server.requests[0].body)).toContain('sort[code]=ASC&sort[clickCnt]=DESC');
    await rec.cli(['message', 'status', '11', '12', '-q']);
    expect(decodeURIComponent(rec.server.requests[1].body)).toMatch(/11.*12/);
  });
});
