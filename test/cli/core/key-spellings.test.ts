// No key whole, anywhere: a key sent under any spelling of its parameter's
// name (apikey, APIKEY, apiKey[] ...) is masked in `smslink api`'s --dry-run
// and --verbose, in serve's lines and in the inspector's request log; keys on
// the command line of serve and `config set` are warned about at a terminal.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/run.js';
import { runCli, tempDir } from '../../helpers/run-cli.js';

const KEY_A = 'SPELLKEYA-0123456789-aaaa';
const KEY_B = 'SPELLKEYB-0123456789-bbbb';
/** Shorter than any key smslink scrubs from text: masked by its parameter's name alone. */
const SHORT = 'sh0rtk3';
const SPELLINGS = ['apiKey', 'apikey', 'APIKEY', 'apiKey[]', 'apiKey[0]', 'api_key'];
/**
 * A key `smslink api` is given as a parameter, one per spelling: tests run in
 * one process, where a key seen once (serve's, say) is scrubbed from all later
 * output, so each spelling gets a key nothing has seen yet.
 */
const paramKey = (name: string) => `SPELLKEYC-0123456789-${SPELLINGS.indexOf(name)}`;

/** `smslink serve` in this process, its output captured. */
async function serve(args: string[], tty = false) {
  const ac = new AbortController();
  let out = '';
  let err = '';
  let announce: (url: string) => void;
  const ready = new Promise<string>((resolve) => (announce = resolve));
  const done = run(['serve', '--port', '0', '--db', ':memory:', ...args], {
    stdout: {
      isTTY: tty,
      write: (s: string) => {
        out += s;
        const m = /^listening on (\S+)$/m.exec(out);
        if (m) announce(m[1]);
        return true;
      },
    },
    stderr: { isTTY: tty, columns: 200, write: (s: string) => ((err += s), true) },
    stdin: process.stdin,
    env: { SMSLINK_CONFIG_DIR: tempDir(), SMSLINK_DATA_DIR: tempDir(), NO_COLOR: '1' },
    signal: ac.signal,
  });
  const url = await Promise.race([ready, done.then((code) => Promise.reject(new Error(`serve exited ${code}: ${err}`)))]);
  return { url, stop: async () => (ac.abort(), done), output: () => out + err };
}

