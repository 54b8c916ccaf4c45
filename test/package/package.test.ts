// The package as users get it: `npm pack` in this clone, the tarball
// installed globally into a temporary prefix (as a CLI is) and into a
// temporary project (as a library is), both outside the clone, so nothing
// resolves from its node_modules; then the command and the library run from
// another directory, on the Node running this test. The tarball's file list
// is held to the rules of docs/performance.md, "The package".
// The installs fetch jq-wasm and libsql's binary from the npm registry (or its cache).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string | { types: string; import: string; default: string }>;
  optionalDependencies: Record<string, string>;
};
/** At most this many bytes of smslink's own files, unpacked (its dependencies are theirs). */
const BUDGET = 2.5 * 1024 * 1024;
const KEY = 'PackageKey0123456789';

const tmp = mkdtempSync(join(tmpdir(), 'smslink-package-'));
const dirs = { packed: join(tmp, 'packed'), global: join(tmp, 'global'), app: join(tmp, 'app'), elsewhere: join(tmp, 'elsewhere'), home: join(tmp, 'home') };
for (const dir of Object.values(dirs)) mkdirSync(dir);

/**
 * Nothing of this clone or of the npm that runs this test: npm_* variables
 * (`npm run` sets them) would configure the npm below; NODE_PATH would reach the clone.
 */
const env: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^npm_|^NODE_PATH$|^NODE_OPTIONS$|^SMSLINK_|^INIT_CWD$/i.test(k))),
  PATH: `${join(dirs.global, 'bin')}:${dirname(process.execPath)}:${process.env.PATH}`,
  SMSLINK_CONFIG_DIR: join(dirs.home, 'config'),
  SMSLINK_DATA_DIR: join(dirs.home, 'data'),
  SMSLINK_CACHE_DIR: join(dirs.home, 'cache'),
  NO_COLOR: '1',
} as Record<string, string>;

