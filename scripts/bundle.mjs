// Bundles the CLI and the library into dist/bundle/, the code the package
// ships: run.cjs (the bin's), index.cjs (`smslink`), emulator.cjs
// (`smslink/emulator`, serve, --sandbox), mirror.cjs (sync, report, search)
// and vendor/<pkg>.cjs (or <group>.cjs), each read when first needed. Run by `npm run build`
// after tsc; docs/performance.md, "The package", says why each part is so.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const VENDOR = ['undici', 'conf', 'proper-lockfile', 'chalk', 'csv-parse', 'csv-parse/sync', 'yaml', 'qs', 'cli-table3', 'string-width', '@fastify/busboy'];
/**
 * Packages whose files smslink imports several of, and the names it takes from
 * each: one vendor file each group (vendor/stream-json.cjs, read by a bulk run
 * of a JSON array), as a file for every import would copy stream-chain's core
 * into each.
 */
const VENDOR_GROUPS = {
  'stream-json': {
    'stream-json/file/parser.js': ['parseFile'],
    'stream-json/file/verifier.js': ['verifyFile'],
    'stream-json/core/parser.js': ['jsonParser'],
    'stream-json/streamers/stream-array.js': ['streamArray'],
    'stream-chain/utils/pipe.js': ['pipe'],
    'stream-chain/utils/asyncBlockReader.js': ['asyncBlockReader'],
  },
};
/** The group of an import (`stream-json` for `stream-chain/utils/pipe.js`), if it is in one. */
const groupOf = (path) => Object.keys(VENDOR_GROUPS).find((group) => path in VENDOR_GROUPS[group]);
/** The packages of the groups: an import of theirs outside the lists above stops the build rather than be bundled unseen. */
const GROUPED = /^(stream-json|stream-chain)(\/|$)/;
/** Sources that are a file of their own: any other file that imports one requires that file instead. */
const SPLIT = { 'src/emulator/index.ts': 'emulator', 'src/emulator/sandbox.ts': 'emulator', 'src/mirror/index.ts': 'mirror' };
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
  // The package's dependencies: libsql's prebuilt binaries (its JS is bundled) and jq-wasm.
  external: ['@libsql/*', 'jq-wasm'],
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  // Node prints the line an uncaught error was thrown on: a whole minified file on one line was pages of code above a library user's error.
  lineLimit: 120,
  logLevel: 'warning',
};

/**
 * In the bundle named `self`, a vendor package and a source of SPLIT that is
 * another bundle's (the emulator, the mirror: each brings libsql) are files of
 * their own, required when first imported. Sources are matched by the path
 * they resolve to, whatever the import says. The vendor stub keeps both the
 * default export (undici is CommonJS) and the named ones (conf, chalk ...).
 */
