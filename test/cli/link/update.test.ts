// `smslink link update` in-process against a recording server that answers in
// the live shapes: what is sent, what is printed, and the exit codes.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const KEY = 'LinkTestKey0123456789abcdefABCDEF01234567';
const rec = useRecordingServer(KEY);

const cli = rec.cli;
const bodies = () => rec.server.requests.map((r) => `${r.path.replace('/service/', '')} ${decodeURIComponent(r.body)}`);

describe('link update', () => {
  it('without --expires reads the link first and resends its expiry, status and comment', async () => {
    const r = await cli(['link', 'update', '417863', '--comment', 'new']);
    expect(r.code).toBe(0);
    expect(bodies()).toEqual(['Link/Get id=417863', 'Link/Update id=417863&data[status]=1&data[expirationDate]=2026-12-31&data[comment]=new']);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 417863, shortLink: 'https://sho.rt/ddoj', expirationDate: '2026-12-31', comment: 'new' });
  });

  // The live service answers Update with `true`, so the short link to print is read afterwards.
  it('--no-expiry clears the expiry on purpose, without reading first', async () => {
    await cli(['link', 'update', '417863', '--no-expiry', '--status', 'inactive']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[status]=0', 'Link/Get id=417863']);
  });

  it('--expires sets the date without reading first', async () => {
    await cli(['link', 'update', '417863', '--expires', '2027-01-31']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[expirationDate]=2027-01-31', 'Link/Get id=417863']);
  });

  it('does not read again when the service answers with the short link (documented shape)', async () => {
    rec.server.respond((req) => (req.path.endsWith('Update') ? { body: { code: 0, data: 'https://sho.rt/ddoj', message: '' } } : undefined));
    const r = await cli(['link', 'update', '417863', '--expires', '2027-01-31', '-q']);
    expect(bodies()).toEqual(['Link/Update id=417863&data[expirationDate]=2027-01-31']);
    expect(r.stdout).toBe('https://sho.rt/ddoj\n');
  });

  it('refuses an empty --comment, which the service would read as none given (the link would keep its comment), and sends nothing', async () => {
    const r = await cli(['link', 'update', '417863', '--comment', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--comment: invalid value "": the service reads an empty comment as none given and keeps the current one; it cannot clear a comment');
    expect(r.stdout).toBe('');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('refuses --expires with --no-expiry', async () => {
    const r = await cli(['link', 'update', '1', '--expires', '2027-01-31', '--no-expiry']);
    expect(r.code).toBe(2);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('checks the input before reading anything', async () => {
    const r = await cli(['link', 'update', '1', '--status', 'maybe']);
    expect(r.code).toBe(2);
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--help explains the expiry protection', async () => {
    const r = await cli(['link', 'update', '--help']);
    expect(r.stdout).toContain('clears the expiry date whenever it is not sent');
    expect(r.stdout).toContain('--no-expiry');
  });

  it('link update --no-expiry shows the link as the service now has it', async () => {
    const r = await rec.cli(['link', 'update', '417863', '--no-expiry']);
    // The recording server answers Update with `true`, then Link/Get with its sample link.
    expect(JSON.parse(r.stdout)).toEqual({ id: 417863, shortLink: 'https://sho.rt/ddoj', status: 1, expirationDate: '2026-12-31', comment: 'spring' });
  });
});

it('never prints the API key, even with --verbose', async () => {
  const r = await cli(['link', 'update', '417863', '--comment', 'x', '--verbose']);
  expect(r.stderr).toContain('apiKey=***');
  expect(r.stdout + r.stderr).not.toContain(KEY);
});
