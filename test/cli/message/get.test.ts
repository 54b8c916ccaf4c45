// `smslink message get`: each message whole, from Message/GetSMSStatus and
// then Message/List narrowed to the message's send time. Against the
// recording server (what is sent) and the emulator (what is found).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';
import { runCli } from '../../helpers/run-cli.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

const rec = useRecordingServer('MessageGetKey0123456789abcdefABCDEF0123456');
const form = (i: number) => Object.fromEntries(new URLSearchParams(rec.server.requests[i].body));

describe('message get against the recording server', () => {
  it('reads the status, then lists the messages of that send time with their country and operator', async () => {
    const r = await rec.cli(['message', 'get', '123456', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(rec.server.requests.map((q) => q.path.replace(/^.*\/service\//, ''))).toEqual(['Message/GetSMSStatus', 'Message/List']);
    // The contract writes GetSMSStatus's time 10-15-00; Message/List takes 10:15:00.
    expect(form(1)).toMatchObject({
      'criteria[startSendTsFrom]': '2026-11-02 10:15:00',
      'criteria[startSendTsTo]': '2026-11-02 10:15:00',
      withNumberInfo: '1',
    });
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ id: 123456, to: '77011234567', text: 'Your code is 4711', from: 'SMSLINK', campaignId: 9001, status: 'DELIVRD' })]);
  });

  it('a table shows every field a person asks about, the status in words beside its code, money in the account\'s currency', async () => {
    const r = await rec.cli(['message', 'get', '123456', '--no-color'], { tty: true, columns: 100 });
    expect(r.code).toBe(0);
    for (const line of [/^to +77011234567$/m, /^from +SMSLINK$/m, /^text +Your code is 4711$/m, /^status +delivered \(DELIVRD\)$/m, /^segments +1$/m, /^price +0\.0100 KZT$/m, /^cost +0\.0100 KZT$/m, /^campaign +9001$/m, /^sent +2026-11-02 10:15:00$/m, /^country +-$/m]) {
      expect(r.stdout).toMatch(line);
    }
  });

  it('writes money one way in a record and a table: four decimals and the currency, in a list too; json and csv keep the values', async () => {
    // As the live service sends it: a price per segment of "0.0600", three segments.
    rec.server.respond((req) => {
      if (!req.path.endsWith('Message/List')) return undefined;
      const item = { id: '123456', campaignId: '9001', segNum: '3', segUserBuy: '0.0600', from: 'SMSLINK', to: '77011234567', text: 'Your code is 4711', status: 'DELIVRD', startSendTs: '2026-11-02 10:15:00', statusUpdateTs: null };
      return { body: { code: 0, data: { items: [item], totalItemCount: '1' }, message: '' } };
    });
    const record = await rec.cli(['message', 'get', '123456', '--no-color'], { tty: true, columns: 80 });
    expect(record.code).toBe(0);
    expect(record.stdout).toMatch(/^price +0\.0600 KZT$/m);
    expect(record.stdout).toMatch(/^cost +0\.1800 KZT$/m);
    const table = await rec.cli(['message', 'list', '--fields', 'id,segNum,segUserBuy', '--no-color'], { tty: true, columns: 80 });
    expect(table.stdout.split('\n').slice(0, 2)).toEqual([expect.stringMatching(/^id +segments +price$/), expect.stringMatching(/^123456 +3 +0\.0600 KZT$/)]);
    expect(JSON.parse((await rec.cli(['message', 'get', '123456', '-o', 'json'])).stdout)[0]).toMatchObject({ segNum: 3, segUserBuy: 0.06, cost: 0.18 });
    // Scripts get the cost too, the column CSV has always had.
    expect((await rec.cli(['message', 'get', '123456', '-o', 'csv', '--fields', 'id,segNum,segUserBuy,cost'])).stdout).toBe('id,segNum,segUserBuy,cost\n123456,3,0.06,0.18\n');
    const csv = await rec.cli(['message', 'list', '--fields', 'id,segUserBuy', '-o', 'csv']);
    expect(csv.stdout).toBe('id,segUserBuy\n123456,0.06\n');
  });

  it('an unknown id exits 6 and lists nothing; some unknown exit 5 and are named', async () => {
    rec.server.respond((req) => (req.path.endsWith('GetSMSStatus') ? { body: { code: 0, data: [], message: '' } } : undefined));
    const none = await rec.cli(['message', 'get', '42']);
    expect(none.code).toBe(6);
    expect(none.stderr).toContain('no message found for 42');
    expect(rec.server.requests).toHaveLength(1);
    rec.server.respond(undefined);
    const some = await rec.cli(['message', 'get', '123456', '42', '-q']);
    expect(some.code).toBe(5);
    expect(some.stdout).toBe('123456\n');
    expect(some.stderr).toContain('no message found for 42');
  });

  it('--dry-run shows the status request, says what follows, and sends nothing', async () => {
    const r = await rec.cli(['message', 'get', '123456', '--dry-run', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/service/Message/GetSMSStatus');
    expect(r.stdout).toContain('then Message/List (withNumberInfo=1)');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('refuses a non-numeric id before sending anything', async () => {
    const r = await rec.cli(['message', 'get', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('positive whole numbers');
    expect(rec.server.requests).toHaveLength(0);
  });
});

describe('message status at a terminal', () => {
  it('gains recipient and text columns for one Message/List per 100 ids; -q and JSON stay as they were', async () => {
    rec.server.respond((req) => {
      if (!req.path.endsWith('GetSMSStatus')) return undefined;
      const ids = new URLSearchParams(req.body).get('ids')!.split(',');
      return { body: { code: 0, data: ids.map((id) => ({ id, status: 'DELIVRD', segNum: '1', startSendTs: '2026-11-02 10-15-00', statusUpdateTs: null })), message: '' } };
    });
    const ids = ['123456', ...Array.from({ length: 149 }, (_, i) => String(2000 + i))];
    const table = await rec.cli(['message', 'status', ids.join(','), '--no-color'], { tty: true, columns: 120 });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^id +to +status +segments +sent +status changed +text$/);
    expect(table.stdout).toMatch(/^123456 +77011234567 +delivered .* Your code is 4711$/m);
    expect(rec.server.requests.filter((q) => q.path.endsWith('Message/List'))).toHaveLength(2);
    rec.server.requests.length = 0;
    expect((await rec.cli(['message', 'status', '123456', '-q'])).stdout).toBe('DELIVRD\n');
    expect(JSON.parse((await rec.cli(['message', 'status', '123456', '-o', 'json'])).stdout)[0]).not.toHaveProperty('to');
    expect(rec.server.requests.filter((q) => q.path.endsWith('Message/List'))).toHaveLength(0);
  });
});

describe('message status at a terminal, when Message/List fails', () => {
  it('still shows the statuses, without the recipient and text, and says why', async () => {
    rec.server.respond((req) => (req.path.endsWith('Message/List') ? { body: { code: 9, data: null, message: 'access denied' } } : undefined));
    const r = await rec.cli(['message', 'status', '123456', '123456', '--no-color', '--retries', '0'], { tty: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^id +status +segments/);
    expect(r.stdout).toMatch(/^123456 +delivered/m);
    expect(r.stderr).toContain('recipient and text not shown: Message/List failed');
  });
});

describe('message get against the emulator', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'first' });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234568', text: 'second' });
    emu.clock.advance(60_000);
    await emu.call('Message/SendSmsMessage', { recipient: '77071234569', text: 'later' });
    // The emulator's zone is UTC; its clock is 2025-01-15 10:01.
    const deferred = await emu.call('Message/SendSmsMessage', { recipient: '77071234570', text: 'tonight', params: { deferredToTs: '2025-01-15 20:00:00' } });
    expect(deferred.code).toBe(0);
  });
  afterAll(() => emu.close());
  const env = () => ({ SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key });

  it('finds each message, sent or not yet, with recipient, text, country and operator', async () => {
    const r = await runCli(['message', 'get', '3', '1', '2', '-o', 'json'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(got.map((m) => [m.id, m.to, m.text])).toEqual([
      [3, '77071234569', 'later'],
      [1, '77011234567', 'first'],
      [2, '77011234568', 'second'],
    ]);
    for (const m of got) expect(m.countryA2).toBe('KZ');
    // Found by its send time, and (not sent yet) by its status.
    expect(got[1].startSendTs).toMatch(/^2025-01-15 /);
    expect(got[0].startSendTs).toBeNull();
  });

  it('a message that waits for a deferred send says so where the send time goes, not `sent -`', async () => {
    const r = await runCli(['message', 'get', '4', '3', '--no-color'], { env: env(), tty: true });
    expect(r.code, r.stderr).toBe(0);
    const [deferred, notYet] = r.stdout.split('\n\n');
    expect(deferred).toMatch(/^sent +not yet: scheduled for later$/m);
    // Not sent yet, and not deferred: nothing to say yet.
    expect(notYet).toMatch(/^sent +-$/m);
    // Scripts keep the service's field.
    const json = JSON.parse((await runCli(['message', 'get', '4', '-o', 'json'], { env: env() })).stdout);
    expect(json[0].startSendTs).toBeNull();
  });
});

describe('message status at a terminal, in a busy account', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
    // 250 messages, a second apart: more than a page of Message/List between the first and the last.
    for (let i = 1; i <= 250; i++) {
      await emu.call('Message/SendSmsMessage', { recipient: `7701${String(1000000 + i)}`, text: `order ${i}` });
      emu.clock.advance(1000);
    }
    emu.clock.advance(60_000);
  });
  afterAll(() => emu.close());

  it('shows the recipient and text of ids sent far apart (as `message list -q | message status -` gives them)', async () => {
    const r = await runCli(['message', 'status', '-', '--no-color'], { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key }, stdin: '250\n180\n3\n1\n', tty: true, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').slice(1, 5);
    expect(rows).toEqual([
      expect.stringMatching(/^250 +77011000250 +delivered .* order 250$/),
      expect.stringMatching(/^180 +77011000180 +delivered .* order 180$/),
      expect.stringMatching(/^3 +77011000003 +delivered .* order 3$/),
      expect.stringMatching(/^1 +77011000001 +delivered .* order 1$/),
    ]);
  });
});
