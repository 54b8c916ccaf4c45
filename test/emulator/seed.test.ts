// Seed data: what the emulator starts with and returns to on reset, checked
// with the catalog's rules; over HTTP through the service's own operations.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSeed, readSeedFile, SeedError, STARTER_YAML, type SeedData } from '../../src/emulator/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/run-cli.js';

const SEED: SeedData = {
  keys: ['seed-key-one-0000', 'seed-key-two-0000'],
  senders: ['MyShop'],
  links: [
    { fullLink: 'https://example.com/spring', code: 'spring', comment: 'spring sale', clicks: 3 },
    { fullLink: 'https://example.com/old', status: 'inactive', expirationDate: '2030-01-31' },
    { fullLink: 'https://example.com/blocked', moderatorStatus: 'blocked', moderatorComment: 'no', key: 'seed-key-two-0000' },
  ],
  campaigns: [{ name: 'autumn', links: [{ fullLink: 'https://example.com/autumn', clicks: 1 }] }],
  messages: [
    { to: '+7 701 123-45-67', text: 'Your code is 4711', from: 'MyShop', status: 'DELIVRD' },
    { to: 77010001111, text: 'Not this time', status: 'UNDELIV', name: 'reminders' },
    { to: '77012223333', text: 'On its way', status: 'ENQUEUD' },
  ],
};

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const list = async (key: string) => (await emu!.call('Link/List', { sort: { code: 'ASC' } }, key)).data as { items: Array<Record<string, unknown>>; totalItemCount: string };
const messages = async (key: string) => (await emu!.call('Message/List', { sort: { to: 'ASC' } }, key)).data as { items: Array<Record<string, unknown>> };

describe('a seed', () => {
  it('starts the emulator with its keys, links, campaigns and messages, each in its account', async () => {
    emu = await startTestEmulator({ seed: SEED });
    expect(emu.keys).toEqual(['seed-key-one-0000', 'seed-key-two-0000']);
    const one = await list('seed-key-one-0000');
    expect(one.totalItemCount).toBe('3');
    const spring = one.items.find((l) => l.code === 'spring')!;
    expect(spring).toMatchObject({ fullLink: 'https://example.com/spring', status: '1', moderatorStatus: '1', clickCnt: '3', redirectCnt: '3', comment: 'spring sale' });
    expect(spring.shortLink).toBe(`${emu.url}/spring`);
    expect(one.items.find((l) => l.fullLink === 'https://example.com/old')).toMatchObject({ status: '0', expirationDate: '2030-01-31', clickCnt: '0' });
    const two = await list('seed-key-two-0000');
    expect(two.items).toEqual([expect.objectContaining({ fullLink: 'https://example.com/blocked', moderatorStatus: '0', moderatorComment: 'no' })]);

    // Clicks are visits of the present period, as Link/GetStats counts them.
    const stats = await emu.call('Link/GetStats', { ids: [Number(spring.id)], type: 'daily' }, 'seed-key-one-0000');
    expect((stats.data as { totals: Record<string, number> }).totals).toEqual({ totalClicks0: 3, totalRedirects0: 3 });
    // The seeded code redirects like any other.
    const visit = await emu.raw('GET', '/spring');
    expect(visit.status).toBe(302);

    const autumn = one.items.find((l) => l.fullLink === 'https://example.com/autumn')!;
    const campaign = await emu.call('Link/GetLinks', { campaignId: 1 }, 'seed-key-one-0000');
    expect(campaign.data).toEqual([expect.objectContaining({ id: autumn.id, clickCnt: '1', redirectCnt: '1' })]);

    const sent = await messages('seed-key-one-0000');
    expect(sent.items.map((m) => [m.to, m.from, m.status, m.text])).toEqual([
      ['77010001111', 'SMSLINK', 'UNDELIV', 'Not this time'],
      ['77011234567', 'MyShop', 'DELIVRD', 'Your code is 4711'],
      ['77012223333', 'SMSLINK', 'ENQUEUD', 'On its way'],
    ]);
    expect(sent.items[1]).toMatchObject({ segNum: '1', startSendTs: '2025-01-15 09:59:58', statusUpdateTs: '2025-01-15 10:00:00' });
  });

  it('keeps a seeded message at its status: its lifecycle is over', async () => {
    emu = await startTestEmulator({ seed: SEED });
    emu.clock.advance(3_600_000);
    const statuses = (await messages('seed-key-one-0000')).items.map((m) => m.status);
    expect(statuses).toEqual(['UNDELIV', 'DELIVRD', 'ENQUEUD']);
  });

  it('puts a message with `ago` that many seconds in the past', async () => {
    emu = await startTestEmulator({ seed: { messages: [{ to: '77011234567', text: 'old news', ago: 3 * 86_400 }] } });
    const [m] = (await messages('sandbox')).items;
    expect(m).toMatchObject({ status: 'DELIVRD', startSendTs: '2025-01-12 09:59:58', statusUpdateTs: '2025-01-12 10:00:00' });
  });

  it('accepts the keys of apiKeys too, after its own, and their entries may name them', async () => {
    emu = await startTestEmulator({ apiKeys: ['extra-key-0000'], seed: { keys: ['seed-key-0000'], links: [{ fullLink: 'https://example.com/x', key: 'extra-key-0000' }] } });
    expect(emu.keys).toEqual(['seed-key-0000', 'extra-key-0000']);
    expect((await list('extra-key-0000')).totalItemCount).toBe('1');
    expect((await list('seed-key-0000')).totalItemCount).toBe('0');
  });

  it('empties the database first: nothing of an earlier run stays', async () => {
    const db = join(tempDir(), 'seeded.db');
    emu = await startTestEmulator({ db, apiKeys: ['k-0000000'] });
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/earlier' } });
    await emu.close();
    emu = await startTestEmulator({ db, apiKeys: ['k-0000000'], seed: { links: [{ fullLink: 'https://example.com/seeded' }] } });
    expect((await list('k-0000000')).items.map((l) => l.fullLink)).toEqual(['https://example.com/seeded']);
  });

  it('comes back on reset(), and a reset without a seed empties everything', async () => {
    emu = await startTestEmulator({ seed: SEED });
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/later' } }, 'seed-key-one-0000');
    await emu.call('Message/SendSmsMessage', { recipient: '77019998877', text: 'later' }, 'seed-key-one-0000');
    expect((await list('seed-key-one-0000')).totalItemCount).toBe('4');
    expect(await emu.emulator.reset()).toEqual({ links: 4, campaigns: 4, messages: 3 });
    expect((await list('seed-key-one-0000')).items.map((l) => l.fullLink).sort()).toEqual(['https://example.com/autumn', 'https://example.com/old', 'https://example.com/spring']);
    expect((await messages('seed-key-one-0000')).items).toHaveLength(3);
    // The accounts are made again in the same order: each key still sees only its own.
    expect((await list('seed-key-two-0000')).totalItemCount).toBe('1');
    await emu.close();

    emu = await startTestEmulator({ apiKeys: ['plain-key-0000'] });
    await emu.call('Link/Create', { data: { fullLink: 'https://example.com/gone' } });
    await emu.emulator.reset();
    expect((await list('plain-key-0000')).totalItemCount).toBe('0');
    expect((await emu.call('Link/Create', { data: { fullLink: 'https://example.com/after' } })).code).toBe(0);
  });
});

