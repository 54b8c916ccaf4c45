// `smslink link delete` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
// Its question at a terminal: confirm.test.ts.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('LinkTestKey0123456789abcdefABCDEF01234567');

const cli = rec.cli;
/** Link/Get by this code answers code 2, as for a code that is no link. */
const codeNotFound = (code: string) =>
  rec.server.respond((req) => (req.path.endsWith('Link/Get') && req.body.includes(`code=${code}`) ? { body: { code: 2, data: null, message: 'not found' } } : undefined));

describe('link delete', () => {
  it('exits 0 when every id was processed', async () => {
    const r = await cli(['link', 'delete', '1', '2,3', '-q']);
    expect(r.code).toBe(0);
    expect(rec.server.requests[0].body).toBe('ids[0]=1&ids[1]=2&ids[2]=3');
    expect(r.stdout).toBe('1\n2\n3\n');
  });

  it('names the ids not processed on stderr and exits 5', async () => {
    const r = await cli(['link', 'delete', '1', '999']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({ processed: [1], notProcessed: [999] });
    expect(r.stderr).toContain('error: no link found for 999 (unknown, or not yours)');
  });

  it('names a code not found in notProcessed too, as typed, and every link not deleted in the order typed', async () => {
    codeNotFound('zzzz');
    const r = await cli(['link', 'delete', '999', 'zzzz', '1']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({ processed: [1], notProcessed: [999, 'zzzz'] });
    expect(r.stderr).toContain('error: no link found for 999, zzzz (unknown, or not yours)');
  });

  it('--dry-run names a link it did not find and exits 5, as the delete itself would', async () => {
    codeNotFound('zzzz');
    const r = await cli(['link', 'delete', 'zzzz', '1,2', '--dry-run']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ dryRun: true, body: 'ids[0]=1&ids[1]=2' });
    expect(r.stderr).toContain('error: no link found for zzzz (unknown, or not yours)');
    expect(rec.server.requests.some((q) => q.path.endsWith('Delete'))).toBe(false);
  });

  it('reads the per-id detail of a code 98 answer (bulk partly done) and exits 5', async () => {
    rec.server.respond((req) => (req.path.endsWith('Delete') ? { body: { code: 98, data: { processed: ['1'], notProcessed: ['999'] }, message: '' } } : undefined));
    const r = await cli(['link', 'delete', '1', '999']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({ processed: [1], notProcessed: [999] });
    expect(r.stderr).toContain('error: no link found for 999 (unknown, or not yours)');
  });

  it('reads the per-id detail of a code 99 answer (nothing processed): none found, exit 6', async () => {
    rec.server.respond((req) => (req.path.endsWith('Delete') ? { body: { code: 99, data: { processed: [], notProcessed: ['998', '999'] }, message: '' } } : undefined));
    const r = await cli(['link', 'delete', '998', '999']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: no link found for 998, 999 (unknown, or not yours)\n');
  });

  it.each([null, { processed: null, notProcessed: null }, { message: 'nothing processed' }])(
    'a code 99 answer without a list of ids (%j) is the service error it is, not a success',
    async (data) => {
      rec.server.respond((req) => (req.path.endsWith('Delete') ? { body: { code: 99, data, message: '' } } : undefined));
      const r = await cli(['link', 'delete', '1', '2']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('code 99 (bulk operation: nothing processed)');
      expect(r.stdout).toBe('');
    },
  );

  it('reads ids from stdin with -', async () => {
    await cli(['link', 'delete', '-'], { stdin: '4\n5 6\n' });
    expect(rec.server.requests[0].body).toBe('ids[0]=4&ids[1]=5&ids[2]=6');
  });

  it('a delete retried after a lost answer does not report the link as not deleted', async () => {
    let deletes = 0;
    rec.server.respond((req) => {
      if (req.path.endsWith('Delete')) {
        deletes += 1;
        // The first attempt deletes, then its answer is lost; the retry finds nothing to delete.
        return deletes === 1 ? { status: 502, body: '<html>bad gateway</html>' } : { body: { code: 0, data: { processed: [], notProcessed: ['7'] }, message: '' } };
      }
      if (req.path.endsWith('Get')) return { body: { code: 2, data: null, message: 'not found' } };
      return undefined;
    });
    const r = await rec.cli(['link', 'delete', '7']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('7: not found after a retried delete; taken as deleted');
  });
});
