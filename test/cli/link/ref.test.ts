// A person copies short links, not ids: update, delete and stats take an id,
// a code or a short link, and a reference that finds nothing is named as typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { startTestEmulator, withLetterInCode, type TestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
const cli = (args: string[]) => runCli(args, { env: { SMSLINK_BASE_URL: emu.url, SMSLINK_API_KEY: emu.key } });

/** A link whose code can be typed bare: digits alone would be an id (see "digits alone" below). */
function create(fullLink: string): Promise<{ id: number; code: string; shortLink: string }> {
  return withLetterInCode(async () => {
    const r = await cli(['link', 'create', fullLink, '-o', 'json']);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  });
}

beforeAll(async () => {
  // The service makes codes of digits alone too (about one four-character code in 1,500).
  emu = await startTestEmulator({ seed: { links: [{ fullLink: 'https://example.com/digits', code: '4821' }] } });
});
afterAll(() => emu.close());

describe('link references', () => {
  it('link update takes a code or a short link', async () => {
    const link = await create('https://example.com/update');
    const byCode = await cli(['link', 'update', link.code, '--comment', 'by code', '-o', 'json']);
    expect(byCode.code).toBe(0);
    expect(JSON.parse(byCode.stdout)).toMatchObject({ id: link.id, comment: 'by code' });
    const byShortLink = await cli(['link', 'update', link.shortLink, '--status', 'inactive', '-o', 'json']);
    expect(byShortLink.code).toBe(0);
    const after = JSON.parse((await cli(['link', 'get', String(link.id), '-o', 'json'])).stdout);
    expect(after).toMatchObject({ status: 0, comment: 'by code' });
  });

  it('link delete takes codes and short links; one that finds nothing is named, the others deleted (exit 5)', async () => {
    const a = await create('https://example.com/delete-a');
    const b = await create('https://example.com/delete-b');
    const c = await create('https://example.com/delete-c');
    const some = await cli(['link', 'delete', a.code, 'zzzzzz', '-o', 'json']);
    expect(some.code).toBe(5);
    expect(JSON.parse(some.stdout).processed).toEqual([a.id]);
    expect(some.stderr).toBe('error: no link found for zzzzzz (unknown, or not yours)\n');
    expect((await cli(['link', 'get', a.code])).code).toBe(6);
    const r = await cli(['link', 'delete', c.code, b.shortLink, '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).processed.sort()).toEqual([b.id, c.id].sort());
    expect((await cli(['link', 'get', b.shortLink])).code).toBe(6);
  });

  it('digits alone are an id: a code of digits is named by its short link or --code, and a delete never takes it for one', async () => {
    const hint = `Digits alone are an id: to name the link whose code is 4821, give its short link, ${emu.url}/4821.`;
    const get = await cli(['link', 'get', '4821']);
    expect([get.code, get.stderr]).toEqual([6, `error: no link found for 4821 (unknown, or not yours)\n${hint}\n`]);
    const del = await cli(['link', 'delete', '4821', '-o', 'json']);
    expect([del.code, del.stderr]).toEqual([6, `error: no link found for 4821 (unknown, or not yours)\n${hint}\n`]);
    const update = await cli(['link', 'update', '4821', '--comment', 'x']);
    expect([update.code, update.stderr]).toEqual([6, `error: no link found for 4821 (unknown, or not yours)\n${hint}\n`]);
    // Some found, 4821 not: exit 5, and the same words.
    const other = await create('https://example.com/beside-digits');
    const stats = await cli(['link', 'stats', other.code, '4821', '--type', 'daily', '-o', 'csv']);
    expect([stats.code, stats.stderr]).toEqual([5, `error: no link found for 4821 (unknown, or not yours)\n${hint}\n`]);
    for (const ref of [['--code', '4821'], [`${emu.url}/4821`]]) {
      const r = await cli(['link', 'get', ...ref, '-o', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ code: '4821', fullLink: 'https://example.com/digits' });
    }
  });

  it('link stats takes codes', async () => {
    const link = await create('https://example.com/stats');
    const r = await cli(['link', 'stats', link.code, '--type', 'daily', '-o', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`period,clicks_${link.id},redirects_${link.id}`);
  });

  it.each([
    [['link', 'update', '99999', '--comment', 'x'], 6, 'no link found for 99999 (unknown, or not yours)'],
    [['link', 'update', 'http://127.0.0.1:1/nope', '--comment', 'x'], 6, 'no link found for http://127.0.0.1:1/nope (unknown, or not yours)'],
    [['link', 'get', '99999999999999999999'], 2, '"99999999999999999999" is not a link id'],
    [['link', 'delete', 'not a code'], 2, '"not a code" is not a link id, code or short link'],
    [['link', 'update', '1'], 2, 'link update 1: nothing to change; give --status, --expires, --no-expiry or --comment'],
  ])('%j exits %i and names what was typed', async (args, code, message) => {
    const r = await cli(args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('--id');
    expect(r.stderr).not.toContain('Link/Get failed');
  });
});
