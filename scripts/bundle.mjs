// Bundles the CLI into dist/bundle/ for bin/smslink.js: a few CommonJS files
// instead of hundreds of ES modules, because start-up is mostly module
// loading (measure: `npm run bench -- --only version,help,get,sandbox` with
// bin/smslink.js requiring this bundle, then with it running dist/cli/run.js).
//
//   run.cjs            src/cli/run.ts and what it imports, and commander
//   emulator.cjs       src/emulator (serve, --sandbox, sandbox path|reset)
//   vendor/<pkg>.cjs   each package the sources import dynamically (undici,
//                      conf, proper-lockfile, chalk, csv-parse, yaml, cli-table3,
//                      string-width, jq-wasm, @fastify/busboy: the emulator's
//                      first multipart body) or require on first use (qs,
//                      src/client/qs.ts): read when a command first needs it,
//                      so --help never reads any of them
//
// libsql's JS is bundled into emulator.cjs with scripts/libsql-native.cjs in
// place of its two libc detectors (that file says why); its native binary
// loads from node_modules. Run by `npm run build` after tsc; dist/index.js
// and smslink/emulator stay plain tsc output. Writes dist/bundle/contents.json
// (the inputs of each file), which test/cli/lazy-loading.test.ts reads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const VENDOR = ['undici', 'conf', 'proper-lockfile', 'chalk', 'csv-parse', 'csv-parse/sync', 'yaml', 'qs', 'cli-table3', 'string-width', 'jq-wasm', '@fastify/busboy'];
/** The vendor file of a package: vendor/csv-parse-sync.cjs for csv-parse/sync. */
const vendorFile = (name) => `vendor/${name.replace(/\//g, '-')}`;

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
  // The version without reading package.json (src/version.ts); import.meta is only read outside the bundle.
  define: { SMSLINK_BUNDLED_VERSION: JSON.stringify(pkg.version), 'import.meta.url': 'undefined' },
  // libsql's prebuilt binaries (only its JS is bundled).
  external: ['@libsql/*'],
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

/**
 * In run.cjs and emulator.cjs, a vendor package and the emulator are files of
 * their own, required when first imported; the stub keeps both the default
 * export (undici is CommonJS) and the named ones (conf, chalk ...).
 */
const ownFiles = {
  name: 'own-files',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (VENDOR.includes(args.path)) return { path: args.path, namespace: 'vendor-stub' };
      if (args.path.startsWith('vendor-file:')) return { path: `./${vendorFile(args.path.slice(12))}.cjs`, external: true };
      // Matched by the file an import resolves to, wherever the importing file sits.
      const target = args.path.startsWith('.') ? relative(root, resolve(args.resolveDir, args.path)).split(sep).join('/') : undefined;
      const emulator = (target === 'src/emulator/index.js' || target === 'src/emulator/sandbox.js') && !args.importer.includes(`${sep}src${sep}emulator${sep}`);
      if (emulator) return { path: './emulator.cjs', external: true };
      // The mirror (sync, report, search) brings libsql too: a file of its own, loaded by those commands only.
      return target === 'src/mirror/index.js' && args.importer.includes(`${sep}src${sep}cli${sep}`) ? { path: './mirror.cjs', external: true } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'vendor-stub' }, (args) => ({
      contents: `export * from 'vendor-file:${args.path}';\nexport { default } from 'vendor-file:${args.path}';\n`,
      loader: 'js',
    }));
  },
};

/**
 * Each vendor file re-exports its package. cli-table3 measures with the
 * string-width our layout measures with: one copy, vendor/string-width.cjs.
 * Its colours (@colors/colors) are never asked for: smslink's tables colour
 * their own cells.
 */
const vendorEntries = {
  name: 'vendor-entries',
  setup(b) {
    b.onResolve({ filter: /^vendor:/ }, (args) => ({ path: args.path.slice(7), namespace: 'vendor' }));
    b.onResolve({ filter: /^string-width$/ }, (args) => (args.importer.includes('cli-table3') ? { path: './string-width.cjs', external: true } : undefined));
    b.onResolve({ filter: /^@colors\/colors/ }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js', resolveDir: root }));
  },
};

/**
 * libsql, bundled: src/emulator/store/libsql.ts (a run-time require for the tsc
 * build) becomes a plain require, and libsql's detectors, @neon-rs/load and
 * detect-libc, resolve to scripts/libsql-native.cjs.
 */
const bundledLibsql = {
  name: 'bundled-libsql',
  setup(b) {
    b.onLoad({ filter: /src\/emulator\/store\/libsql\.ts$/ }, () => ({ contents: "export const loadLibsql = () => require('libsql');\n", loader: 'js' }));
    b.onResolve({ filter: /^(@neon-rs\/load|detect-libc)$/ }, () => ({ path: `${root}scripts/libsql-native.cjs` }));
  },
};

/**
 * src/client/qs.ts (a run-time require for the tsc build) becomes a require
 * of vendor/qs.cjs, read when the first form is written or read: one copy
 * of qs for run.cjs and emulator.cjs, and none in either.
 */
const requiredQs = {
  name: 'required-qs',
  setup(b) {
    b.onLoad({ filter: /src\/client\/qs\.ts$/ }, () => ({ contents: "let qs;\nexport const loadQs = () => (qs ??= require('vendor-file:qs'));\n", loader: 'js' }));
  },
};

/**
 * commander requires node:child_process at its top level, for executable
 * subcommands smslink has none of: here it is required on first use. Worth
 * ~2-3 ms of every command (`--help`: 35.3 against 38.4 ms; remeasure:
 * `npm run bench -- --only help` with and without this plugin).
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (/node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({ contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });", loader: 'js' }));
  },
};

rmSync(`${root}${outdir}`, { recursive: true, force: true });
const builds = await Promise.all([
  build({ ...common, entryPoints: Object.fromEntries(VENDOR.map((name) => [vendorFile(name), `vendor:${name}`])), plugins: [vendorEntries] }),
  build({ ...common, entryPoints: { run: 'src/cli/run.ts' }, plugins: [requiredQs, ownFiles, lazyChildProcess] }),
  build({ ...common, entryPoints: { emulator: 'src/emulator/index.ts' }, plugins: [bundledLibsql, requiredQs, ownFiles] }),
  build({ ...common, entryPoints: { mirror: 'src/mirror/index.ts' }, plugins: [bundledLibsql, ownFiles] }),
]);

const contents = {};
for (const { metafile } of builds) {
  for (const [file, output] of Object.entries(metafile.outputs)) contents[file.slice(outdir.length + 1)] = Object.keys(output.inputs).sort();
}
writeFileSync(`${root}${outdir}/contents.json`, `${JSON.stringify(contents, null, 1)}\n`);
