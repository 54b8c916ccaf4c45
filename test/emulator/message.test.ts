import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/emulator/index.js';
import { startTestEmulator, TEST_START, type TestEmulator } from '../helpers/emulator.js';

interface StatusRecord {
  id: string;
  status: string;
  segNum: string;
  startSendTs: string | null;
  statusUpdateTs: string | null;
}
interface MessageJson extends StatusRecord {
  campaignId: string;
  segUserBuy: string;
  from: string;
  to: string;
  text: string;
  groups: string | null;
  uuid: string;
  countryA2?: string | null;
  operatorName?: string | null;
}
interface Sent {
  campaignId: string;
  messageId: string;
  status: number;
}

const SECOND = 1000;
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ apiKeys: ['m', 'list'], senders: ['BRAND', 'Shop'] });
});
afterAll(() => emu.close());

async function send(params: Record<string, unknown>, on = emu, key?: string): Promise<Sent> {
  const env = await on.call('Message/SendSmsMessage', params, key);
  expect(env.code, env.message).toBe(0);
  return env.data as Sent;
}
async function statusOf(id: string, on = emu, key?: string): Promise<StatusRecord> {
  const env = await on.call('Message/GetSMSStatus', { ids: id }, key);
  expect(env.code, env.message).toBe(0);
  return (env.data as StatusRecord[])[0];
}

describe('Message/SendSmsMessage rules', () => {
  const bad = async (params: Record<string, unknown>) => emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'hi', ...params });

  it('takes 7 to 15 digits once a leading + is removed', async () => {
    expect((await bad({ recipient: '+77011234567' })).code).toBe(0);
    expect((await bad({ recipient: '1234567' })).code).toBe(0);
    expect((await bad({ recipient: '123456789012345' })).code).toBe(0);
    for (const recipient of ['123456', '1234567890123456', '7701abc4567', '']) {
      expect(await bad({ recipient })).toMatchObject({ code: 1, data: { recipient: [expect.any(String)] } });
    }
  });

  it('needs a recipient and a text', async () => {
    // As live: data null, the parameter group named in the message.
    expect(await emu.call('Message/SendSmsMessage', { text: 'hi' })).toEqual({
      code: 11,
      data: null,
      message: 'Parameter(s) recipient are not valid for this module and method. Check the documentation of Message/SendSmsMessage: recipient is required.',
    });
    expect(await emu.call('message/sendsmsmessage', {})).toMatchObject({ code: 11, data: null, message: expect.stringMatching(/^Parameter\(s\) recipient, text are not valid .*recipient, text are required\.$/) });
    expect((await bad({ text: '' })).code).toBe(1);
  });

  it('takes a validity of 60 to 1440 minutes', async () => {
    expect((await bad({ params: { validity: 60 } })).code).toBe(0);
    expect((await bad({ params: { validity: 1440 } })).code).toBe(0);
    expect(await bad({ params: { validity: 59 } })).toMatchObject({ code: 1, data: { validity: [expect.stringContaining('60')] } });
    expect((await bad({ params: { validity: 1441 } })).code).toBe(1);
  });

  it('takes a deferred time 1 hour to 14 days ahead', async () => {
    emu.clock.set(TEST_START); // 2025-01-15 10:00:00 UTC
    expect((await bad({ params: { deferredToTs: '2025-01-15 11:00:00' } })).code).toBe(0);
    expect((await bad({ params: { deferredToTs: '2025-01-29 10:00:00' } })).code).toBe(0);
    for (const deferredToTs of ['2025-01-15 10:59:59', '2025-01-29 10:00:01', '2025-01-14 10:00:00', '2025-01-15T11:00:00']) {
      expect(await bad({ params: { deferredToTs } })).toMatchObject({ code: 1, data: { deferredToTs: [expect.any(String)] } });
    }
  });

  it('reads the deferred time in the account time zone', async () => {
    const almaty = await startTestEmulator({ tz: 'Asia/Almaty' });
    try {
      // 10:00 UTC is 15:00 in Almaty.
      const ok = await almaty.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'x', params: { deferredToTs: '2025-01-15 16:00:00' } });
      expect(ok.code).toBe(0);
      const tooSoon = await almaty.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'x', params: { deferredToTs: '2025-01-15 11:30:00' } });
      expect(tooSoon.code).toBe(1);
    } finally {
      await almaty.close();
    }
  });

  it('sends from a registered sender; without one, or with one not registered, the shared sender is used', async () => {
    const withSender = await send({ recipient: '77011234567', text: 'from brand', from: 'BRAND' });
    const shared = await send({ recipient: '77011234567', text: 'from shared' });
    const unregistered = await send({ recipient: '77011234567', text: 'from unknown', from: 'Unknown' });
    const ids = [withSender.campaignId, shared.campaignId, unregistered.campaignId];
    const items = ((await emu.call('Message/List', { criteria: { campaignIds: ids } })).data as { items: MessageJson[] }).items;
    expect(items.map((m) => m.from).sort()).toEqual(['BRAND', 'SMSLINK', 'SMSLINK']);
  });

  it('creates a campaign and a message and answers status 2', async () => {
    const sent = await send({ recipient: '77011234567', text: 'hello', params: { name: 'welcome' } });
    expect(sent.status).toBe(2);
    expect(Number(sent.messageId)).toBeGreaterThan(0);
    expect((await emu.call('Link/GetLinks', { campaignId: sent.campaignId })).data).toEqual([]);
  });
});