const ownFiles = (self) => ({
  name: 'own-files',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (VENDOR.includes(args.path)) return { path: args.path, namespace: 'vendor-stub' };
      const group = groupOf(args.path);
      if (group) return { path: group, namespace: 'vendor-stub' };
      if (GROUPED.test(args.path)) throw new Error(`${args.path} (imported by ${args.importer}): add it and the names taken from it to VENDOR_GROUPS`);
      if (args.path.startsWith('vendor-file:')) return { path: `./${vendorFile(args.path.slice(12))}.cjs`, external: true };
      return undefined;
    });
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === 'own-files') return undefined; // the resolve below
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'own-files' });
      const split = SPLIT[relative(root, resolved.path).split('\\').join('/')];
      return split && split !== self ? { path: `./${split}.cjs`, external: true } : resolved;
    });
    b.onLoad({ filter: /.*/, namespace: 'vendor-stub' }, (args) => ({
      contents: `export * from 'vendor-file:${args.path}';\nexport { default } from 'vendor-file:${args.path}';\n`,
      loader: 'js',
    }));
  },
});

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
    b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => {
      const group = VENDOR_GROUPS[args.path];
      const contents = group
        ? Object.entries(group)
            .flatMap(([file, names]) => names.map((name) => `exports.${name} = require(${JSON.stringify(file)}).${name};`))
            .join('\n')
        : `module.exports = require(${JSON.stringify(args.path)});`;
      return { contents, loader: 'js', resolveDir: root };
    });
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
 * subcommands smslink has none of: here it is required on first use, which
 * every command gains (remeasure: `npm run bench -- --only help` with and
 * without this plugin).
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
  // Other people's code, whose local names nobody reads in a stack trace: minified in full (a third smaller).
  build({ ...common, minifyIdentifiers: true, entryPoints: Object.fromEntries([...VENDOR, ...Object.keys(VENDOR_GROUPS)].map((name) => [vendorFile(name), `vendor:${name}`])), plugins: [vendorEntries] }),
  build({ ...common, entryPoints: { run: 'src/cli/run.ts' }, plugins: [requiredQs, ownFiles('run'), lazyChildProcess] }),
  build({ ...common, entryPoints: { index: 'src/index.ts' }, plugins: [requiredQs, ownFiles('index')] }),
  build({ ...common, entryPoints: { emulator: 'src/emulator/index.ts' }, plugins: [bundledLibsql, requiredQs, ownFiles('emulator')] }),
  build({ ...common, entryPoints: { mirror: 'src/mirror/index.ts' }, plugins: [bundledLibsql, ownFiles('mirror')] }),
]);

/**
 * index.mjs and emulator.mjs, what `import` of the two entries loads: the
 * CommonJS bundle required, and its exports re-exported by name (and as the
 * default, as Node gives a CommonJS module's). Imported directly, the bundle
 * would be parsed by Node 20 to find its names (cjs-module-lexer), which
 * takes longer than loading it (remeasure: `node --input-type=module -e
 * "import('./dist/bundle/emulator.cjs')"` against the .mjs, on Node 20).
 */
const require = createRequire(import.meta.url);
for (const entry of ['index', 'emulator']) {
  const names = Object.keys(require(`${root}${outdir}/${entry}.cjs`)).sort();
  writeFileSync(
    `${root}${outdir}/${entry}.mjs`,
    `import { createRequire } from 'node:module';\nconst lib = createRequire(import.meta.url)('./${entry}.cjs');\nexport default lib;\nexport const { ${names.join(', ')} } = lib;\n`,
  );
}

// The inputs of each file (not shipped): test/cli/lazy-loading.test.ts reads which sources a command loaded.
const contents = {};
for (const { metafile } of builds) {
  for (const [file, output] of Object.entries(metafile.outputs)) contents[file.slice(outdir.length + 1)] = Object.keys(output.inputs).sort();
}
writeFileSync(`${root}${outdir}/contents.json`, `${JSON.stringify(contents, null, 1)}\n`);

/**
 * THIRD-PARTY-NOTICES.txt: the licence of every package whose code a bundle
 * file holds, as their licences (MIT, ISC, BSD, Apache-2.0) ask of a copy
 * that is passed on. Read from each package's own licence file.
 */
const packages = new Map();
for (const inputs of Object.values(contents)) {
  for (const input of inputs) {
    const dir = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
    if (dir && !packages.has(dir)) packages.set(dir, JSON.parse(readFileSync(`${root}${dir}/package.json`, 'utf8')));
  }
}
const notices = [...packages]
  .sort(([, a], [, b]) => a.name.localeCompare(b.name))
  .map(([dir, { name, version, license }]) => {
    const file = readdirSync(`${root}${dir}`).find((f) => /^(licen[cs]e|copying)(\.|-|$)/i.test(f));
    if (!file) throw new Error(`${name} has no licence file to copy into THIRD-PARTY-NOTICES.txt: add its text by hand`);
    return `${name}@${version} (${license})\n\n${readFileSync(`${root}${dir}/${file}`, 'utf8').trim()}\n`;
  });
writeFileSync(
  `${root}${outdir}/THIRD-PARTY-NOTICES.txt`,
  `smslink's bundle files (dist/bundle) hold code of these ${notices.length} packages, under these licences.\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`,
);