describe('a key under every spelling of its name', () => {
  let served: Awaited<ReturnType<typeof serve>>;
  const outputs: Array<[what: string, text: string]> = [];
  beforeAll(async () => {
    served = await serve(['--api-key', KEY_A, '--api-key', KEY_B]);
  });
  afterAll(async () => {
    await served.stop();
  });

  it.each(SPELLINGS)('%s: masked in `smslink api` --dry-run (json and table) and --verbose', async (name) => {
    const env = { SMSLINK_BASE_URL: served.url, SMSLINK_API_KEY: KEY_A };
    const key = paramKey(name);
    const runs: string[] = [];
    for (const args of [
      ['api', 'Link/List', `${name}=${key}`, '--dry-run'],
      ['api', 'Link/List', `${name}=${key}`, '--dry-run', '-o', 'table'],
      ['api', 'Link/List', `${name}=${SHORT}`, '--dry-run'],
      ['api', 'Link/List', `${name}=${SHORT}`, '--dry-run', '-o', 'table'],
      ['api', 'Link/List', `${name}=${key}`, '--verbose'],
      ['api', 'Link/List', `${name}=${SHORT}`, '--verbose', '--show-pii'],
    ]) {
      const r = await runCli(args, { env });
      // Sent, apiKey in the body is the key the service reads: one it does not accept (or a list) is exit 4.
      expect(args.includes('--verbose') && /^apiKey($|\[)/.test(name) ? [0, 4] : [0], args.join(' ')).toContain(r.code);
      runs.push(r.stdout + r.stderr);
      outputs.push([args.join(' '), r.stdout + r.stderr]);
    }
    // The parameter is sent, and shown, under the name given; its value is not shown.
    for (const dry of [runs[0], runs[2]]) {
      expect(JSON.parse(dry)).toMatchObject({ fields: { [name]: '***' }, body: `${encodeURIComponent(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=***` });
    }
    expect(runs[1]).toMatch(new RegExp(`^  ${name.replace(/[[\]]/g, '\\$&')} +\\*\\*\\*$`, 'm'));
    expect(runs[4]).toContain(`>   ${name} = ***`);
    expect(runs[5]).toContain(`>   ${name} = ***`);
    for (const text of runs) expect(text).not.toMatch(new RegExp(`${key}|${SHORT}`));
  });

  it.each(SPELLINGS)('%s: masked in the inspector and in serve\'s lines, sent in the query and in the body', async (name) => {
    const wire = encodeURIComponent(name);
    const res = await request(`${served.url}/service/Link/List?output=json&api=v1&apiKey=${KEY_A}&${wire}=${KEY_B}`, {
      method: 'POST',
      body: `${wire}=${KEY_B}&${wire}=${SHORT}&data[comment]=${KEY_B}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    const page = await (await request(`${served.url}/_emulator/requests`)).body.text();
    outputs.push([`inspector after ${name}`, page]);
    const params = [...page.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].slice(0, 7).map((m) => [m[1], m[2]]);
    expect(params).toEqual([
      ['output', 'json'],
      ['api', 'v1'],
      ['apiKey', '********aaaa'],
      [name, '********bbbb'],
      [name, '********bbbb'],
      [name, '************'],
      ['data[comment]', '********bbbb'],
    ]);
  });

  it('no output of any of them holds a key', async () => {
    // serve writes its request lines within 50 ms.
    await expect.poll(() => served.output().match(/Link\/List/g)?.length ?? 0).toBeGreaterThanOrEqual(SPELLINGS.length * 3);
    outputs.push(['serve', served.output()]);
    expect(outputs.length).toBeGreaterThan(SPELLINGS.length * 7);
    for (const [what, text] of outputs) {
      for (const secret of [KEY_A, KEY_B, ...SPELLINGS.map(paramKey), SHORT]) expect(text.includes(secret), `${secret} in ${what}`).toBe(false);
    }
    expect(served.output()).toContain('accepting API keys: ********aaaa, ********bbbb\n');
  });
});

describe('keys on the command line', () => {
  it('serve names the public default key, and masks every other', async () => {
    const plain = await serve([]);
    await plain.stop();
    expect(plain.output()).toContain('accepting API keys: sandbox (the public default; --api-key or --seed sets yours)\n');
    // At 80 columns the line is whole: `... a seed file sets y` / `our own)` was cut.
    for (const line of plain.output().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('serve --api-key and --control-token warn at a terminal, as --api-key does elsewhere; a script is not told', async () => {
    const tty = await serve(['--api-key', KEY_A, '--control-token', 'control-token-0123456789'], true);
    await tty.stop();
    expect(tty.output()).toContain('warning: --api-key is visible to other users in the process list');
    expect(tty.output()).toContain('warning: --control-token is visible to other users in the process list; prefer SMSLINK_CONTROL_TOKEN.');
    expect(tty.output()).not.toContain('control-token-0123456789');
    const script = await serve(['--api-key', KEY_A, '--control-token', 'control-token-0123456789']);
    await script.stop();
    expect(script.output()).not.toContain('warning');
  });

  it('config set api-key KEY warns at a terminal; asked for or piped, it does not', async () => {
    const env = { SMSLINK_CONFIG_DIR: tempDir() };
    const typed = await runCli(['config', 'set', 'api-key', KEY_A, '--no-color'], { env, tty: true });
    expect(typed.code).toBe(0);
    expect(typed.stderr).toContain('warning: a key given on the command line is visible to other users in the process list');
    expect(typed.stderr).toContain('`smslink config set api-key` asks for it instead.');
    const piped = await runCli(['config', 'set', 'api-key', '-'], { env, stdin: KEY_B });
    expect(piped.stderr).not.toContain('warning');
    const script = await runCli(['config', 'set', 'api-key', KEY_A], { env });
    expect(script.stderr).not.toContain('warning');
    for (const r of [typed, piped, script]) expect(r.stdout + r.stderr).not.toMatch(/SPELLKEY/);
  });
});