describe('segments and price', () => {
  it('counts GSM-7 and UCS-2 segments and charges the price per segment', async () => {
    const priced = await startTestEmulator({ price: 0.05 });
    try {
      const cases: Array<[string, string]> = [
        ['a'.repeat(160), '1'],
        ['a'.repeat(161), '2'],
        ['€'.repeat(80), '1'],
        ['€'.repeat(81), '2'],
        ['П'.repeat(70), '1'],
        ['П'.repeat(71), '2'],
      ];
      for (const [text, segNum] of cases) {
        const sent = await send({ recipient: '77011234567', text }, priced);
        expect((await statusOf(sent.messageId, priced)).segNum).toBe(segNum);
      }
      const items = ((await priced.call('Message/List')).data as { items: MessageJson[] }).items;
      expect(new Set(items.map((m) => m.segUserBuy))).toEqual(new Set(['0.0500']));
    } finally {
      await priced.close();
    }
  });
});

describe('lifecycle', () => {
  it('moves NEW, ENQUEUD, ACCEPTD, DELIVRD on the clock with the send and update times', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock });
    try {
      const sent = await send({ recipient: '77011234567', text: 'life' }, e);
      const expectAt = async (ms: number, status: string, startSendTs: string | null, statusUpdateTs: string | null) => {
        clock.set(TEST_START + ms);
        expect(await statusOf(sent.messageId, e)).toEqual({ id: sent.messageId, status, segNum: '1', startSendTs, statusUpdateTs });
      };
      await expectAt(0, 'NEW', null, null);
      await expectAt(999, 'NEW', null, null);
      await expectAt(1 * SECOND, 'ENQUEUD', '2025-01-15 10:00:01', '2025-01-15 10:00:01');
      await expectAt(2 * SECOND, 'ACCEPTD', '2025-01-15 10:00:01', '2025-01-15 10:00:02');
      await expectAt(5 * SECOND, 'DELIVRD', '2025-01-15 10:00:01', '2025-01-15 10:00:05');
      await expectAt(3600 * SECOND, 'DELIVRD', '2025-01-15 10:00:01', '2025-01-15 10:00:05');
    } finally {
      await e.close();
    }
  });

  it('jumps straight to the right status when time moves on a lot', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock });
    try {
      const sent = await send({ recipient: '77011234567', text: 'jump' }, e);
      clock.advance(86_400_000);
      expect(await statusOf(sent.messageId, e)).toMatchObject({ status: 'DELIVRD', statusUpdateTs: '2025-01-15 10:00:05' });
    } finally {
      await e.close();
    }
  });

  it('picks the outcome from the test numbers', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock });
    try {
      const ids: Record<string, string> = {};
      for (const end of ['0000', '1111', '2222', '3333', '4444']) {
        ids[end] = (await send({ recipient: `7701234${end}`, text: end, params: { validity: 60 } }, e)).messageId;
      }
      const at = async (ms: number) => {
        clock.set(TEST_START + ms);
        const out: Record<string, string> = {};
        for (const [end, id] of Object.entries(ids)) out[end] = (await statusOf(id, e)).status;
        return out;
      };
      expect(await at(2 * SECOND)).toEqual({ '0000': 'REJECTD', '1111': 'ACCEPTD', '2222': 'ACCEPTD', '3333': 'ACCEPTD', '4444': 'ACCEPTD' });
      expect(await at(4 * SECOND)).toEqual({ '0000': 'REJECTD', '1111': 'ACCEPTD', '2222': 'ACCEPTD', '3333': 'PDLIVRD', '4444': 'ACCEPTD' });
      expect(await at(5 * SECOND)).toEqual({ '0000': 'REJECTD', '1111': 'UNDELIV', '2222': 'ACCEPTD', '3333': 'PDLIVRD', '4444': 'DELIVRD' });
      expect(await at(6 * SECOND)).toEqual({ '0000': 'REJECTD', '1111': 'UNDELIV', '2222': 'ACCEPTD', '3333': 'DELIVRD', '4444': 'DELIVRD' });
      // 2222 never reaches the handset: EXPIRED once its 60 minutes of validity from sending are over.
      expect((await at(SECOND + 60 * 60 * SECOND - 1))['2222']).toBe('ACCEPTD');
      expect((await at(SECOND + 60 * 60 * SECOND))['2222']).toBe('EXPIRED');
    } finally {
      await e.close();
    }
  });

  it('runs faster with a time scale', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock, timeScale: 10 });
    try {
      const sent = await send({ recipient: '77011234567', text: 'fast' }, e);
      clock.set(TEST_START + 499);
      expect((await statusOf(sent.messageId, e)).status).toBe('ACCEPTD');
      clock.set(TEST_START + 500);
      expect((await statusOf(sent.messageId, e)).status).toBe('DELIVRD');
    } finally {
      await e.close();
    }
  });

  it('keeps a deferred message waiting for its time', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock });
    try {
      const sent = await send({ recipient: '77011234567', text: 'later', params: { deferredToTs: '2025-01-15 12:00:00' } }, e);
      const campaignStatus = async (value: string) =>
        ((await e.call('Message/List', { criteria: { campaignStatus: value } })).data as { totalItemCount: string }).totalItemCount;
      clock.set(Date.UTC(2025, 0, 15, 11, 59, 59));
      expect((await statusOf(sent.messageId, e)).status).toBe('NEW');
      expect([await campaignStatus('DEFERRED'), await campaignStatus('NOT_YET_SENT'), await campaignStatus('AUTO_READY_FOR_SEND')]).toEqual(['1', '1', '1']);
      clock.set(Date.UTC(2025, 0, 15, 12, 0, 0));
      expect(await statusOf(sent.messageId, e)).toMatchObject({ status: 'ENQUEUD', startSendTs: '2025-01-15 12:00:00' });
      expect([await campaignStatus('DEFERRED'), await campaignStatus('RUNNING')]).toEqual(['0', '1']);
      clock.set(Date.UTC(2025, 0, 15, 12, 0, 4));
      expect((await statusOf(sent.messageId, e)).status).toBe('DELIVRD');
      expect(await campaignStatus('DONE')).toBe('1');
    } finally {
      await e.close();
    }
  });

  it('with --moderation answers status 1 and holds the message until moderation is over', async () => {
    const clock = new ManualClock(TEST_START);
    const e = await startTestEmulator({ clock, moderation: true });
    try {
      const sent = await send({ recipient: '77011234567', text: 'moderated' }, e);
      expect(sent.status).toBe(1);
      const campaignStatus = async () => {
        const items = ((await e.call('Message/List', { criteria: { campaignIds: sent.campaignId } })).data as { items: MessageJson[] }).items;
        const statuses = [];
        for (const s of ['MODERATION', 'READY_FOR_SEND', 'RUNNING', 'SENT', 'DONE']) {
          const n = ((await e.call('Message/List', { criteria: { campaignStatus: s } })).data as { totalItemCount: string }).totalItemCount;
          if (n === '1') statuses.push(s);
        }
        return [items[0].status, ...statuses];
      };
      expect(await campaignStatus()).toEqual(['NEW', 'MODERATION']);
      clock.set(TEST_START + 60 * SECOND);
      expect(await campaignStatus()).toEqual(['NEW', 'READY_FOR_SEND']);
      clock.set(TEST_START + 61 * SECOND);
      expect(await campaignStatus()).toEqual(['ENQUEUD', 'RUNNING']);
      clock.set(TEST_START + 62 * SECOND);
      expect(await campaignStatus()).toEqual(['ACCEPTD', 'SENT']);
      clock.set(TEST_START + 65 * SECOND);
      expect(await campaignStatus()).toEqual(['DELIVRD', 'DONE']);
    } finally {
      await e.close();
    }
  });
});

