// Proxy settings (--proxy, HTTPS_PROXY, HTTP_PROXY) are checked before
// anything is sent, and named as the user gave them. Sending through a real
// proxy: bin.test.ts.
import { describe, expect, it } from 'vitest';
import { useRecordingServer } from '../../helpers/recording-server.js';

const rec = useRecordingServer('ProxyKey0123456789abcdefABCDEF0123456789a');

describe('a proxy setting that is no proxy URL', () => {
  it('a bad proxy setting is named, with exit 2 for the flag and 4 for the environment', async () => {
    const flag = await rec.cli(['link', 'get', '1', '--proxy', 'notaurl']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--proxy: "notaurl" is not a proxy URL');
    const env = await rec.cli(['link', 'get', '1'], { env: { HTTPS_PROXY: 'ftp://x' } });
    expect(env.code).toBe(4);
    expect(env.stderr).toContain('HTTPS_PROXY: "ftp://x" is not a proxy URL');
    expect(rec.server.requests).toHaveLength(0);
  });

  it('a proxy URL with a path is refused as a bad flag (exit 2), its password masked, rather than crashing', async () => {
    const r = await rec.cli(['link', 'get', '1', '--proxy', 'http://user:hunter2pass@127.0.0.1:3128/echo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--proxy: "http://user:***@127.0.0.1:3128/echo" is not a proxy URL');
    expect(r.stderr).not.toContain('hunter2pass');
    expect(r.stderr).not.toContain('unexpected error');
    expect(rec.server.requests).toHaveLength(0);
  });

  it.each([
    ['no scheme', 'user:hunter2pass@127.0.0.1:3128', 'user:***@127.0.0.1:3128'],
    ['a port that is no number', 'http://user:hunter2pass@127.0.0.1:port', 'http://user:***@127.0.0.1:port'],
    ['an @ in the password', 'http://user:hunter2@pass@127.0.0.1:3128/x', 'http://user:***@127.0.0.1:3128/x'],
  ])('a malformed proxy URL (%s) is echoed without its password, from the flag and the environment', async (_what, proxy, shown) => {
    const flag = await rec.cli(['link', 'get', '1', '--proxy', proxy]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(`--proxy: "${shown}" is not a proxy URL`);
    const env = await rec.cli(['link', 'get', '1'], { env: { HTTPS_PROXY: proxy } });
    expect(env.code).toBe(4);
    expect(env.stderr).toContain(`HTTPS_PROXY: "${shown}" is not a proxy URL`);
    for (const r of [flag, env]) expect(r.stdout + r.stderr).not.toMatch(/hunter2|pass@/);
    expect(rec.server.requests).toHaveLength(0);
  });
});