describe('a bad seed', () => {
  const cases: Array<[string, SeedData | unknown, string]> = [
    ['a fullLink that is no URL', { links: [{ fullLink: 'example.com' }] }, 'links[0].fullLink: invalid value "example.com": must be a URL with a scheme'],
    ['a date that does not exist', { links: [{ fullLink: 'https://a.example', expirationDate: '2030-02-30' }] }, 'links[0].expirationDate: invalid value "2030-02-30": must be a real date written YYYY-MM-DD'],
    ['a comment over 255 characters', { links: [{ fullLink: 'https://a.example', comment: 'x'.repeat(256) }] }, 'links[0].comment: invalid value "xxx'],
    ['a status word it does not know', { links: [{ fullLink: 'https://a.example', status: 'on' }] }, 'links[0].status: invalid value "on": must be 0 or 1 (or active, inactive)'],
    ['a code given twice', { links: [{ fullLink: 'https://a.example', code: 'abc' }, { fullLink: 'https://b.example', code: 'abc' }] }, 'links[1].code: invalid value "abc": is given to another link'],
    ['a code with other characters', { links: [{ fullLink: 'https://a.example', code: 'a_b' }] }, 'links[0].code: invalid value "a_b": must be 3 to 16 letters and digits'],
    ['negative clicks', { links: [{ fullLink: 'https://a.example', clicks: -1 }] }, 'links[0].clicks: invalid value -1: must be a whole number from 0 to 10000'],
    ['a field links do not have', { links: [{ fullLink: 'https://a.example', colour: 'red' }] }, 'links[0].colour: is not a field here; the fields are fullLink, key'],
    ['a short number', { messages: [{ to: '12345', text: 'hi' }] }, 'messages[0].to: invalid value "12345": must have 7 to 15 digits'],
    ['an empty text', { messages: [{ to: '77011234567', text: '' }] }, 'messages[0].text: invalid value "": must not be empty'],
    ['a sender not registered', { messages: [{ to: '77011234567', text: 'hi', from: 'Nope' }] }, 'messages[0].from: invalid value "Nope": is not a registered sender'],
    ['a status of no message', { messages: [{ to: '77011234567', text: 'hi', status: 'SENT' }] }, 'messages[0].status: invalid value "SENT": must be one of NEW, ENQUEUD'],
    ['an age that is no whole number of seconds', { messages: [{ to: '77011234567', text: 'hi', ago: 1.5 }] }, 'messages[0].ago: invalid value 1.5: must be a whole number of seconds from 0 to 31622400'],
    ['a campaign link', { campaigns: [{ links: [{ fullLink: 'nope' }] }] }, 'campaigns[0].links[0].fullLink: invalid value "nope"'],
    ['a part the seed does not have', { link: [] }, 'seed.link: is not a field here; the fields are keys, senders, links, campaigns, messages'],
    ['a list that is not one', { links: { fullLink: 'https://a.example' } }, 'links: must be a list'],
    ['a key given twice', { keys: ['same-key-00', 'same-key-00'] }, 'keys[1]: is given twice'],
  ];
  it.each(cases)('%s is refused, naming the entry and the rule', (_what, seed, message) => {
    expect(() => checkSeed(seed)).toThrow(SeedError);
    expect(() => checkSeed(seed)).toThrow(message);
  });

  it('names a key that is not accepted without showing it', () => {
    const run = () => checkSeed({ keys: ['good-key-0000'], links: [{ fullLink: 'https://a.example', key: 'secret-typo-0000' }] });
    expect(run).toThrow('links[0].key: is not one of the keys of the seed (or of --api-key)');
    expect(run).not.toThrow(/secret-typo/);
  });

  it('stops startEmulator before anything listens', async () => {
    await expect(startTestEmulator({ seed: { links: [{ fullLink: 'nope' }] } })).rejects.toThrow('links[0].fullLink');
  });
});