describe('link shortening in a send', () => {
  it('replaces every link with a new short link of the campaign, which GetLinks returns', async () => {
    const text = 'Sale! https://shop.example/a?b=1, and www.example.com/x. Bye';
    const sent = await send({ recipient: '77011234567', text, params: { shortenLinks: 1 } });
    const links = (await emu.call('Link/GetLinks', { campaignId: sent.campaignId })).data as Array<Record<string, string>>;
    expect(links.map((l) => l.fullLink)).toEqual(['https://shop.example/a?b=1', 'www.example.com/x']);
    expect(links[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      code: expect.stringMatching(/^[0-9A-Za-z]{4,}$/),
      fullLink: 'https://shop.example/a?b=1',
      shortLink: `${emu.url}/${links[0].code}`,
      clickCnt: '0',
      redirectCnt: '0',
      comment: null,
    });
    const message = ((await emu.call('Message/List', { criteria: { campaignIds: sent.campaignId } })).data as { items: MessageJson[] }).items[0];
    expect(message.text).toBe(`Sale! ${links[0].shortLink}, and ${links[1].shortLink}. Bye`);
    await emu.raw('GET', `/${links[1].code}`);
    const after = (await emu.call('Link/GetLinks', { campaignId: sent.campaignId })).data as Array<Record<string, string>>;
    expect(after[1]).toMatchObject({ clickCnt: '1', redirectCnt: '1' });
    expect((await emu.call('Link/Get', { id: links[0].id })).code).toBe(0);
  });

  it('leaves the text alone without shortenLinks, and says 2 for a campaign that is not there', async () => {
    const sent = await send({ recipient: '77011234567', text: 'see https://example.com/keep' });
    const message = ((await emu.call('Message/List', { criteria: { campaignIds: sent.campaignId } })).data as { items: MessageJson[] }).items[0];
    expect(message.text).toBe('see https://example.com/keep');
    expect(await emu.call('Link/GetLinks', { campaignId: 9_999_999 })).toMatchObject({ code: 2 });
  });
});

