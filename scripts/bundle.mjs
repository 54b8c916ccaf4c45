// Bundles the CLI into dist/bundle/ for bin/smslink.js. Start-up time is
// mostly module loading, so the bin loads a few CommonJS files instead of
// hundreds of modules, and no ES module loader at all:
//
//   run.cjs            src/cli/run.ts with the sources it needs and commander
//   emulator.cjs       src/emulator (serve, --sandbox, sandbox path|reset)
//   vendor/<pkg>.cjs   each package the sources import dynamically: the part
//                      of undici the transport uses, conf, cli-table3, chalk,
//                      csv-parse, p-queue
//
// A dynamic import() in the sources becomes a require() of one of these
// files, made when a command first needs it (design rule 7); everything else
// a command imports is in run.cjs, parsed but only run when imported. libsql
// is a native addon, loaded from node_modules. Run by `npm run build` after
// tsc; dist/index.js and smslink/emulator stay plain tsc output. Writes
// dist/bundle/contents.json: the sources and packages in each file, which
// test/cli/lazy-loading.test.ts reads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** Packages the sources import dynamically, each its own file; undici is the slim entry (scripts/undici-cli.js). */
const VENDOR = { undici: './scripts/undici-cli.js', conf: 'conf', 'cli-table3': 'cli-table3', chalk: 'chalk', 'csv-parse': 'csv-parse', 'p-queue': 'p-queue', qs: 'qs' };

const common = {
  absWorkingDir: root,
  outdir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // import() becomes a require() when it runs, so nothing starts Node's ES module loader.
  supported: { 'dynamic-import': false },
  // ES modules of the sources read import.meta.url (libsql's require, package.json).
  define: { 'import.meta.url': '__smslinkModuleUrl', SMSLINK_BUNDLED_VERSION: JSON.stringify(pkg.version) },
  banner: { js: "var __smslinkModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  external: ['libsql'],
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

/**
 * Built-in or internal modules that a bundled package requires at its top
 * level but only uses in a path the CLI never takes, replaced by a stub that
 * requires them on first use: commander spawns child processes only for
 * stand-alone executable subcommands (smslink has none), undici speaks HTTP/2
 * only with allowH2 (smslink never sets it). They cost ~3 and ~15 ms.
 */
const LAZY = [
  { importer: /node_modules\/commander\/lib\/command\.js$/, path: 'node:child_process', stub: (real) => `module.exports = new Proxy({}, { get: (_, key) => require(${real})[key] });` },
  { importer: /node_modules\/undici\/lib\/dispatcher\/client\.js$/, path: './client-h2.js', stub: (real) => `module.exports = (...args) => require(${real})(...args);` },
];
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      const i = LAZY.findIndex((lazy) => args.path === lazy.path && lazy.importer.test(args.importer));
      if (i < 0 || args.pluginData === 'real') return undefined;
      const real = args.path.startsWith('node:') ? args.path : (await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'real' })).path;
      return { path: `lazy-${i}`, namespace: 'lazy', pluginData: { real, resolveDir: args.resolveDir } };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      contents: LAZY[Number(args.path.slice(5))].stub(JSON.stringify(args.pluginData.real)),
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }));
  },
};

/** Each vendor file re-exports its package (`vendor:<name>` entry points). */
const vendorEntries = {
  name: 'vendor-entries',
  setup(b) {
    b.onResolve({ filter: /^vendor:/ }, (args) => ({ path: args.path.slice(7), namespace: 'vendor' }));
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(VENDOR[args.path])});`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/**
 * In run.cjs, the vendor packages and the emulator are files of their own,
 * required when first imported. A vendor package is reached through a small
 * stub module that re-exports the file: the sources import undici and
 * cli-table3 (CommonJS) for their default export and conf, chalk, csv-parse
 * and p-queue (ES modules) for their exports, and the stub keeps both as
 * Node has them.
 */
const ownFiles = {
  name: 'own-files',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (Object.hasOwn(VENDOR, args.path)) return { path: args.path, namespace: 'vendor-stub' };
      if (args.path.startsWith('vendor-file:')) return { path: `./vendor/${args.path.slice(12)}.cjs`, external: true };
      const emulator = /^\.\.\/emulator\/(index|sandbox)\.js$/.test(args.path) && !args.importer.includes(`${'/'}src${'/'}emulator${'/'}`);
      return emulator ? { path: './emulator.cjs', external: true } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vendor-stub' }, (args) => ({
      contents: `export * from 'vendor-file:${args.path}';\nexport { default } from 'vendor-file:${args.path}';\n`,
      loader: 'js',
    }));
  },
};

// The slim undici entry must have every member the transport takes from undici.
const { default: slim } = await import('./undici-cli.js');
const missing = [...readFileSync(`${root}src/client/transport.ts`, 'utf8').matchAll(/\bundici\.(\w+)/g)].map((m) => m[1]).filter((name) => !(name in slim));
if (missing.length) throw new Error(`scripts/undici-cli.js lacks what src/client/transport.ts uses: ${[...new Set(missing)].join(', ')}`);

rmSync(`${root}${outdir}`, { recursive: true, force: true });
const builds = await Promise.all([
  build({
    ...common,
    entryPoints: Object.fromEntries(Object.keys(VENDOR).map((name) => [`vendor/${name}`, `vendor:${name}`])),
    plugins: [vendorEntries, lazyRequires],
  }),
  build({ ...common, entryPoints: { run: 'src/cli/run.ts' }, plugins: [ownFiles, lazyRequires] }),
  build({ ...common, entryPoints: { emulator: 'src/emulator/index.ts' } }),
]);

const contents = {};
for (const { metafile } of builds) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    contents[file.slice(outdir.length + 1)] = Object.keys(output.inputs).sort();
  }
}
writeFileSync(`${root}${outdir}/contents.json`, `${JSON.stringify(contents, null, 1)}\n`);
