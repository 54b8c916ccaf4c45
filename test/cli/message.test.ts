// `smslink message ...` against the recording rec.server.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../helpers/recording-server.js';
import { formatDateTime } from '../../src/catalog/rules.js';

const rec = useRecordingServer('MessageTestKey0123456789abcdefABCDEF012345');

const cli = rec.cli;
const form = (i = 0) => Object.fromEntries(new URLSearchParams(rec.server.requests[i].body));

describe('message send', () => {
  it('normalises the number and sends every option', async () => {
    const at = formatDateTime(new Date(Date.now() + 3 * 3_600_000));
    const r = await cli([
      'message', 'send', '--to', '+7 (701) 123-45-67', '--text', 'Hi & bye', '--from', 'SHOP', '--name', 'otp',
      '--at', at, '--shorten-links', '--validity', '90',
    ]);
    expect(r.code).toBe(0);
    expect(form()).toEqual({
      recipient: '77011234567',
      text: 'Hi & bye',
      from: 'SHOP',
      'params[name]': 'otp',
      'params[deferredToTs]': at,
      'params[shortenLinks]': '1',
      'params[validity]': '90',
    });
    expect(JSON.parse(r.stdout)).toEqual({ campaignId: 9001, messageId: 123456, status: 2 });
  });

  it('-q prints the message id; tables say "sent"', async () => {
    expect((await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '-q'])).stdout).toBe('123456\n');
    expect((await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '-o', 'table'])).stdout).toMatch(/^status\s+sent$/m);
  });

  it('--text - reads the text from stdin', async () => {
    await cli(['message', 'send', '--to', '77011234567', '--text', '-'], { stdin: 'Привет, мир 😀\n' });
    expect(form().text).toBe('Привет, мир 😀');
  });

  it('uses the sender from the settings when --from is not given', async () => {
    await cli(['message', 'send', '--to', '77011234567', '--text', 'x'], { env: { SMSLINK_SENDER: 'ACME' } });
    expect(form().from).toBe('ACME');
  });

  it.each([
    [['--to', '12345', '--text', 'x'], /--to: invalid value "12345": must have 7 to 15 digits once a leading \+, spaces, dashes and brackets are removed/],
    [['--to', '77011234567'], /--text is required/],
    [['--to', '77011234567', '--text', 'x', '--validity', '30'], /--validity: invalid value "30": must be between 60 and 1440/],
    [['--to', '77011234567', '--text', 'x', '--at', '2020-01-01 10:00:00'], /--at: invalid value "2020-01-01 10:00:00": must be between 1 hour and 14 days from now/],
    [['--to', '77011234567', '--text', 'x', '--at', 'tomorrow'], /--at: .*YYYY-MM-DD HH:MM:SS/],
  ])('%j is refused with exit 2 and nothing is sent', async (args, message) => {
    const r = await cli(['message', 'send', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(rec.server.requests).toHaveLength(0);
  });

  describe('--at as a person types it (fixed clock: 2026-11-20 14:30:15 local)', () => {
    const now = () => new Date(2026, 10, 20, 14, 30, 15);
    it.each([
      ['+2h', '2026-11-20 16:30:15'],
      ['90m', '2026-11-20 16:00:15'],
      ['+13d', '2026-12-03 14:30:15'],
      ['2026-11-24 03:00', '2026-11-24 03:00:00'],
    ])('--at %s sends %s', async (at, wire) => {
      const r = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', at], { now });
      expect(r.code).toBe(0);
      expect(form()['params[deferredToTs]']).toBe(wire);
    });

    it.each([
      ['+30m', /--at: invalid value "2026-11-20 15:00:15": must be between 1 hour and 14 days from now/],
      ['+15d', /--at: invalid value "2026-12-05 14:30:15": must be between 1 hour and 14 days from now/],
      ['-2h', /--at: invalid value "2026-11-20 12:30:15": must be between 1 hour and 14 days from now/],
      ['2026-11-24', /--at: invalid value "2026-11-24": must be a real time: "YYYY-MM-DD HH:MM:SS", "YYYY-MM-DD HH:MM", or a time from now such as \+2h/],
      ['in 2 hours', /--at: invalid value "in 2 hours": must be a real time: .* \(m minutes, h hours, d days, w weeks\)/],
    ])('--at %s is refused with exit 2 and nothing is sent', async (at, message) => {
      const r = await cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--at', at], { now });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(rec.server.requests).toHaveLength(0);
    });
  });

  it('help says which times --at takes, with examples', async () => {
    const r = await cli(['message', 'send', '--help']);
    expect(r.stdout).toContain('or a\ntime from now: +90m, +2h, +3d, +1w (the + may be left out)');
    expect(r.stdout).toContain('--at +2h');
    expect(r.stdout).toContain('--at "2026-12-01 09:00"');
  });

  it('--dry-run shows encoding and segments', async () => {
    const gsm = await cli(['message', 'send', '--to', '77011234567', '--text', 'a'.repeat(161), '--dry-run']);
    expect(JSON.parse(gsm.stdout)).toMatchObject({ dryRun: true, encoding: 'GSM-7', segments: 2, fields: { recipient: '77011234567' } });
    const ucs = await cli(['message', 'send', '--to', '77011234567', '--text', 'Привет', '--dry-run', '-o', 'table']);
    expect(ucs.stdout).toContain('encoding: UCS-2');
    expect(ucs.stdout).toContain('segments: 1');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('says the outcome is unknown when the answer is lost after sending', async () => {
    rec.server.respond(() => ({ status: 502, body: '<html>Bad Gateway</html>' }));
    const r = await cli(['message', 'send', '--to', '77011234567', '--text', 'x']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/HTTP 502/);
    expect(r.stderr).toMatch(/may or may not have been sent; check with `smslink message list --to <number>`/);
  });
});

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
  });
});

