// User/GetOwnBalance over HTTP: the balance the live service answers
// ({"balance":"100.0000","currency":"KZT"}), spent by each message at
// segNum x segUserBuy, per account, back to the opening amount on reset.
import { afterEach, describe, expect, it } from 'vitest';
import { SmsLinkClient } from '../../src/client/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import { serviceQuery, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const balanceOf = async (e: TestEmulator, key?: string) => e.call('User/GetOwnBalance', {}, key);

describe('User/GetOwnBalance', () => {
  it('answers the opening balance, 100.0000 KZT by default, by POST and by GET in either spelling', async () => {
    emu = await startTestEmulator();
    expect(await balanceOf(emu)).toEqual({ code: 0, data: { balance: '100.0000', currency: 'KZT' }, message: '' });
    for (const path of ['user/getownbalance', 'User/getOwnBalance']) {
      const res = await emu.raw('GET', `/service/${path}?${serviceQuery(emu.key)}`);
      expect(JSON.parse(res.text), path).toEqual({ code: 0, data: { balance: '100.0000', currency: 'KZT' }, message: '' });
    }
  });

  it('goes down by segNum x segUserBuy with every send, for the sending account only', async () => {
    emu = await startTestEmulator({ apiKeys: ['key-one', 'key-two'], balance: 5, currency: 'USD', price: 0.05 });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'a'.repeat(161) }, 'key-one');
    await emu.call('Message/SendSmsMessage', { recipient: '77011234568', text: 'hello' }, 'key-one');
    const items = ((await emu.call('Message/List', {}, 'key-one')).data as { items: Array<{ segNum: string; segUserBuy: string }> }).items;
    expect(items.map((m) => [m.segNum, m.segUserBuy])).toEqual([
      ['1', '0.0500'],
      ['2', '0.0500'],
    ]);
    expect((await balanceOf(emu, 'key-one')).data).toEqual({ balance: '4.8500', currency: 'USD' });
    expect((await balanceOf(emu, 'key-two')).data).toEqual({ balance: '5.0000', currency: 'USD' });
    await emu.emulator.reset();
    expect((await balanceOf(emu, 'key-one')).data).toEqual({ balance: '5.0000', currency: 'USD' });
  });

  it('counts seeded messages as paid for, so the balance agrees with Message/List', async () => {
    emu = await startTestEmulator({ seed: { keys: ['seed-key-0000'], messages: [{ to: '77011234567', text: 'seeded' }] }, balance: 1 });
    expect((await balanceOf(emu)).data).toEqual({ balance: '0.9900', currency: 'KZT' });
  });

  it('goes below zero rather than refuse a send, written without a negative zero', async () => {
    emu = await startTestEmulator({ balance: 0.03, price: 0.01 });
    for (let i = 0; i < 3; i++) await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'hi' });
    expect((await balanceOf(emu)).data).toEqual({ balance: '0.0000', currency: 'KZT' });
    await emu.call('Message/SendSmsMessage', { recipient: '77011234567', text: 'hi' });
    expect((await balanceOf(emu)).data).toEqual({ balance: '-0.0100', currency: 'KZT' });
  });

  it("is the client's getBalance(), the amount as a number", async () => {
    emu = await startTestEmulator({ balance: 12.5 });
    const client = new SmsLinkClient({ baseUrl: emu.url, apiKey: emu.key });
    try {
      expect(await client.getBalance()).toEqual({ balance: 12.5, currency: 'KZT' });
    } finally {
      await client.close();
    }
  });

  it('needs a key like every operation', async () => {
    emu = await startTestEmulator();
    expect(await balanceOf(emu, 'not-a-key')).toMatchObject({ code: 8 });
  });

  it('refuses an opening balance below zero and a currency that is not an ISO 4217 code', async () => {
    await expect(startEmulator({ port: 0, balance: -1 })).rejects.toThrow(/balance must be zero or more \(got -1\)/);
    await expect(startEmulator({ port: 0, balance: Number.NaN })).rejects.toThrow(/balance must be zero or more/);
    await expect(startEmulator({ port: 0, currency: 'kzt' })).rejects.toThrow(/currency must be an ISO 4217 code .*"kzt"/);
  });
});
