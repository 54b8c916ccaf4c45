// A flag that takes one value, given twice, is a usage error naming the flag
// and both values, before anything is sent; commander alone would keep the
// last value silently. Flags documented as repeatable stay repeatable.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

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

describe('two names of one setting, given together', () => {
  // link stats' hidden --from/--to are other names of --since/--until; --json is -o json.
  it.each([
    [['link', 'stats', '1', '--since', '2026-11-01', '--from', '2026-10-01'], 'error: --since and --from were both given ("2026-11-01" and "2026-10-01"); --from is another name for --since'],
    [['link', 'stats', '1', '--from', '2026-10-01', '--since', '2026-11-01'], 'error: --from and --since were both given ("2026-10-01" and "2026-11-01"); --from is another name for --since'],
    [['link', 'stats', '1', '--to=now', '--until', '1d'], 'error: --to and --until were both given ("now" and "1d"); --to is another name for --until'],
    [['--json', 'link', 'get', '1', '-o', 'csv'], 'error: --json and --output were both given ("json" and "csv"); --json is another name for --output json'],
    [['-o', 'json', 'link', 'get', '1', '--json'], 'error: --output and --json were both given ("json" and "json"); --json is another name for --output json'],
    [['--json', '-o', 'csv', 'message', 'send', '--to', '77015550000', '--text', 'hi'], 'error: --json and --output were both given ("json" and "csv"); --json is another name for --output json'],
  ])('%j: exit 2 as for one flag given twice, naming both flags and values; nothing sent', async (args, message) => {
    const r = await rec.cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${message}; it takes one value: give it once\n`);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('a flag without a value may still be repeated: --json --json is json output', async () => {
    const r = await rec.cli(['--json', 'link', 'get', '1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: expect.anything() });
  });
});

describe('-q with a flag that chooses another output', () => {
  // Refused before anything is sent, for reads too (link get, stats and message status used to send first).
  it.each([
    [['-q', '--json', 'link', 'get', '1'], '--json'],
    [['-q', '-o', 'csv', 'link', 'stats', '1'], '--output'],
    [['-q', '--fields', 'id', 'message', 'status', '11'], '--fields'],
    [['-q', '--json', 'link', 'create', 'https://example.com'], '--json'],
  ])('%j: exit 2 naming %s; nothing sent', async (args, flag) => {
    const r = await rec.cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: -q prints only the main value of each result; it cannot be combined with ${flag}\n`);
    expect(rec.server.requests).toHaveLength(0);
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
