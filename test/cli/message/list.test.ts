// `smslink message list` against the recording server.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('MessageTestKey0123456789abcdefABCDEF012345');

const cli = rec.cli;
const form = (i = 0) => Object.fromEntries(new URLSearchParams(rec.server.requests[i].body));

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

  it('--id and --campaign ask for one message and one campaign, as the live service takes them', async () => {
    expect((await cli(['message', 'list', '--id', '123456', '--campaign', '9001'])).code).toBe(0);
    expect(form()).toMatchObject({ 'criteria[id]': '123456', 'criteria[campaignId]': '9001' });
    const bad = await cli(['message', 'list', '--campaign', 'autumn']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--campaign');
  });

  it('refuses a time range that ends before it starts, naming both ends, and sends nothing', async () => {
    const r = await cli(['message', 'list', '--sent-from', '2026-11-20 10:00', '--sent-to', '2026-11-19']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sent-to: invalid value "2026-11-19" (2026-11-19 23:59:59): must not be before --sent-from "2026-11-20 10:00" (2026-11-20 10:00:00)');
    expect(rec.server.requests).toHaveLength(0);
    expect((await cli(['message', 'list', '--sent-from', '2026-11-20', '--sent-to', '2026-11-20'])).code).toBe(0);
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

  it('keeps to the contract: --sort id, which only the live service takes, is refused before anything is sent', async () => {
    const r = await cli(['message', 'list', '--sort', 'id:asc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sort: invalid value "id:asc": must be FIELD, FIELD:asc or FIELD:desc; fields: campaignId, from, to, text, status, startSendTs, statusUpdateTs, segNum');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('a time criterion it cannot read names the flag and the forms (exit 2)', async () => {
    const r = await cli(['message', 'list', '--sent-from', 'yesterday']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sent-from: invalid value "yesterday": must be a time: YYYY-MM-DD, "YYYY-MM-DD HH:MM[:SS]", HH:MM (today), now, 7d (ago) or +2h (ahead)');
    expect(rec.server.requests).toHaveLength(0);
  });

  it.each([
    ['delivered', 'DELIVRD'],
    ['Undelivered', 'UNDELIV'],
    ['rejectd', 'REJECTD'],
    ['QUEUED', 'ENQUEUD'],
  ])('--status takes a word or a code in any case: %s', async (typed, code) => {
    expect((await cli(['message', 'list', '--status', typed])).code).toBe(0);
    expect(new URLSearchParams(rec.server.requests[0].body).get('criteria[status]')).toBe(code);
  });

  it('--status with a near miss suggests the word meant, and sends nothing', async () => {
    const r = await cli(['message', 'list', '--status', 'delivred']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--status: invalid value "delivred" (did you mean delivered?)');
    const far = await cli(['message', 'list', '--status', 'banana']);
    expect(far.stderr).not.toContain('did you mean');
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
  it('--with-number-info at an 80-column terminal shows the country and operator it asked for; the detail after them gives way first', async () => {
    const item = (id: string, to: string, country: string, operator: string, text: string) => ({
      id, campaignId: id, segNum: '1', segUserBuy: '0.01', from: 'ShopPromo', to, text, status: 'REJECTD', groups: null, uuid: id,
      countryA2: country, operatorName: operator, startSendTs: '2026-11-21 16:02:11', statusUpdateTs: '2026-11-21 16:02:13',
    });
    rec.server.respond(() => ({
      body: {
        code: 0,
        data: {
          items: [
            item('320', '79164622324', 'RU', 'MTS', 'Sale! 20% off today https://example.com/spring-sale'),
            item('289', '998903830984', 'UZ', 'Beeline UZ', 'Your order #4792 has shipped'),
          ],
          totalItemCount: '2',
        },
        message: '',
      },
    }));
    const r = await cli(['message', 'list', '--with-number-info', '--status', 'rejected', '--no-color'], { tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const [header, first, second] = r.stdout.split('\n');
    expect(header).toMatch(/^id +to +status .*text +country +operator$/);
    expect(first).toMatch(/^320 +79164622324 +rejected .* +RU +MTS$/);
    expect(second).toMatch(/^289 +998903830984 +rejected .* +UZ +Beeline UZ$/);
    // What gave way is named: the detail after them (segments, campaign, sender).
    expect(r.stderr).toMatch(/Not shown at this width: .*segments/);
    expect(r.stderr).not.toMatch(/Not shown at this width: .*(country|operator)/);
  });
});
