// Every command against the emulator over real HTTP: the flows a person, a
// script and an operator go through, with the state checked in the service.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { withLetterInCode } from '../helpers/emulator.js';
import { runCli, tempDir } from '../helpers/run-cli.js';

let emu: RunningEmulator;
const KEY = 'E2eKeyOne0123456789abcdefABCDEF0123456789';
const OTHER = 'E2eKeyTwo0123456789abcdefABCDEF0123456789';

beforeAll(async () => {
  // 3600x: a simulated hour per second, so delivery takes milliseconds and validity (60 min) a second.
  emu = await startEmulator({ port: 0, db: ':memory:', apiKeys: [KEY, OTHER], timeScale: 3600 });
});
afterAll(() => emu.close());

const as = (key: string) => (args: string[], opts: Parameters<typeof runCli>[1] = {}) =>
  runCli(args, { ...opts, env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: key, ...opts.env } });
const cli = as(KEY);
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('links, end to end', () => {
  it('create, get three ways, list, update keeping the expiry, visit, stats, delete', async () => {
    // A link whose code has a letter, as the loop below types it bare (the list after it finds this link alone).
    const { id, code, shortLink } = await withLetterInCode(
      async () => json((await cli(['link', 'create', 'https://example.com/e2e?a=1&b=2', '--expires', '2099-12-31', '--comment', 'e2e flow'])).stdout) as { id: number; code: string; shortLink: string },
      (link) => cli(['link', 'delete', String(link.id), '--yes']),
    );
    expect(shortLink).toBe(`${emu.url}/${code}`);

    for (const ref of [String(id), code, shortLink]) {
      const got = await cli(['link', 'get', ref]);
      expect(got.code).toBe(0);
      expect(json(got.stdout)).toMatchObject({ id, code, fullLink: 'https://example.com/e2e?a=1&b=2', status: 1, expirationDate: '2099-12-31', comment: 'e2e flow' });
    }
    expect((await cli(['link', 'list', '--query', 'e2e flow', '-q'])).stdout).toBe(`${id}\n`);

    // A comment change must not clear the expiry (the contract's Update would).
    expect((await cli(['link', 'update', String(id), '--comment', 'renamed'])).code).toBe(0);
    expect(json((await cli(['link', 'get', String(id)])).stdout)).toMatchObject({ expirationDate: '2099-12-31', comment: 'renamed', status: 1 });
    expect((await cli(['link', 'update', String(id), '--no-expiry'])).code).toBe(0);
    expect(json((await cli(['link', 'get', String(id)])).stdout)).toMatchObject({ expirationDate: null, comment: 'renamed' });

    // The short link really redirects and counts.
    for (let i = 0; i < 3; i++) {
      const res = await request(shortLink, { method: 'GET' });
      await res.body.dump();
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('https://example.com/e2e?a=1&b=2');
    }
    const stats = await cli(['link', 'stats', String(id), '--type', 'daily', '-o', 'csv']);
    const rows = stats.stdout.trim().split('\n');
    expect(rows[0]).toBe(`period,clicks_${id},redirects_${id}`);
    expect(rows.slice(1).reduce((sum, r) => sum + Number(r.split(',')[1]), 0)).toBe(3);

    expect((await cli(['link', 'update', String(id), '--status', 'inactive'])).code).toBe(0);
    expect((await request(shortLink)).statusCode).toBe(404);

    const deleted = await cli(['link', 'delete', String(id)]);
    expect(deleted.code).toBe(0);
    expect((await cli(['link', 'get', String(id)])).code).toBe(6);
    // Gone: not found, as for every command that takes links.
    expect((await cli(['link', 'delete', String(id)])).code).toBe(6);
  });

  it('12 stats ids are split into requests of 5 and merged, keyed by link id', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const link = json((await cli(['link', 'create', `https://example.com/s${i}`])).stdout) as { id: number; shortLink: string };
      for (let v = 0; v < i % 4; v++) await (await request(link.shortLink)).body.dump();
      ids.push(link.id);
    }
    const r = await cli(['link', 'stats', ...ids.map(String), '--type', 'monthly', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(ids.map((id, i) => `${id} ${i % 4}`));
    const csv = (await cli(['link', 'stats', ids.join(','), '--type', 'monthly', '-o', 'csv'])).stdout.trim().split('\n');
    expect(csv[0].split(',')).toHaveLength(1 + 2 * 12);
  });

  it('--all over 1,000 links returns each exactly once', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => `https://example.com/all/${i}`);
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, `fullLink,comment\n${rows.map((u) => `${u},all-check`).join('\n')}\n`);
    expect((await cli(['link', 'create', '--from-file', file, '--concurrency', '16', '-q'])).code).toBe(0);
    const listed = await cli(['link', 'list', '--all', '--query', 'all-check', '-o', 'ndjson', '--fields', 'id,fullLink']);
    const items = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; fullLink: string });
    expect(items).toHaveLength(1000);
    expect(new Set(items.map((i) => i.id)).size).toBe(1000);
    expect(new Set(items.map((i) => i.fullLink))).toEqual(new Set(rows));
    const limited = await cli(['link', 'list', '--query', 'all-check', '--limit', '130', '-q']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(130);
  });
});

