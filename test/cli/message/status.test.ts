// `smslink message status` against the recording server.
// --wait: wait.test.ts.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('MessageTestKey0123456789abcdefABCDEF012345');

const cli = rec.cli;
const form = (i = 0) => Object.fromEntries(new URLSearchParams(rec.server.requests[i].body));

describe('message status', () => {
  it('takes ids as arguments and comma lists, in one comma-separated request', async () => {
    await cli(['message', 'status', '1', '2,3']);
    expect(form().ids).toBe('1,2,3');
  });

  it('prints rows in the order the ids were given; -q prints statuses', async () => {
    rec.server.respond(() => ({
      body: {
        code: 0,
        data: [
          { id: '2', status: 'UNDELIV', segNum: '1', startSendTs: null, statusUpdateTs: null },
          { id: '1', status: 'DELIVRD', segNum: '2', startSendTs: null, statusUpdateTs: null },
        ],
        message: '',
      },
    }));
    const r = await cli(['message', 'status', '1', '2', '-q']);
    expect(r.stdout).toBe('DELIVRD\nUNDELIV\n');
  });

  it('splits more than 100 ids into several requests and merges them', async () => {
    rec.server.respond((req) => {
      const ids = new URLSearchParams(req.body).get('ids')!.split(',');
      return { body: { code: 0, data: ids.map((id) => ({ id, status: 'DELIVRD', segNum: '1', startSendTs: null, statusUpdateTs: null })), message: '' } };
    });
    const ids = Array.from({ length: 250 }, (_, i) => String(1000 + i));
    const r = await cli(['message', 'status', ids.join(','), '-o', 'ndjson']);
    expect(r.code).toBe(0);
    expect(rec.server.requests.map((q) => new URLSearchParams(q.body).get('ids')!.split(',').length).sort()).toEqual([100, 100, 50]);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(ids.map(Number));
  });

  it('names ids the service does not know: exit 5 when some are missing, 6 when all are', async () => {
    const some = await cli(['message', 'status', '123456', '42']);
    expect(some.code).toBe(5);
    expect(some.stderr).toContain('no message found for 42');
    rec.server.respond(() => ({ body: { code: 0, data: [], message: '' } }));
    expect((await cli(['message', 'status', '42'])).code).toBe(6);
  });

  it('refuses a non-numeric id', async () => {
    const r = await cli(['message', 'status', '12,abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/<id\.\.\.>: .*positive whole numbers \(got "abc"\)/);
    // One id is said once: the value quoted, the rule without it again.
    const one = await cli(['message', 'status', 'abc']);
    expect(one.code).toBe(2);
    expect(one.stderr).toBe('error: <id...>: invalid value "abc": ids must be positive whole numbers\n');
  });

  it('a bad id list is echoed as typed, not as JSON', async () => {
    const ids = await rec.cli(['message', 'status', '1', 'abc']);
    expect(ids.code).toBe(2);
    expect(ids.stderr).toContain('invalid value "1,abc": ids must be positive whole numbers (got "abc")');
    expect(rec.server.requests).toHaveLength(0);
  });
});
