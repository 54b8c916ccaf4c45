// The API key never appears in output, and --verbose keeps personal data
// masked. (Every runCli call also fails on a leaked key: see helpers/run-cli.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

const KEY = 'LEAKCANARY-0123456789abcdefABCDEF-LEAKCANARY';
let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

const env = () => ({ SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: KEY });

describe('the API key', () => {
  it.each([
    [['link', 'get', '1', '--verbose']],
    [['link', 'create', 'https://example.com', '--dry-run']],
    [['link', 'create', 'https://example.com', '--dry-run', '-o', 'table']],
    [['message', 'send', '--to', '77011234567', '--text', 'x', '--verbose', '--dry-run']],
    [['config', 'list']],
    [['config', 'get', 'api-key']],
  ])('stays out of %j', async (args) => {
    const r = await runCli(args, { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('stays out of error messages, including ones that echo the request URL', async () => {
    server.respond(() => ({ status: 502, body: `upstream error for /service/Link/Get?apiKey=${KEY}` }));
    const r = await runCli(['link', 'get', '1', '--verbose', '--retries', '0'], { env: env() });
    server.respond(undefined);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('apiKey=***');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it.each([
    ['with characters a URL escapes', 'SECRET(KEY) 0123456789ab!~'],
    ['of fewer than 12 characters', 'shortkey1'],
  ])('stays out of echoed URLs when it is a key %s, in each way a URL may spell it', async (_what, key) => {
    const spelled = [key, encodeURIComponent(key), new URLSearchParams({ k: key }).toString().slice(2), encodeURIComponent(key).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)];
    server.respond(() => ({ status: 502, body: `upstream: ${spelled.map((s) => `apiKey=${s}`).join(' ')}` }));
    const r = await runCli(['link', 'get', '1', '--retries', '0'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: key } });
    server.respond(undefined);
    expect(r.code).toBe(3);
    for (const s of spelled) expect(r.stderr).not.toContain(s);
    expect(r.stderr.match(/apiKey=\*\*\*/g)).toHaveLength(4);
    // config shows 12 characters whatever the key's length: the last 4 only of a key of 16 or more.
    const shown = (await runCli(['config', 'get', 'api-key'], { env: { SMSLINK_API_KEY: key } })).stdout.trim();
    expect(shown).toBe(key.length < 16 ? '************' : '********ab!~');
  });

  it('stays out of answers that echo it', async () => {
    server.respond(() => ({ body: { code: 8, data: [], message: `unknown key ${KEY}` } }));
    const r = await runCli(['link', 'get', '1'], { env: env() });
    server.respond(undefined);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('unknown key ***');
  });

  it('--api-key on a terminal warns once that the process list shows it', async () => {
    const tty = await runCli(['link', 'get', '1', '--api-key', KEY], { env: { SMSLINK_BASE_URL: server.url }, tty: true });
    expect(tty.stderr.match(/visible to other users in the process list/g)).toHaveLength(1);
    expect(tty.stderr).toContain('SMSLINK_API_KEY');
    const script = await runCli(['link', 'get', '1', '--api-key', KEY], { env: { SMSLINK_BASE_URL: server.url } });
    expect(script.stderr).toBe('');
  });

  it('short public keys are not scrubbed out of the data', async () => {
    server.respond((req) =>
      req.path.endsWith('Get') ? { body: { code: 0, data: { id: '1', code: 'sandbox', comment: 'sandbox test', fullLink: 'https://sandbox.example.com' }, message: '' } } : undefined,
    );
    const r = await runCli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'sandbox' } });
    server.respond(undefined);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'sandbox', comment: 'sandbox test', fullLink: 'https://sandbox.example.com' });
  });
});

describe('personal data in --verbose', () => {
  it('masks numbers to their last 4 digits and shortens texts', async () => {
    const r = await runCli(['message', 'send', '--to', '+7 701 123 45 67', '--text', 'Your secret code is 4711, do not share', '--verbose'], { env: env() });
    expect(r.stderr).toContain('recipient = *******4567');
    expect(r.stderr).toContain('text = Your sec… (38 chars)');
    expect(r.stderr).not.toContain('77011234567');
    expect(r.stderr).not.toContain('4711');
  });

  it('--show-pii shows them', async () => {
    const r = await runCli(['message', 'list', '--to', '77011234567', '--text', 'Your code', '--verbose', '--show-pii'], { env: env() });
    expect(r.stderr).toContain('criteria[to] = 77011234567');
    expect(r.stderr).toContain('criteria[text] = Your code');
  });
});