describe('messages, end to end', () => {
  it.each([
    ['77015550001', 0, 'DELIVRD'],
    ['77015553333', 0, 'DELIVRD'],
    ['77015551111', 7, 'UNDELIV'],
    ['77015550000', 7, 'REJECTD'],
  ])('send --wait to %s exits %i (%s)', async (to, exit, status) => {
    const r = await cli(['message', 'send', '--to', to, '--text', 'e2e', '--wait', '--wait-timeout', '30s']);
    expect(r.code).toBe(exit);
    expect(json(r.stdout)).toMatchObject({ deliveryStatus: status });
  });

  it('a test number ending 2222 expires when its validity runs out (exit 7)', async () => {
    const r = await cli(['message', 'send', '--to', '77015552222', '--text', 'e2e', '--validity', '60', '--wait', '--wait-timeout', '30s']);
    expect(r.code).toBe(7);
    expect(json(r.stdout)).toMatchObject({ deliveryStatus: 'EXPIRED' });
  });

  it('status of 250 ids comes back complete and in the order given', async () => {
    const file = join(tempDir(), 'sms.csv');
    writeFileSync(file, `recipient,text\n${Array.from({ length: 250 }, (_, i) => `7701${String(2000000 + i)},hello ${i}`).join('\n')}\n`);
    const sent = await cli(['message', 'send', '--from-file', file, '--concurrency', '16', '-o', 'ndjson']);
    expect(sent.code).toBe(0);
    const ids = sent.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { messageId: number }).messageId).reverse();
    const status = await cli(['message', 'status', ids.join(','), '-o', 'ndjson']);
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(ids);
  });

  it('--shorten-links makes campaign links; list shows country and operator', async () => {
    const sent = json((await cli(['message', 'send', '--to', '+7 701 555 0042', '--text', 'Sale at https://example.com/sale today', '--shorten-links'])).stdout) as {
      campaignId: number;
      messageId: number;
    };
    const links = JSON.parse((await cli(['link', 'campaign', String(sent.campaignId)])).stdout) as Array<{ fullLink: string; shortLink: string }>;
    expect(links.map((l) => l.fullLink)).toEqual(['https://example.com/sale']);
    const listed = JSON.parse((await cli(['message', 'list', '--to', '77015550042', '--with-number-info'])).stdout) as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ id: sent.messageId, countryA2: 'KZ', text: expect.stringContaining(links[0].shortLink) });
    // A table, CSV or TSV shows them too, after the usual columns; without the flag they are not asked for.
    const csv = (await cli(['message', 'list', '--to', '77015550042', '--with-number-info', '-o', 'csv'])).stdout.split('\n');
    expect(csv[0]).toBe('id,campaignId,to,from,status,segNum,startSendTs,statusUpdateTs,text,countryA2,operatorName');
    expect(csv[1]).toMatch(/,KZ,\S+$/);
    const table = (await cli(['message', 'list', '--to', '77015550042', '--with-number-info', '-o', 'table'], { env: { COLUMNS: '200' } })).stdout;
    expect(table.split('\n')[0]).toMatch(/\bcountry +operator$/);
    expect((await cli(['message', 'list', '--to', '77015550042', '-o', 'csv'])).stdout.split('\n')[0]).toBe('id,campaignId,to,from,status,segNum,startSendTs,statusUpdateTs,text');
  });

  it('message list -o csv and tsv carry when the status last changed, as json does', async () => {
    const sent = json((await cli(['message', 'send', '--to', '77015550077', '--text', 'when did it change', '--wait'])).stdout) as { messageId: number; statusUpdateTs: string };
    expect(sent.statusUpdateTs).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const [item] = JSON.parse((await cli(['message', 'list', '--to', '77015550077'])).stdout) as Array<Record<string, unknown>>;
    expect(item.statusUpdateTs).toBe(sent.statusUpdateTs);
    for (const [format, sep] of [['csv', ','], ['tsv', '\t']] as const) {
      const [head, row] = (await cli(['message', 'list', '--to', '77015550077', '-o', format])).stdout.split('\n').map((l) => l.split(sep));
      expect(head, format).toContain('statusUpdateTs');
      expect(row[head.indexOf('statusUpdateTs')], format).toBe(sent.statusUpdateTs);
      expect(row[head.indexOf('startSendTs')], format).toBe(item.startSendTs);
    }
  });
});