describe('Message/GetSMSStatus', () => {
  it('takes an array or a comma-separated string and always answers an array', async () => {
    const a = await send({ recipient: '77011234567', text: 'a' });
    const b = await send({ recipient: '77011234567', text: 'b' });
    const viaArray = await emu.call('Message/GetSMSStatus', { ids: [a.messageId, b.messageId] });
    expect((viaArray.data as StatusRecord[]).map((r) => r.id)).toEqual([a.messageId, b.messageId]);
    const viaBrackets = await emu.call('Message/GetSMSStatus', { ids: [b.messageId, a.messageId] }, undefined, { arrayFormat: 'brackets' });
    expect((viaBrackets.data as StatusRecord[]).map((r) => r.id)).toEqual([b.messageId, a.messageId]);
    const viaString = await emu.call('Message/GetSMSStatus', { ids: `${a.messageId},${b.messageId},${a.messageId}` });
    expect((viaString.data as StatusRecord[]).map((r) => r.id)).toEqual([a.messageId, b.messageId]);
    const single = await emu.call('Message/GetSMSStatus', { ids: a.messageId });
    expect(Array.isArray(single.data)).toBe(true);
  });

  it('leaves out unknown ids, says 2 with none and 12 with more than 100', async () => {
    const a = await send({ recipient: '77011234567', text: 'a' });
    expect((await emu.call('Message/GetSMSStatus', { ids: `${a.messageId},987654` })).data).toHaveLength(1);
    expect(await emu.call('Message/GetSMSStatus', { ids: '987654' })).toMatchObject({ code: 0, data: [] });
    expect((await emu.call('Message/GetSMSStatus', {})).code).toBe(2);
    // An empty list gives no identifiers either, in each form a client may send it.
    expect((await emu.call('Message/GetSMSStatus', { ids: '' })).code).toBe(2);
    expect((await emu.call('Message/GetSMSStatus', { ids: ',' })).code).toBe(2);
    expect((await emu.call('Message/GetSMSStatus', { ids: [''] }, undefined, { arrayFormat: 'brackets' })).code).toBe(2);
    const many = Array.from({ length: 101 }, (_, i) => i + 1);
    expect((await emu.call('Message/GetSMSStatus', { ids: many.join(',') })).code).toBe(12);
    expect((await emu.call('Message/GetSMSStatus', { ids: many.slice(0, 100) })).code).toBe(0);
  });
});

