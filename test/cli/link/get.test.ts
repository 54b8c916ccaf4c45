// `smslink link get` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
// How a reference is read: link-refs.test.ts.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('LinkTestKey0123456789abcdefABCDEF01234567');

const cli = rec.cli;

describe('link get', () => {
  it.each([
    [['417863'], 'id=417863'],
    [['ddoj'], 'code=ddoj'],
    [['https://sho.rt/ddoj'], 'shortLink=https%3A%2F%2Fsho.rt%2Fddoj'],
    [['www.sho.rt/ddoj'], 'shortLink=www.sho.rt%2Fddoj'],
    [['1234', '--code'], 'code=1234'],
    [['abc', '--id'], null],
  ])('%j sends %s', async (args, body) => {
    const r = await cli(['link', 'get', ...args]);
    if (body === null) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('"abc" is not a link id: ids are whole numbers');
    } else {
      expect(r.code).toBe(0);
      expect(rec.server.requests[0].body).toBe(body);
    }
  });

  it('shows statuses as words in tables and raw values in JSON', async () => {
    const table = await cli(['link', 'get', '417863', '-o', 'table']);
    expect(table.stdout).toMatch(/^status\s+active$/m);
    expect(table.stdout).toMatch(/^moderation\s+approved$/m);
    const json = JSON.parse((await cli(['link', 'get', '417863'])).stdout);
    expect(json).toMatchObject({ status: 1, moderatorStatus: 1, domain: 'sho.rt' });
  });

  it('exits 6 when the link is not found', async () => {
    rec.server.respond(() => ({ body: { code: 2, data: null, message: 'Link not found' } }));
    const r = await cli(['link', 'get', '5']);
    expect(r.code).toBe(6);
    expect(r.stderr).toBe('error: no link found for 5 (unknown, or not yours)\n');
  });

  it('control characters in data never reach the terminal from a table', async () => {
    rec.server.respond((req) => (req.path.endsWith('Get') ? { body: { code: 0, data: { id: '1', comment: 'hi\u001b]0;pwned\u0007\u001b[31mred' }, message: '' } } : undefined));
    const r = await rec.cli(['link', 'get', '1', '-o', 'table', '--no-color']);
    expect(r.stdout).toMatch(/^comment\s+hi\\x1b\]0;pwned\\x07\\x1b\[31mred$/m);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('--fields refuses a name no result has, and lists the fields', async () => {
    const r = await rec.cli(['link', 'get', '1', '--fields', 'id,shortlnk']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fields: unknown field "shortlnk" (did you mean shortLink?); fields here: id, code, shortLink, fullLink, status');
  });

  it('--fields takes a field in any case, or its table header', async () => {
    const r = await rec.cli(['link', 'get', '1', '--fields', 'ID,shortlink,short link,clicks', '-o', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('id,shortLink,shortLink,clickCnt');
  });
});