describe('what the live service adds, through the CLI', () => {
  it('message list --id finds one message and --campaign one campaign\'s messages', async () => {
    const sent = [];
    for (const text of ['first of two', 'second of two']) sent.push(json((await cli(['message', 'send', '--to', '77015551234', '--text', text])).stdout) as { messageId: number; campaignId: number });
    const one = JSON.parse((await cli(['message', 'list', '--id', String(sent[1].messageId)])).stdout) as Array<{ id: number; text: string }>;
    expect(one).toEqual([expect.objectContaining({ id: sent[1].messageId, text: 'second of two' })]);
    expect((await cli(['message', 'list', '--campaign', String(sent[0].campaignId), '-q'])).stdout).toBe(`${sent[0].messageId}\n`);
    expect((await cli(['message', 'list', '--campaign', String(sent[0].campaignId), '--id', String(sent[1].messageId), '-q'])).stdout).toBe('');
  });

  it('an error in the live shape (a list of texts per field) is shown by its field and first text', async () => {
    const r = await cli(['api', 'Link/Create', 'data[fullLink]=not a link', `data[comment]=${'x'.repeat(256)}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/code 1 \(validation error\): One or more parameters contain incorrect data \(data\[fullLink\], data\[comment\]\): check the errors in data and try again\. \(fullLink: must be a URL[^;]*; comment: [^)]*255[^)]*\)/);
    expect(r.stderr).not.toContain('["');
  });
});

describe('per-key isolation through the CLI', () => {
  it("a second key can neither read, list, update, delete nor get status of the first key's objects", async () => {
    const link = json((await cli(['link', 'create', 'https://example.com/private', '--comment', 'mine-only'])).stdout) as { id: number };
    const msg = json((await cli(['message', 'send', '--to', '77015559876', '--text', 'private'])).stdout) as { messageId: number };
    const other = as(OTHER);
    expect((await other(['link', 'get', String(link.id)])).code).toBe(6);
    expect((await other(['link', 'list', '--query', 'mine-only', '-q'])).stdout).toBe('');
    expect((await other(['link', 'update', String(link.id), '--expires', '2099-01-01'])).code).toBe(6);
    expect((await other(['link', 'delete', String(link.id)])).code).toBe(6);
    expect((await other(['message', 'status', String(msg.messageId)])).code).toBe(6);
    expect((await other(['message', 'list', '--to', '77015559876', '-q'])).stdout).toBe('');
    // ...and the first key still has both, unchanged.
    expect(json((await cli(['link', 'get', String(link.id)])).stdout)).toMatchObject({ comment: 'mine-only', expirationDate: null });
    expect((await cli(['message', 'status', String(msg.messageId)])).code).toBe(0);
  });
});