describe('Message/List', () => {
  const key = 'list';
  const sent: Record<string, Sent> = {};
  const list = async (params: Record<string, unknown>) => {
    const env = await emu.call('Message/List', params, key);
    expect(env.code, env.message).toBe(0);
    return env.data as { items: MessageJson[]; totalItemCount: string };
  };
  const texts = async (params: Record<string, unknown>) => (await list({ ...params, pagination: { pageSize: 100 } })).items.map((m) => m.text).sort();

  beforeAll(async () => {
    const plan: Array<[string, string, string, string | undefined]> = [
      // name, recipient, text, from
      ['kz', '+77011110001', 'alpha', undefined],
      ['uz', '998901234567', 'beta', 'BRAND'],
      ['ua', '380501234567', 'gamma', 'Shop'],
      ['br', '5511987654321', 'alpha', undefined],
      ['us', '14155550100', 'x'.repeat(200), undefined],
      ['ru', '79161234567', 'Привет', undefined],
      ['kz6', '76012345678', 'delta', undefined],
      ['rejected', '77015550000', 'epsilon', undefined],
    ];
    // One message a minute from 2025-02-01 09:00:00 UTC.
    for (const [i, [name, recipient, text, from]] of plan.entries()) {
      emu.clock.set(Date.UTC(2025, 1, 1, 9, i, 0));
      sent[name] = await send({ recipient, text, ...(from ? { from } : {}) }, emu, key);
    }
    emu.clock.set(Date.UTC(2025, 1, 1, 10, 0, 0));
  });

  it('lists every message of the key with the live fields, numbers as strings and the price with four places', async () => {
    const all = await list({ pagination: { pageSize: 100 } });
    expect(all.totalItemCount).toBe('8');
    const kz = all.items.find((m) => m.id === sent.kz.messageId)!;
    expect(kz).toEqual({
      id: sent.kz.messageId,
      campaignId: sent.kz.campaignId,
      segNum: '1',
      segUserBuy: '0.0100',
      from: 'SMSLINK',
      to: '77011110001',
      text: 'alpha',
      status: 'DELIVRD',
      groups: null,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      countryA2: null,
      operatorName: null,
      startSendTs: '2025-02-01 09:00:01',
      statusUpdateTs: '2025-02-01 09:00:05',
    });
  });

  it('adds country and operator with withNumberInfo=1', async () => {
    const items = (await list({ withNumberInfo: 1, pagination: { pageSize: 100 } })).items;
    const info = Object.fromEntries(
      Object.entries(sent).map(([name, s]) => {
        const m = items.find((x) => x.id === s.messageId)!;
        return [name, [m.countryA2, m.operatorName]];
      }),
    );
    expect(info).toMatchObject({
      kz: ['KZ', 'Kcell'],
      uz: ['UZ', 'Beeline UZ'],
      ua: ['UA', 'Vodafone UA'],
      br: ['BR', null],
      us: ['US', null],
      ru: ['RU', 'MTS'],
      kz6: ['KZ', null],
    });
    // Without it the fields are there, null, as the live service sends them.
    expect((await list({})).items[0]).toMatchObject({ countryA2: null, operatorName: null });
  });

  it('filters by campaign ids given as an array or a string, using only the first 100', async () => {
    expect(await texts({ criteria: { campaignIds: [sent.kz.campaignId, sent.uz.campaignId] } })).toEqual(['alpha', 'beta']);
    expect(await texts({ criteria: { campaignIds: `${sent.ua.campaignId},${sent.br.campaignId}` } })).toEqual(['alpha', 'gamma']);
    const padded = [...Array.from({ length: 100 }, () => 999_999), sent.kz.campaignId];
    expect(await texts({ criteria: { campaignIds: padded } })).toEqual([]);
    expect(await texts({ criteria: { campaignIds: [sent.kz.campaignId, ...padded] } })).toEqual(['alpha']);
  });

  it('filters by sender, partial recipient, exact text and status', async () => {
    expect(await texts({ criteria: { from: 'BRAND' } })).toEqual(['beta']);
    expect(await texts({ criteria: { to: '99890' } })).toEqual(['beta']);
    expect(await texts({ criteria: { to: '+380 50' } })).toEqual(['gamma']);
    expect(await texts({ criteria: { text: 'alpha' } })).toEqual(['alpha', 'alpha']);
    expect(await texts({ criteria: { text: 'alph' } })).toEqual([]);
    expect(await texts({ criteria: { status: 'REJECTD' } })).toEqual(['epsilon']);
    expect(await texts({ criteria: { status: 'delivrd' } })).toHaveLength(7);
    expect((await emu.call('Message/List', { criteria: { status: 'LOST' } }, key)).code).toBe(1);
  });

  it('finds one message by criteria[id] and one campaign\'s by criteria[campaignId], with the other criteria', async () => {
    expect(await texts({ criteria: { id: sent.uz.messageId } })).toEqual(['beta']);
    expect(await texts({ criteria: { campaignId: sent.ua.campaignId } })).toEqual(['gamma']);
    expect(await texts({ criteria: { campaignId: sent.ua.campaignId, id: sent.uz.messageId } })).toEqual([]);
    expect(await texts({ criteria: { campaignId: sent.br.campaignId, campaignIds: [sent.br.campaignId, sent.kz.campaignId], text: 'alpha' } })).toEqual(['alpha']);
    // Another key's message is not found by its id.
    const other = await send({ recipient: '77011234567', text: 'not yours' }, emu, 'm');
    expect(await texts({ criteria: { id: other.messageId } })).toEqual([]);
    for (const criteria of [{ id: 'abc' }, { campaignId: '0' }, { id: '1.5' }]) {
      const env = await emu.call('Message/List', { criteria }, key);
      expect(env, JSON.stringify(criteria)).toMatchObject({ code: 1, data: { [Object.keys(criteria)[0]]: [expect.any(String)] } });
    }
  });

  it('takes criteria[status] as the status codes the documentation lists, and refuses a number, saying which values it takes', async () => {
    expect(await texts({ criteria: { status: 'DELIVRD' } })).toHaveLength(7);
    // The documentation types it "integer" but gives no number for any status: a number cannot be matched, so it is refused rather than ignored.
    const env = await emu.call('Message/List', { criteria: { status: 3 } }, key);
    expect(env).toEqual({
      code: 1,
      data: { status: ['must be one of NEW, ENQUEUD, ACCEPTD, PDLIVRD, DELIVRD, UNDELIV, REJECTD, EXPIRED, DELETED'] },
      message: 'One or more parameters contain incorrect data (criteria[status]): check the errors in data and try again.',
    });
  });

  it('filters by groups (single sends belong to none) and by campaign status', async () => {
    expect(await texts({ criteria: { groups: '1,2' } })).toEqual([]);
    expect(await texts({ criteria: { campaignStatus: 'DONE' } })).toHaveLength(8);
    expect(await texts({ criteria: { campaignStatus: 'RUNNING' } })).toEqual([]);
    expect((await emu.call('Message/List', { criteria: { campaignStatus: 'LOST' } }, key)).code).toBe(1);
  });

  it('filters by the four time ranges', async () => {
    expect(await texts({ criteria: { campaignCreateTsFrom: '2025-02-01 09:06:00' } })).toEqual(['delta', 'epsilon']);
    expect(await texts({ criteria: { campaignCreateTsTo: '2025-02-01 09:01:00' } })).toEqual(['alpha', 'beta']);
    expect(await texts({ criteria: { campaignSentTsFrom: '2025-02-01 09:01:01', campaignSentTsTo: '2025-02-01 09:02:01' } })).toEqual(['beta', 'gamma']);
    expect(await texts({ criteria: { startSendTsFrom: '2025-02-01 09:07:01' } })).toEqual(['epsilon']);
    expect(await texts({ criteria: { statusUpdateTsTo: '2025-02-01 09:00:05' } })).toEqual(['alpha']);
    expect(await texts({ criteria: { statusUpdateTsFrom: '2025-02-01 09:07:02', statusUpdateTsTo: '2025-02-01 09:07:02' } })).toEqual(['epsilon']);
  });

  it('pages and sorts by each of the eight fields', async () => {
    const firstPage = await list({ pagination: { pageSize: 25, currentPage: 0 } });
    expect(firstPage.items[0].id).toBe(sent.rejected.messageId);
    expect((await list({ pagination: { currentPage: 1 } })).items).toEqual([]);
    const fields: Array<[string, keyof MessageJson, boolean]> = [
      ['campaignId', 'campaignId', true],
      ['from', 'from', false],
      ['to', 'to', false],
      ['text', 'text', false],
      ['status', 'status', false],
      ['startSendTs', 'startSendTs', false],
      ['statusUpdateTs', 'statusUpdateTs', false],
      ['segNum', 'segNum', true],
    ];
    for (const [field, prop, numeric] of fields) {
      const asc = (await list({ sort: { [field]: 'ASC' } })).items.map((m) => m[prop] as string);
      const sorted = [...asc].sort((x, y) => (numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0));
      expect(asc, field).toEqual(sorted);
      const desc = (await list({ sort: { [field]: 'DESC' } })).items.map((m) => m[prop] as string);
      expect(desc, field).toEqual([...sorted].reverse());
    }
    expect((await emu.call('Message/List', { sort: { uuid: 'ASC' } }, key)).code).toBe(1);
  });
});
