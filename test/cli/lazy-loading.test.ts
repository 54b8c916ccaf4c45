// Design rule 7, kept from regressing: what the bin loads for `--version` and
// `--help` never includes undici, conf, libsql, the emulator, the mirror,
// cli-table3, jq or qs (a form encoder, loaded when the first request is built).
// The real bin runs with a preload that records every module file it loads;
// a file of the bundle (dist/bundle/, built by global-setup) stands for the
// sources and packages esbuild put in it (dist/bundle/contents.json). The
// same probe must see undici and libsql where they are used, or it proves
// nothing. A command that sends a request or a few uses Node's own HTTP
// client; bulk runs and proxies use undici (src/client/send.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { binEnv, runCli, tempDir } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/smslink.js');
const TRACE = join(ROOT, 'test/helpers/module-trace.mjs');
// The emulator and the mirror by their entries: their bundle files (with libsql). A light module of theirs, such
// as the emulator's defaults (src/emulator/defaults.ts), may sit in the CLI's bundle.
const HEAVY = ['undici', 'conf', 'proper-lockfile', 'libsql', 'src/emulator/index.ts', 'src/mirror/index.ts', 'cli-table3', 'jq-wasm'];

/** Package names (`undici`), source folders (`src/emulator`) and files the bin loads for `args`. */
async function loadedBy(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; modules: Set<string>; builtins: Set<string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'smslink-trace-'));
  try {
    const trace = join(dir, 'modules.txt');
    // Not spawnSync: the recording server answers on this process's event loop.
    const child = spawn(process.execPath, ['--import', TRACE, BIN, ...args], {
      env: binEnv({ SMSLINK_DATA_DIR: tempDir(), SMSLINK_TRACE_FILE: trace, ...env }),
      stdio: 'ignore',
    });
    const [status] = (await once(child, 'close')) as [number | null];
    const contents = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/contents.json'), 'utf8')) as Record<string, string[]>;
    const modules = new Set<string>();
    const builtins = new Set<string>();
    for (const line of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
      if (line.startsWith('node:')) {
        builtins.add(line.slice('node:'.length));
        continue;
      }
      const file = relative(ROOT, line.startsWith('file:') ? fileURLToPath(line) : line);
      const inputs = file.startsWith('dist/bundle/') ? (contents[file.slice('dist/bundle/'.length)] ?? [file]) : [file];
      for (const input of inputs) {
        modules.add(input);
        const pkg = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
        if (pkg) modules.add(pkg[1]);
        if (input.startsWith('src/')) modules.add(input.split('/').slice(0, 2).join('/'));
      }
    }
    return { status, modules, builtins };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const heavyIn = (modules: Set<string>) => HEAVY.filter((m) => modules.has(m));

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

describe('modules loaded by the bin', () => {
  it('--version loads only the bin', async () => {
    const { status, modules } = await loadedBy(['--version']);
    expect(status).toBe(0);
    expect([...modules]).toEqual(['bin/smslink.js']);
  });

  it('--version among other flags and --help build the command tree without the heavy modules', async () => {
    for (const args of [['--help'], ['--no-color', '--version'], ['link', '--help'], ['message', 'send', '--help']]) {
      const { status, modules } = await loadedBy(args);
      expect(status, args.join(' ')).toBe(0);
      expect(modules.has('commander'), args.join(' ')).toBe(true); // the bundle's files are read through contents.json
      expect(heavyIn(modules), args.join(' ')).toEqual([]);
      expect(modules.has('qs'), args.join(' ')).toBe(false);
    }
  });

  it('--help into a file (or /dev/null), and a dry run, with stderr a pipe (as in CI) set up no stream: no node:net or node:stream', async () => {
    // Node's own modules as the process ends, without the trace's hooks (their worker writes to stderr).
    const dir = tempDir();
    const preload = join(dir, 'builtins.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, process.moduleLoadList.join('\\n')));`);
    const builtinsOf = async (args: string[], stdout: 'ignore' | number, env: Record<string, string> = {}) => {
      const child = spawn(process.execPath, ['--require', preload, BIN, ...args], { env: binEnv(env), stdio: ['ignore', stdout, 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const [status] = (await once(child, 'close')) as [number | null];
      const loaded = readFileSync(join(dir, 'loaded.txt'), 'utf8').split('\n');
      return { status, stderr, net: loaded.includes('NativeModule net'), stream: loaded.includes('NativeModule stream') };
    };
    expect(await builtinsOf(['--help'], 'ignore')).toEqual({ status: 0, stderr: '', net: false, stream: false });
    const file = join(dir, 'help.txt');
    const fd = openSync(file, 'w');
    const written = await builtinsOf(['--help'], fd);
    closeSync(fd);
    expect(written).toEqual({ status: 0, stderr: '', net: false, stream: false });
    // Written whole (with fs.writeSync: bin/smslink.js), as in-process.
    expect(readFileSync(file, 'utf8')).toBe((await runCli(['--help'])).stdout);
    // A dry run makes the run's client and prints the request: nothing said on stderr, nothing set up there.
    const env = { SMSLINK_BASE_URL: 'https://api.example.com', SMSLINK_API_KEY: 'TraceKey0123456789' };
    expect(await builtinsOf(['link', 'get', '417863', '--dry-run'], 'ignore', env)).toEqual({ status: 0, stderr: '', net: false, stream: false });
    // The same probe sees both where stderr is written: a usage error.
    expect(await builtinsOf(['link', 'get'], 'ignore')).toMatchObject({ status: 2, net: true, stream: true });
  });

  it('loads qs when a request is built, and not for a command that sends nothing', async () => {
    const env = { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'TraceKey0123456789' };
    const sent = await loadedBy(['link', 'get', '417863'], env);
    expect(sent.status).toBe(0);
    expect(sent.modules.has('qs')).toBe(true);
    const local = await loadedBy(['config', 'list'], env);
    expect(local.status).toBe(0);
    expect(local.modules.has('qs')).toBe(false);
  });

  it('the same probe sees undici for a bulk run and a proxy (a single request needs neither), libsql and the emulator with --sandbox, the mirror for sandbox reset, and cli-table3 for a table', async () => {
    const env = { SMSLINK_BASE_URL: server.url, SMSLINK_API_KEY: 'TraceKey0123456789' };
    const sent = await loadedBy(['link', 'get', '417863'], env);
    expect(sent.status).toBe(0);
    expect(heavyIn(sent.modules)).toEqual([]);
    expect(sent.modules.has('src/client/node-http.ts')).toBe(true);
    // jq (1.3 MB of WebAssembly) only with --jq.
    const filtered = await loadedBy(['link', 'get', '417863', '--jq', '.id'], env);
    expect(filtered.status).toBe(0);
    expect(heavyIn(filtered.modules)).toEqual(['jq-wasm']);
    const file = join(tempDir(), 'links.csv');
    writeFileSync(file, 'fullLink\nhttps://example.com/a\n');
    const bulk = await loadedBy(['link', 'create', '--from-file', file], env);
    expect(bulk.status).toBe(0);
    expect(heavyIn(bulk.modules)).toEqual(['undici']);
    // A send that first estimates its cost (--max-cost, or a terminal) sends its rows through undici too.
    const messages = join(tempDir(), 'messages.csv');
    writeFileSync(messages, 'recipient,text\n77011234567,hello\n');
    const estimated = await loadedBy(['message', 'send', '--from-file', messages, '--max-cost', '50'], env);
    expect(estimated.status).toBe(0);
    expect(heavyIn(estimated.modules)).toEqual(['undici']);
    // stream-json (and the stream-chain it runs on) for a JSON array, and only then.
    expect(bulk.modules.has('stream-json')).toBe(false);
    const array = join(tempDir(), 'links.json');
    writeFileSync(array, '[{"fullLink": "https://example.com/a"}]');
    const json = await loadedBy(['link', 'create', '--from-file', array], env);
    expect(json.status).toBe(0);
    expect(json.modules.has('stream-json')).toBe(true);
    expect(json.modules.has('stream-chain')).toBe(true);
    // Nothing listens on port 1: the run fails, after loading what a proxied request needs.
    const proxied = await loadedBy(['link', 'get', '1', '--retries', '0', '--allow-insecure-http'], {
      ...env,
      SMSLINK_BASE_URL: 'http://api.smslink.test',
      HTTP_PROXY: 'http://127.0.0.1:1',
    });
    expect(proxied.status).toBe(3);
    expect(heavyIn(proxied.modules)).toEqual(['undici']);
    // The sandbox's emulator answers in the process, through its send(): no HTTP client, no server.
    const sandbox = await loadedBy(['--sandbox', 'link', 'list']);
    expect(sandbox.status).toBe(0);
    expect(heavyIn(sandbox.modules)).toEqual(['libsql', 'src/emulator/index.ts']);
    // Nor node:http (src/client/envelope.ts loads it for an HTTP error); a request over HTTP does load it.
    expect(sandbox.builtins.has('http')).toBe(false);
    expect(sent.builtins.has('http')).toBe(true);
    // cli-table3 (and the string-width it measures with) when a table is drawn, and only then.
    const table = await loadedBy(['--sandbox', 'link', 'create', 'https://example.com/a', '-o', 'table']);
    expect(table.status).toBe(0);
    expect(heavyIn(table.modules)).toEqual(['libsql', 'src/emulator/index.ts', 'cli-table3']);
    expect(table.modules.has('string-width')).toBe(true);
    expect(sandbox.modules.has('string-width')).toBe(false);
    // Not for `serve wait`, which names the emulator's default address (src/emulator/defaults.ts) and only asks it.
    const waited = await loadedBy(['serve', 'wait', '--timeout', '1s']);
    expect(heavyIn(waited.modules)).toEqual([]);
    // The mirror (its own bundle file, with libsql) for a command that reads or clears it.
    const cleared = await loadedBy(['sandbox', 'reset', '--yes']);
    expect(cleared.status).toBe(0);
    expect(heavyIn(cleared.modules)).toContain('src/mirror/index.ts');
    expect(heavyIn(sandbox.modules)).not.toContain('src/mirror/index.ts');
    // libsql's binary, chosen without its detectors (scripts/libsql-native.cjs): no process.report, no child_process.
    expect([...sandbox.modules].filter((m) => m.startsWith('@libsql/'))).toHaveLength(1);
    expect([...sandbox.modules].filter((m) => /detect-libc|@neon-rs/.test(m))).toEqual([]);
  });
});

describe('commands built by a run', () => {
  /** Each command the run adds, and whether it is built in full (arguments, flags, action) or by name alone. */
  function built(argv: string[]): Record<string, 'full' | 'name'> {
    const out = { write: () => true };
    const program = buildProgram({ stdout: out, stderr: out, stdin: process.stdin, env: {} }, async () => {}, argv);
    const tree: Record<string, 'full' | 'name'> = {};
    const walk = (cmd: Command, path: string[]) => {
      for (const sub of cmd.commands) {
        const name = [...path, sub.name()];
        const full = sub.commands.length > 0 || sub.options.length > 0 || sub.registeredArguments.length > 0;
        tree[name.join(' ')] = full ? 'full' : 'name';
        walk(sub, name);
      }
    };
    walk(program, []);
    return tree;
  }

  it('--help adds every noun and none of their subcommands', () => {
    const tree = built(['--help']);
    expect(Object.keys(tree).filter((path) => /^(link|message|config|sandbox) /.test(path))).toEqual([]);
    expect(Object.keys(tree)).toEqual(expect.arrayContaining(['link', 'message', 'config', 'sandbox', 'serve', 'api']));
  });

  it('link get builds link and link get alone, in full, and nothing of the other nouns or verbs', () => {
    expect(built(['link', 'get', '417863'])).toEqual({ link: 'full', 'link get': 'full' });
    // A word that names another command builds that one too (it may be what was meant): `link list --query get`.
    expect(Object.keys(built(['link', 'list', '--query', 'get'])).sort()).toEqual(['link', 'link get', 'link list']);
  });
});
