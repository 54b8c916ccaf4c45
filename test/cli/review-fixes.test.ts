// Behaviours found in review: each would have misled a user or a script.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, binEnv } from '../helpers/run-cli.js';
import { useRecordingServer } from '../helpers/recording-server.js';

const rec = useRecordingServer('ReviewKey0123456789abcdefABCDEF012345678');
const BIN = fileURLToPath(new URL('../../bin/smslink.js', import.meta.url));

describe('found in review', () => {
  it('link stats with no ids is a usage error, not an empty success', async () => {
    const r = await rec.cli(['link', 'stats', '-', '--type', 'daily'], { stdin: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<link...>');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--all -o json prints nothing rather than broken JSON when a later page fails', async () => {
    let page = 0;
    rec.server.respond(() =>
      page++ === 0
        ? { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => ({ id: String(i + 1) })), totalItemCount: '250' }, message: '' } }
        : { body: { code: 15, data: null, message: 'boom' } },
    );
    const r = await rec.cli(['link', 'list', '--all', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('a delete retried after a lost answer does not report the link as not deleted', async () => {
    let deletes = 0;
    rec.server.respond((req) => {
      if (req.path.endsWith('Delete')) {
        deletes += 1;
        // The first attempt deletes, then its answer is lost; the retry finds nothing to delete.
        return deletes === 1 ? { status: 502, body: '<html>bad gateway</html>' } : { body: { code: 0, data: { processed: [], notProcessed: ['7'] }, message: '' } };
      }
      if (req.path.endsWith('Get')) return { body: { code: 2, data: null, message: 'not found' } };
      return undefined;
    });
    const r = await rec.cli(['link', 'delete', '7']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('7: not found after a retried delete; taken as deleted');
  });

  it('send --wait names the message id before waiting, so an interrupted wait does not lose it', async () => {
    const ac = new AbortController();
    rec.server.respond((req) =>
      req.path.endsWith('GetSMSStatus') ? { body: { code: 0, data: [{ id: '123456', status: 'ENQUEUD', segNum: '1', startSendTs: null, statusUpdateTs: null }], message: '' } } : undefined,
    );
    setTimeout(() => ac.abort(), 300);
    const r = await rec.cli(['message', 'send', '--to', '77011234567', '--text', 'x', '--wait'], { signal: ac.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('sent: messageId 123456 (campaign 9001)');
    expect(r.stderr).toContain('interrupted while waiting; not final yet: 123456');
  });

  it('short public keys are not scrubbed out of the data', async () => {
    rec.server.respond((req) =>
      req.path.endsWith('Get') ? { body: { code: 0, data: { id: '1', code: 'sandbox', comment: 'sandbox test', fullLink: 'https://sandbox.example.com' }, message: '' } } : undefined,
    );
    const r = await runCli(['link', 'get', '1'], { env: { SMSLINK_BASE_URL: rec.server.url, SMSLINK_API_KEY: 'sandbox' } });
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'sandbox', comment: 'sandbox test', fullLink: 'https://sandbox.example.com' });
  });

  it('control characters in data never reach the terminal from a table', async () => {
    rec.server.respond((req) => (req.path.endsWith('Get') ? { body: { code: 0, data: { id: '1', comment: 'hi\u001b]0;pwned\u0007\u001b[31mred' }, message: '' } } : undefined));
    const r = await rec.cli(['link', 'get', '1', '-o', 'table', '--no-color']);
    expect(r.stdout).toMatch(/^comment\s+hi\\x1b\]0;pwned\\x07\\x1b\[31mred$/m);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('a closed pipe ends the command quietly, without a crash', async () => {
    rec.server.respond((req) =>
      req.path.endsWith('List')
        ? { body: { code: 0, data: { items: Array.from({ length: 100 }, (_, i) => ({ id: String(i), comment: 'x'.repeat(2000) })), totalItemCount: '100000' }, message: '' } }
        : undefined,
    );
    const child = spawn(process.execPath, [BIN, 'link', 'list', '--all', '-o', 'ndjson'], {
      env: binEnv(rec.env),
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).not.toContain('crashed');
    expect(stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(code).not.toBe(1);
  });
});

describe('found in the second review', () => {
  it('a bad proxy setting is named, with exit 2 for the flag and 4 for the environment', async () => {
    const flag = await rec.cli(['link', 'get', '1', '--proxy', 'notaurl']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--proxy: "notaurl" is not a proxy URL');
    const env = await rec.cli(['link', 'get', '1'], { env: { HTTPS_PROXY: 'ftp://x' } });
    expect(env.code).toBe(4);
    expect(env.stderr).toContain('HTTPS_PROXY: "ftp://x" is not a proxy URL');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--dry-run JSON keeps every value of a repeated field', async () => {
    const r = await rec.cli(['link', 'stats', '1', '2', '3', '--type', 'daily', '--dry-run']);
    expect(JSON.parse(r.stdout).fields['ids[]']).toEqual(['1', '2', '3']);
  });

  it('link update --no-expiry shows the link as the service now has it', async () => {
    const r = await rec.cli(['link', 'update', '417863', '--no-expiry']);
    // The recording server answers Update with `true`, then Link/Get with its sample link.
    expect(JSON.parse(r.stdout)).toEqual({ id: 417863, shortLink: 'https://sho.rt/ddoj', status: 1, expirationDate: '2026-12-31', comment: 'spring' });
  });

  it('--fields refuses a name no result has, and lists the fields', async () => {
    const r = await rec.cli(['link', 'get', '1', '--fields', 'id,shortlink']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fields: unknown field "shortlink"; fields here: id, code, shortLink, fullLink, status');
  });

  it('serve checks --faults even without --fault-rate', async () => {
    const r = await rec.cli(['serve', '--port', '0', '--db', ':memory:', '--faults', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--faults: unknown fault "bogus"');
  });

  it('message status --wait waits for the ids it finds and names the others (exit 5)', async () => {
    rec.server.respond((req) => {
      if (!req.path.endsWith('GetSMSStatus')) return undefined;
      const ids = new URLSearchParams(req.body).get('ids')!.split(',').filter((id) => id !== '999');
      return { body: { code: 0, data: ids.map((id) => ({ id, status: 'DELIVRD', segNum: '1', startSendTs: null, statusUpdateTs: null })), message: '' } };
    });
    const r = await rec.cli(['message', 'status', '1', '2', '999', '--wait', '-q']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('DELIVRD\nDELIVRD\n');
    expect(r.stderr).toContain('no message found for 999 (unknown, or not yours); waiting for the others');
  });

  it('Ctrl-C delivered twice at once (timeout(1) signals the process and its group) still ends cleanly', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'smslink-sig-'));
    const input = join(dir, 'links.csv');
    writeFileSync(input, `fullLink\n${Array.from({ length: 400 }, (_, i) => `https://example.com/sig${i}`).join('\n')}\n`);
    let n = 0;
    rec.server.respond((req) =>
      req.path.endsWith('Create') ? { body: { code: 0, data: { id: String(++n), code: `c${n}`, shortLink: `https://sho.rt/c${n}` }, message: '' } } : undefined,
    );
    const child = spawn(process.execPath, [BIN, 'link', 'create', '--from-file', input, '--rate', '50', '-o', 'ndjson'], {
      env: binEnv(rec.env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise((resolve) => setTimeout(resolve, 700));
    child.kill('SIGINT');
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('Interrupted');
    const printed = stdout.trim().split('\n').filter(Boolean).length;
    const done = readFileSync(`${input}.journal`, 'utf8').split('\n').filter((l) => l.includes('"state":"done"')).length;
    // Every row the journal says is done was printed.
    expect(printed).toBe(done);
    expect(done).toBeGreaterThan(0);
  });
});

describe('found in the third review', () => {
  it('a proxy URL with a path is refused as a bad flag (exit 2), its password masked, rather than crashing', async () => {
    const r = await rec.cli(['link', 'get', '1', '--proxy', 'http://user:hunter2pass@127.0.0.1:3128/echo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--proxy: "http://user:***@127.0.0.1:3128/echo" is not a proxy URL');
    expect(r.stderr).not.toContain('hunter2pass');
    expect(r.stderr).not.toContain('unexpected error');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('a bad sort or id list is echoed as typed, not as JSON', async () => {
    const sort = await rec.cli(['link', 'list', '--sort', 'foo:desc']);
    expect(sort.stderr).toContain('--sort: invalid value "foo:desc": cannot sort by "foo"');
    const ids = await rec.cli(['message', 'status', '1', 'abc']);
    expect(ids.code).toBe(2);
    expect(ids.stderr).toContain('invalid value "1,abc": ids must be positive whole numbers (got "abc")');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('--sort with more than FIELD:DIRECTION is refused, not cut short', async () => {
    const r = await rec.cli(['link', 'list', '--sort', 'createTs:desc:x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sort: invalid value "createTs:desc:x": use FIELD or FIELD:asc or FIELD:desc');
    expect(rec.server.requests).toHaveLength(0);
  });
});