describe('message list', () => {
  it('has a flag for every criterion of the contract', async () => {
    await cli([
      'message', 'list', '--with-number-info', '--campaign-ids', '1,2', '--from', 'SHOP', '--to', '7701', '--text', 'hi',
      '--status', 'delivrd', '--groups', 'g1,g2', '--campaign-status', 'SENT', '--campaign-created-from', '2026-11-01',
      '--campaign-created-to', '2026-11-02', '--campaign-sent-from', '2026-11-03 10:00:00', '--campaign-sent-to', '2026-11-04',
      '--sent-from', '2026-11-05', '--sent-to', '2026-11-06', '--updated-from', '2026-11-07', '--updated-to', '2026-11-08',
      '--page-size', '100', '--page', '1', '--sort', 'segNum:desc',
    ]);
    expect(form()).toEqual({
      withNumberInfo: '1',
      'criteria[campaignIds]': '1,2',
      'criteria[from]': 'SHOP',
      'criteria[to]': '7701',
      'criteria[text]': 'hi',
      'criteria[status]': 'DELIVRD',
      'criteria[groups]': 'g1,g2',
      'criteria[campaignStatus]': 'SENT',
      'criteria[campaignCreateTsFrom]': '2026-11-01 00:00:00',
      'criteria[campaignCreateTsTo]': '2026-11-02 23:59:59',
      'criteria[campaignSentTsFrom]': '2026-11-03 10:00:00',
      'criteria[campaignSentTsTo]': '2026-11-04 23:59:59',
      'criteria[startSendTsFrom]': '2026-11-05 00:00:00',
      'criteria[startSendTsTo]': '2026-11-06 23:59:59',
      'criteria[statusUpdateTsFrom]': '2026-11-07 00:00:00',
      'criteria[statusUpdateTsTo]': '2026-11-08 23:59:59',
      'pagination[pageSize]': '100',
      'pagination[currentPage]': '1',
      'sort[segNum]': 'DESC',
    });
  });

  it('time criteria take relative times and times without seconds', async () => {
    const now = () => new Date(2026, 10, 20, 14, 30, 15);
    const r = await cli(['message', 'list', '--sent-from', '1d', '--sent-to', 'now', '--updated-from', '2026-11-19 08:00', '--updated-to', '2026-11-19 09:00'], { now });
    expect(r.code).toBe(0);
    expect(form()).toMatchObject({
      'criteria[startSendTsFrom]': '2026-11-19 14:30:15',
      'criteria[startSendTsTo]': '2026-11-20 14:30:15',
      'criteria[statusUpdateTsFrom]': '2026-11-19 08:00:00',
      'criteria[statusUpdateTsTo]': '2026-11-19 09:00:59',
    });
  });

  it('a time criterion it cannot read names the flag and the forms (exit 2)', async () => {
    const r = await cli(['message', 'list', '--sent-from', 'yesterday']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sent-from: invalid value "yesterday": must be a real time: YYYY-MM-DD, "YYYY-MM-DD HH:MM:SS"');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('prints the messages with numbers as numbers', async () => {
    const r = await cli(['message', 'list']);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 123456, campaignId: 9001, segUserBuy: 0.01, status: 'DELIVRD' });
  });

  it('--all follows pages until totalItemCount; --limit stops early', async () => {
    const total = 230;
    rec.server.respond((req) => {
      const f = Object.fromEntries(new URLSearchParams(req.body));
      const size = Number(f['pagination[pageSize]']);
      const page = Number(f['pagination[currentPage]']);
      const items = Array.from({ length: Math.max(0, Math.min(size, total - page * size)) }, (_, i) => ({ id: String(page * size + i + 1) }));
      return { body: { code: 0, data: { items, totalItemCount: String(total) }, message: '' } };
    });
    const all = await cli(['message', 'list', '--all', '-q']);
    expect(all.stdout.trim().split('\n').map(Number)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(rec.server.requests.map((q) => new URLSearchParams(q.body).get('pagination[currentPage]'))).toEqual(['0', '1', '2']);
    rec.server.requests.length = 0;
    const limited = await cli(['message', 'list', '--limit', '120', '-o', 'json']);
    expect(JSON.parse(limited.stdout)).toHaveLength(120);
    expect(rec.server.requests).toHaveLength(2);
  });
});