describe('seed files', () => {
  it('reads YAML and JSON to the same data; YAML dates stay text', async () => {
    const dir = tempDir();
    const yamlFile = join(dir, 'seed.yaml');
    const jsonFile = join(dir, 'seed.json');
    writeFileSync(yamlFile, 'links:\n  - { fullLink: https://example.com/a, expirationDate: 2030-01-31, clicks: 2 }\nmessages:\n  - { to: "77011234567", text: hi }\n');
    writeFileSync(jsonFile, JSON.stringify({ links: [{ fullLink: 'https://example.com/a', expirationDate: '2030-01-31', clicks: 2 }], messages: [{ to: '77011234567', text: 'hi' }] }));
    expect(await readSeedFile(yamlFile)).toEqual(await readSeedFile(jsonFile));
    expect(checkSeed(await readSeedFile(yamlFile)).links[0].expirationDate).toBe('2030-01-31');
  });

  it('says where a YAML file is broken, and that a file is missing', async () => {
    const file = join(tempDir(), 'broken.yaml');
    writeFileSync(file, 'links:\n  - { fullLink: https://example.com/a\nmessages: []\n');
    await expect(readSeedFile(file)).rejects.toThrow(/^is not valid YAML \(line \d+, column \d+\)/);
    writeFileSync(file, 'links: []\nlinks: []\n');
    await expect(readSeedFile(file)).rejects.toThrow(/not valid YAML.*unique/i);
    await expect(readSeedFile(join(tempDir(), 'none.yaml'))).rejects.toThrow('no such file');
    const json = join(tempDir(), 'broken.json');
    writeFileSync(json, '{"links": [}');
    await expect(readSeedFile(json)).rejects.toThrow(/^is not valid JSON/);
  });

  it('the starter file is a valid seed that serve starts with', async () => {
    const data = parse(STARTER_YAML) as SeedData;
    const seed = checkSeed(data);
    expect(seed.links.length + seed.campaigns.length + seed.messages.length).toBeGreaterThan(5);
    emu = await startTestEmulator({ seed: data });
    expect((await list('test-key-1')).items.some((l) => l.code === 'spring')).toBe(true);
    // The guide's first test waits for a code sent to 77011234567: a seeded message there would answer it with another.
    expect(seed.messages.map((m) => m.to)).not.toContain('77011234567');
    expect(readFileSync(new URL('../../docs/emulator.md', import.meta.url), 'utf8')).toContain('inbox wait --to +77011234567');
  });
});