const run = (file: string, args: string[], cwd = dirs.elsewhere) => exec(file, args, { cwd, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
/** An npm command; what it printed on both streams. */
const npm = async (args: string[], cwd: string) => {
  const { stdout, stderr } = await run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd);
  return { stdout, stderr };
};

interface Packed {
  filename: string;
  files: Array<{ path: string; size: number }>;
}
let packed: Packed;
let tarball: string;
let manifestBefore: string;
let globalInstall: { stdout: string; stderr: string };
const installed = () => join(dirs.global, 'lib/node_modules/smslink');

beforeAll(async () => {
  manifestBefore = readFileSync(join(ROOT, 'package.json'), 'utf8');
  // The real `npm pack` of this clone: prepack builds and strips "prepare", postpack puts it back.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dirs.packed], ROOT);
  [packed] = JSON.parse(stdout) as Packed[];
  tarball = join(dirs.packed, packed.filename);
  globalInstall = await npm(['install', '--global', '--prefix', dirs.global, tarball], dirs.elsewhere);
  await npm(['install', '--prefix', dirs.app, tarball], dirs.elsewhere);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the tarball', () => {
  const paths = () => packed.files.map((f) => f.path);

  it('leaves the clone as it was: package.json keeps its prepare, so npm install in a clone still builds', () => {
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toBe(manifestBefore);
    expect(JSON.parse(manifestBefore).scripts.prepare).toBe('npm run build');
  });

  it('holds the licence, the changelog with this version, the docs the README links to, and no build info', () => {
    expect(paths()).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json']));
    expect(readFileSync(join(installed(), 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} the smslink authors\n/);
    expect(readFileSync(join(installed(), 'CHANGELOG.md'), 'utf8')).toContain(`\n## ${pkg.version}`);
    expect(paths().filter((p) => p.endsWith('.tsbuildinfo'))).toEqual([]);
    const readme = readFileSync(join(installed(), 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((l) => !existsSync(join(installed(), l)))).toEqual([]);
    // The README's install section names the tarball npm pack makes.
    expect(readme).toContain(`npm install -g ./${packed.filename}`);
  });

  it('holds the licence of every package whose code the bundle files carry', () => {
    const contents = JSON.parse(readFileSync(join(ROOT, 'dist/bundle/contents.json'), 'utf8')) as Record<string, string[]>;
    const dirs = new Set(Object.values(contents).flatMap((inputs) => inputs.flatMap((i) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(i)?.[1] ?? [])));
    expect(dirs.size).toBeGreaterThan(20);
    const notices = readFileSync(join(installed(), 'dist/bundle/THIRD-PARTY-NOTICES.txt'), 'utf8');
    for (const dir of dirs) {
      const { name, version } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string };
      expect(notices).toContain(`\n${name}@${version} (`);
    }
    // Each with its text: commander's and qs's copyright lines, as their licence files give them.
    expect(notices).toMatch(/commander@[\d.]+ \(MIT\)\n\n[^]*Copyright \(c\) 2011 TJ Holowaychuk/);
    expect(notices).toMatch(/qs@[\d.]+ \(BSD-3-Clause\)\n\nBSD 3-Clause License/);
  });

  it('has no source map without its sources', () => {
    const maps = paths().filter((p) => p.endsWith('.map'));
    const bare = maps.filter((p) => !(JSON.parse(readFileSync(join(installed(), p), 'utf8')) as { sourcesContent?: unknown[] }).sourcesContent?.length);
    expect(bare).toEqual([]);
  });

  it(`keeps smslink's own files within ${BUDGET / 1024 / 1024} MB unpacked`, () => {
    const total = packed.files.reduce((sum, f) => sum + f.size, 0);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });

  it('ships no code and no declaration that no entry point loads', () => {
    // From the bin and each export, every relative require() and import of the code, and every import of the types.
    const entries = ['bin/smslink.js'];
    const typeEntries: string[] = [];
    for (const target of Object.values(pkg.exports)) {
      if (typeof target === 'string') continue;
      entries.push(target.import.replace(/^\.\//, ''), target.default.replace(/^\.\//, ''));
      typeEntries.push(target.types.replace(/^\.\//, ''));
    }
    const reached = new Set<string>();
    const walk = (file: string, pattern: RegExp, toFile: (spec: string) => string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const m of readFileSync(join(installed(), file), 'utf8').matchAll(pattern)) {
        walk(resolve('/', dirname(file), toFile(m[1] ?? m[2])).slice(1), pattern, toFile);
      }
    };
    for (const entry of entries) walk(entry, /require(?:\(import\.meta\.url\))?\(\s*[`"'](?:\$\{__dirname\}\/)?(\.{1,2}\/[^`"']+)[`"']\s*\)/g, (spec) => spec);
    for (const entry of typeEntries) walk(entry, /(?:^|\s)from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm, (spec) => spec.replace(/\.js$/, '.d.ts'));
    const code = paths().filter((p) => /\.(c|m)?js$|\.d\.ts$/.test(p));
    expect(code.filter((p) => !reached.has(p))).toEqual([]);
    expect([...reached].filter((p) => !paths().includes(p))).toEqual([]);
  });

  it('installs globally with no warning about install scripts, and runs none', () => {
    const said = `${globalInstall.stdout}\n${globalInstall.stderr}`;
    expect(said).not.toMatch(/install.?scripts|allowScripts|prepare/i);
    const manifest = JSON.parse(readFileSync(join(installed(), 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    expect(Object.keys(manifest.scripts ?? {}).filter((s) => /^(pre|post)?(install|prepare)$/.test(s))).toEqual([]);
  });

  it("depends on libsql's binaries for the libsql whose code is bundled", () => {
    const libsql = JSON.parse(readFileSync(join(ROOT, 'node_modules/libsql/package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
    expect(pkg.optionalDependencies).toEqual(libsql.optionalDependencies);
  });
});

describe('the command, installed globally', () => {
  const smslink = (args: string[]) => run('smslink', args);

  it('--version', async () => {
    expect((await smslink(['--version'])).stdout).toBe(`${pkg.version}\n`);
  });

  it('creates a link and sends a message in the sandbox', async () => {
    const link = await smslink(['--sandbox', 'link', 'create', 'https://example.com/from-the-package', '-q']);
    expect(link.stdout).toMatch(/^http:\/\/\S+\/\w+\n$/);
    const sent = await smslink(['--sandbox', 'message', 'send', '--to', '+77011234567', '--text', 'Hello from the package', '-o', 'json']);
    expect(JSON.parse(sent.stdout)).toMatchObject({ messageId: expect.any(Number) });
    const list = await smslink(['--sandbox', 'link', 'list', '--jq', '.[].fullLink']);
    expect(list.stdout).toBe('https://example.com/from-the-package\n');
  });
});

describe('smslink serve, and the library against it', () => {
  let serve: ChildProcess;
  let url: string;
  beforeAll(async () => {
    serve = spawn('smslink', ['serve', '--port', '0', '--db', ':memory:', '--api-key', KEY, '--quiet'], { cwd: dirs.elsewhere, env, stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolveUrl, reject) => {
      createInterface({ input: serve.stdout! }).on('line', (line) => {
        const m = /^listening on (\S+)/.exec(line);
        if (m) resolveUrl(m[1]);
      });
      serve.on('exit', (code) => reject(new Error(`smslink serve exited ${code}`)));
    });
  });
  afterAll(async () => {
    serve.kill('SIGTERM');
    if (serve.exitCode === null) await once(serve, 'exit');
  });

  it('answers a request', async () => {
    const res = await fetch(`${url}/service/Link/Create?output=json&api=v1&apiKey=${KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'data[fullLink]=https%3A%2F%2Fexample.com%2Fserved',
    });
    expect(await res.json()).toMatchObject({ code: 0, data: { id: expect.any(String) } });
  });

  it('is reached by `import` from an ES module (smslink and smslink/emulator)', async () => {
    writeFileSync(
      join(dirs.app, 'esm.mjs'),
      `import { SmsLinkClient, ApiError } from 'smslink';
       import { TEST_NUMBERS, startEmulator } from 'smslink/emulator';
       const client = new SmsLinkClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
       const { id } = await client.createLink({ fullLink: 'https://example.com/esm' });
       const got = await client.getLink({ id });
       const refused = await client.getLink({ id: 999999 }).catch((err) => err instanceof ApiError);
       await client.close();
       console.log(JSON.stringify({ fullLink: got.fullLink, refused, emulator: typeof startEmulator, numbers: typeof TEST_NUMBERS }));`,
    );
    const { stdout } = await run(process.execPath, [join(dirs.app, 'esm.mjs'), url, KEY], dirs.app);
    expect(JSON.parse(stdout)).toEqual({ fullLink: 'https://example.com/esm', refused: true, emulator: 'function', numbers: 'object' });
  });

  it('is reached by require() from CommonJS (smslink, and smslink/emulator with its database)', async () => {
    writeFileSync(
      join(dirs.app, 'cjs.cjs'),
      `const { SmsLinkClient } = require('smslink');
       const { startEmulator } = require('smslink/emulator');
       (async () => {
         const client = new SmsLinkClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
         const { id } = await client.createLink({ fullLink: 'https://example.com/cjs' });
         const got = await client.getLink({ id });
         await client.close();
         const own = await startEmulator({ port: 0, db: ':memory:', apiKeys: [process.argv[3]] });
         const local = new SmsLinkClient({ baseUrl: own.url, apiKey: process.argv[3] });
         const made = await local.createLink({ fullLink: 'https://example.com/own' });
         await local.close();
         await own.close();
         // import gets the same module: an error class is one class, whichever way it was loaded.
         const imported = await import('smslink');
         const same = imported.SmsLinkClient === SmsLinkClient && (await import('smslink/emulator')).startEmulator === startEmulator;
         console.log(JSON.stringify({ fullLink: got.fullLink, own: made.id, same }));
       })();`,
    );
    const { stdout } = await run(process.execPath, [join(dirs.app, 'cjs.cjs'), url, KEY], dirs.app);
    expect(JSON.parse(stdout)).toEqual({ fullLink: 'https://example.com/cjs', own: 1, same: true });
  });
});

describe('the types', () => {
  it('type an ES module and a CommonJS one alike, and are not any', async () => {
    const use = (from: string) => `import { SmsLinkClient, ApiError, type CallOptions, type RetryInfo, type DispatchTarget } from 'smslink';
      import { startEmulator, type RunningEmulator } from 'smslink/emulator';
      export async function main(): Promise<string> {
        const emulator: RunningEmulator = await startEmulator({ port: 0 });
        const client = new SmsLinkClient({ baseUrl: emulator.url, apiKey: 'k' });
        const { shortLink } = await client.createLink({ fullLink: 'https://example.com/${from}' });
        // @ts-expect-error a link's id is a number
        const id: string = (await client.getLink({ id: 1 })).id;
        const refused: boolean = new ApiError('Link/Get', 2, 'not found', null, null).code === 2;
        const sent = await emulator.waitForMessage({ to: '+77011234567' }, { timeoutMs: 0 }).catch(() => null);
        // @ts-expect-error a message's timeline is a list of steps, not a string
        const timeline: string = (await emulator.messages({ text: 'code' }))[0].timeline;
        // A call's options come last, an input that may be left out before them.
        const options: CallOptions = { signal: new AbortController().signal, timeoutMs: 60_000, retries: 0 };
        const { fullLink } = await client.getLink({ id: 1 }, options);
        const { balance } = await client.getBalance(undefined, { timeoutMs: 5_000 });
        // An app's own handlers and dispatcher, typed by names it imports.
        const onRetry = (info: RetryInfo): void => console.log(info.operation, info.attempt, info.delayMs, info.reason);
        const dispatcher: DispatchTarget = { dispatch: () => true };
        new SmsLinkClient({ baseUrl: emulator.url, apiKey: 'k', onRetry, dispatcher });
        // @ts-expect-error a call's timeoutMs is a number of milliseconds
        await client.getLink({ id: 1 }, { timeoutMs: '60s' });
        // @ts-expect-error a call's options are the last argument, after the input
        await client.getLink({ signal: new AbortController().signal });
        return shortLink + id + String(refused) + (sent?.status ?? '') + timeline + fullLink + balance.toFixed(2);
      }\n`;
    writeFileSync(join(dirs.app, 'typed.mts'), use('esm'));
    writeFileSync(join(dirs.app, 'typed.cts'), use('cjs'));
    // This clone's TypeScript and Node types, as a user's own would be; smslink's types from the installed package.
    // node16, not nodenext: TypeScript lets nodenext's CommonJS require() an ES module's types, which node16 refuses.
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const options = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--skipLibCheck', 'false', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types')];
    const result = await run(process.execPath, [tsc, ...options, 'typed.mts', 'typed.cts'], dirs.app).catch((err: { stdout: string }) => err);
    expect(result.stdout).toBe('');
  });

  it('type smslink/emulator on the resolution of module commonjs (node10), which reads no exports map', async () => {
    // TypeScript's default for `"module": "commonjs"`: a tsconfig of many a Node app. Without typesVersions,
    // 'smslink' typed from "types" and 'smslink/emulator' was "Cannot find module ... or its corresponding type declarations".
    writeFileSync(
      join(dirs.app, 'typed-node10.ts'),
      `import { SmsLinkClient } from 'smslink';
      import { startEmulator, type RunningEmulator } from 'smslink/emulator';
      export async function main(): Promise<number> {
        const emulator: RunningEmulator = await startEmulator({ port: 0 });
        const client = new SmsLinkClient({ baseUrl: emulator.url, apiKey: 'k' });
        // @ts-expect-error the port is a number
        const port: string = emulator.port;
        return (await client.createLink({ fullLink: 'https://example.com/node10' })).id + port.length;
      }\n`,
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const options = ['--noEmit', '--strict', '--module', 'commonjs', '--moduleResolution', 'node10', '--target', 'es2022', '--skipLibCheck', 'false', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types')];
    const result = await run(process.execPath, [tsc, ...options, 'typed-node10.ts'], dirs.app).catch((err: { stdout: string }) => err);
    expect(result.stdout).toBe('');
  });
});
