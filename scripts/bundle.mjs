// Bundles the CLI into dist/bundle/ for bin/smslink.js. Start-up time is
// mostly module loading, so the bin loads a few CommonJS files instead of
// hundreds of modules, and no ES module loader at all:
//
//   run.cjs            src/cli/run.ts with the sources it needs, commander and
//                      qs's stringify (INLINE)
//   emulator.cjs       src/emulator (serve, --sandbox, sandbox path|reset)
//   vendor/<pkg>.cjs   each package the sources import dynamically: the part
//                      of undici the transport uses, conf, chalk,
//                      csv-parse (streamed, and csv-parse-sync for whole files),
//                      yaml (the emulator's YAML seed files)
//
// A dynamic import() in the sources becomes a require() of one of these
// files, made when a command first needs it (design rule 7); everything else
// a command imports is in run.cjs, parsed but only run when imported. libsql
// is a native addon, loaded from node_modules. Run by `npm run build` after
// tsc; dist/index.js and smslink/emulator stay plain tsc output. Writes
// dist/bundle/contents.json: the sources and packages in each file, which
// test/cli/lazy-loading.test.ts reads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** Packages the sources import dynamically, each its own file; undici through a slim entry of its own (scripts/undici-cli.js). */
const VENDOR = {
  undici: './scripts/undici-cli.js',
  conf: 'conf',
  chalk: 'chalk',
  'csv-parse': 'csv-parse',
  'csv-parse/sync': 'csv-parse/sync',
  yaml: 'yaml',
};
/** The vendor file of a package: vendor/csv-parse-sync.cjs for csv-parse/sync. */
const vendorFile = (name) => `vendor/${name.replace(/\//g, '-')}`;

/**
 * Packages that go into run.cjs through a slim entry: qs's stringify
 * (scripts/qs-cli.cjs, ~20 KB), whose module runs when the first client is
 * made (src/client/request.ts is reached through a dynamic import), never for
 * --help. As a file of its own it cost every sending command ~1 ms more: one
 * more file and cache entry to find, read and check, and esbuild's
 * re-export of it.
 */
const INLINE = { qs: './scripts/qs-cli.cjs' };
const inlineEntries = {
  name: 'inline-entries',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${Object.keys(INLINE).join('|')})$`) }, (args) => ({ path: `${root}${INLINE[args.path].slice(2)}` }));
  },
};

/**
 * Default imports of Node's built-in modules in the ES module packages the
 * bundle carries (env-paths: `import process from 'node:process'`, `os`,
 * `path`) become esbuild's CommonJS interop, which copies every property of
 * the module into a new object of getters: ~8 M instructions on each
 * command that reads the config file from its default place, mostly for the
 * 79 of `process`. Here such an import gets the module itself.
 */
const builtinDefaults = {
  name: 'builtin-defaults',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'import-statement' && /[\\/]node_modules[\\/]env-paths[\\/]/.test(args.importer) ? { path: args.path, namespace: 'builtin-default' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin-default' }, (args) => ({ contents: `export default require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

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
  // ES modules of the sources read import.meta.url (libsql's require, package.json): the file's URL,
  // made when read (pathToFileURL at the top of every file cost each of them ~0.1-0.3 ms).
  define: { 'import.meta.url': '__smslinkModule.url', SMSLINK_BUNDLED_VERSION: JSON.stringify(pkg.version) },
  // Node's built-in modules are taken with process.getBuiltinModule() (Node 20.16 and later), not through
  // the CommonJS loader's resolution and bookkeeping: a command that sends requires some 30 of them.
  banner: {
    js: [
      "var __smslinkModule = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
      "if (process.getBuiltinModule) require = ((load) => (id) => (id.startsWith('node:') ? process.getBuiltinModule(id) : load(id)))(require);",
    ].join('\n'),
  },
  external: ['libsql'],
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

/**
 * Modules that a bundled package requires at its top level, replaced in the
 * bundle by a stub that does the same job for the CLI at less start-up cost:
 *
 * - required on first use, for what only a path the CLI never takes needs:
 *   commander spawns child processes only for stand-alone executable
 *   subcommands (smslink has none), undici speaks HTTP/2 only with allowH2
 *   (smslink never sets it) (~3 and ~15 ms);
 * - undici calls node:assert only as assert(value): the stub loads it when an
 *   assertion fails (~1.5 ms);
 * - undici's HTTP parser (llhttp) is a WebAssembly module carried as base64
 *   in two 72 KB strings (with and without SIMD), which every start would
 *   parse and the compile cache would carry; the bundle ships them as .wasm
 *   files next to the vendor file (WASM_FILES), read when the first
 *   connection needs the parser;
 */
/** The .wasm file written for each of undici's llhttp modules. */
const WASM_FILES = { 'llhttp_simd.wasm': 'llhttp_simd-wasm.js', 'llhttp.wasm': 'llhttp-wasm.js' };
/**
 * V8 starts optimising a WebAssembly function on a background thread once it
 * has run for a while ("tiering budget"), and exit waits for that: 100 ms
 * and more for llhttp on a busy machine, after a single response. V8 reads
 * the budget when it creates a module, so the stub raises it just for the
 * parser's module (undici creates it in the same tick, with the bytes the
 * stub returns): a short run keeps the baseline code, a long bulk run gets
 * the optimised code after ~100 MB of responses. The flag goes back to V8's
 * default at once: flags are part of the key of every code cache, Node's own
 * for its built-in modules included, and a changed flag would have every
 * module loaded later compiled from source (~25 M instructions for a `link
 * get`), and the bin's compile cache rewritten by every run. That default
 * differs between V8 versions (1,800,000 in Node 20's, 13,000,000 in later
 * ones), so the stub finds it: it notes V8's cache tag (a hash of its
 * version and flags) before it raises the budget, then tries each default
 * until the tag is the same again. Where V8 is newer than any version it
 * knows, or the user gave node the flag, it leaves the flag alone.
 */
const TIERING_BUDGET = { raised: 100_000_000, v8Defaults: [1_800_000, 13_000_000], newestV8: 13 };
/** The one budget raise both stubs share (the plain parser's follows the SIMD one's failure in the same tick). */
const WASM_BUDGET = [
  "const v8 = require('node:v8');",
  'let tag = null;',
  'exports.raise = () => {',
  '  if (tag !== null) return;',
  `  if (Number(process.versions.v8.split('.')[0]) > ${TIERING_BUDGET.newestV8} || process.execArgv.some((arg) => /wasm[-_]tiering[-_]budget/.test(arg))) return;`,
  '  tag = v8.cachedDataVersionTag();',
  `  v8.setFlagsFromString('--wasm-tiering-budget=${TIERING_BUDGET.raised}');`,
  '  queueMicrotask(() => {',
  `    for (const budget of ${JSON.stringify(TIERING_BUDGET.v8Defaults)}) {`,
  "      v8.setFlagsFromString('--wasm-tiering-budget=' + budget);",
  '      if (v8.cachedDataVersionTag() === tag) break;',
  '    }',
  '    tag = null;',
  '  });',
  '};',
].join('\n');
const readWasm = (name) => () =>
  [
    "require('smslink:wasm-budget').raise();",
    `module.exports = require('node:fs').readFileSync(require('node:path').join(__dirname, ${JSON.stringify(name)}));`,
  ].join('\n');
const wasmBudget = {
  name: 'wasm-budget',
  setup(b) {
    b.onResolve({ filter: /^smslink:wasm-budget$/ }, () => ({ path: 'wasm-budget', namespace: 'wasm-budget' }));
    b.onLoad({ filter: /.*/, namespace: 'wasm-budget' }, () => ({ contents: WASM_BUDGET, loader: 'js' }));
  },
};
const requireHere = createRequire(import.meta.url);
/**
 * llhttp's constants module builds some thirty tables when it loads (~0.3 ms
 * of every request's start), of which undici's HTTP/1 client reads two,
 * `constants.TYPE` and `constants.ERROR`: in the bundle it is those tables,
 * taken from the module at build time. The build fails if the client reads
 * the module in any other way.
 */
const llhttpConstants = (real) => {
  const client = readFileSync(requireHere.resolve('undici/lib/dispatcher/client-h1.js'), 'utf8');
  const uses = [...client.matchAll(/\bconstants\b(?:\.(\w+))?/g)];
  const declared = client.match(/^const constants = require\('\.\.\/llhttp\/constants\.js'\)$/gm)?.length ?? 0;
  const names = [...new Set(uses.map((m) => m[1]).filter(Boolean))];
  if (declared !== 1 || uses.length !== uses.filter((m) => m[1]).length + 1) {
    throw new Error('scripts/bundle.mjs: undici/lib/dispatcher/client-h1.js no longer reads llhttp/constants.js as `constants.NAME` only; update llhttpConstants');
  }
  const all = requireHere(JSON.parse(real));
  return `module.exports = ${JSON.stringify(Object.fromEntries(names.map((name) => [name, all[name]])))};`;
};
const LAZY = [
  { importer: /node_modules\/commander\/lib\/command\.js$/, path: 'node:child_process', stub: (real) => `module.exports = new Proxy({}, { get: (_, key) => require(${real})[key] });` },
  { importer: /node_modules\/undici\/lib\/dispatcher\/client\.js$/, path: './client-h2.js', stub: (real) => `module.exports = (...args) => require(${real})(...args);` },
  { importer: /node_modules\/undici\/lib\//, path: 'node:assert', stub: (real) => `module.exports = (value, ...rest) => { if (!value) require(${real})(value, ...rest); };` },
  ...Object.entries(WASM_FILES).map(([name, js]) => ({ importer: /node_modules\/undici\/lib\/dispatcher\/client-h1\.js$/, path: `../llhttp/${js}`, stub: readWasm(name) })),
  { importer: /node_modules\/undici\/lib\/dispatcher\/client-h1\.js$/, path: '../llhttp/constants.js', stub: llhttpConstants },
  // env-paths reads the home and temp dirs when it loads (node:os, ~0.2 ms); the config dir needs
  // it only without SMSLINK_CONFIG_DIR.
  { importer: /src\/config\/file\.ts$/, path: 'env-paths', stub: (real) => `module.exports = (...args) => require(${real}).default(...args);` },
];
/**
 * qs keeps the objects it has seen in a `side-channel`, whose ES5-era
 * dependencies (get-intrinsic, object-inspect and a dozen more, ~40 KB) cost
 * ~3 ms to load; scripts/side-channel.cjs is the same channel on WeakMap and
 * Map, put in its place (qs is in run.cjs, see INLINE).
 */
const ALIASES = { 'side-channel': './scripts/side-channel.cjs' };
/**
 * Modules of a bundled package that the CLI never runs, left out of the
 * bundle and required from node_modules if it ever does: undici reads a
 * FormData or Blob body with its fetch implementation (~60 KB; smslink sends
 * strings), and ProxyAgent hands socks5:// proxies to a SOCKS agent (~16 KB)
 * of its own, which it requires at its top level: a stub constructs it on
 * first use. Less code in the vendor file is less for every start to read
 * from the compile cache.
 */
const OUTSIDE = [
  { importer: /node_modules\/undici\/lib\/dispatcher\/client-h[12]\.js$/, path: '../web/fetch/body.js', external: 'undici/lib/web/fetch/body.js' },
  {
    importer: /node_modules\/undici\/lib\/dispatcher\/proxy-agent\.js$/,
    path: './socks5-proxy-agent',
    external: 'undici/lib/dispatcher/socks5-proxy-agent.js',
    stub: (external) => `module.exports = function Socks5ProxyAgent(...args) { return new (require(${JSON.stringify(external)}))(...args); };`,
  },
];
/**
 * Sources of packages changed as they are bundled; the build fails if a
 * package's source no longer reads as expected.
 *
 * - Two top-level reads of node:http in undici, which would load the HTTP
 *   server and client of Node (~1.5 ms) that undici never uses, made lazy:
 *   core/util.js compares a stream's class with IncomingMessage when it
 *   destroys a stream body, and dispatcher/client.js reads
 *   http.maxHeaderSize as its default (src/client/transport.ts passes one).
 * - undici's core/tree.js, which at load builds a search tree of the ~100
 *   well-known header names (~0.3 ms) for turning a response's header
 *   names into lower-cased strings: the tree is built at the 65th name, the
 *   first 64 are lower-cased as a name outside the tree is (util.js falls
 *   back to toString('latin1').toLowerCase() on a miss, which gives the
 *   same strings). A command reads a handful of header names; a bulk run
 *   gets the tree after a few responses.
 * - libsql's JS (bundled into emulator.cjs) chooses its prebuilt binary
 *   with scripts/libsql-native.cjs instead of @neon-rs/load and
 *   detect-libc, which cost --sandbox ~15 ms (that file says why).
 */
const PATCHES = [
  {
    file: /node_modules\/undici\/lib\/core\/util\.js$/,
    replace: [
      ["const { IncomingMessage } = require('node:http')\n", ''],
      ['constructor === IncomingMessage', "constructor === require('node:http').IncomingMessage"],
    ],
  },
  {
    file: /node_modules\/undici\/lib\/dispatcher\/client\.js$/,
    replace: [
      ["const http = require('node:http')\n", ''],
      [/const getDefaultNodeMaxHeaderSize = http &&[^]*?http module not available or http\.maxHeaderSize invalid'\) }\n/, "const getDefaultNodeMaxHeaderSize = () => require('node:http').maxHeaderSize\n"],
    ],
  },
  {
    file: /node_modules\/undici\/lib\/core\/tree\.js$/,
    replace: [
      [
        'const tree = new TernarySearchTree()\n\nfor (let i = 0; i < wellknownHeaderNames.length; ++i) {\n  const key = headerNameLowerCasedRecord[wellknownHeaderNames[i]]\n  tree.insert(key, key)\n}\n',
        [
          'let built = null',
          'let misses = 0',
          'const tree = {',
          '  lookup (key) {',
          '    if (built === null) {',
          '      if (++misses <= 64) return null',
          '      built = new TernarySearchTree()',
          '      for (let i = 0; i < wellknownHeaderNames.length; ++i) {',
          '        const name = headerNameLowerCasedRecord[wellknownHeaderNames[i]]',
          '        built.insert(name, name)',
          '      }',
          '    }',
          '    return built.lookup(key)',
          '  }',
          '}',
          '',
        ].join('\n'),
      ],
    ],
  },
  {
    file: /node_modules\/libsql\/index\.js$/,
    replace: [
      ['const { load, currentTarget } = require("@neon-rs/load");\nconst { familySync, GLIBC, MUSL } = require("detect-libc");\n', ''],
      [/\nfunction requireNative\(\) \{\n[^]*?return require\(`@libsql\/\$\{target\}`\);\n\}\n/, `\nconst requireNative = require(${JSON.stringify(`${root}scripts/libsql-native.cjs`)});\n`],
    ],
  },
];
const patchSources = {
  name: 'patch-sources',
  setup(b) {
    b.onLoad({ filter: new RegExp(PATCHES.map((p) => p.file.source).join('|')) }, (args) => {
      const patch = PATCHES.find((p) => p.file.test(args.path));
      let contents = readFileSync(args.path, 'utf8');
      for (const [from, to] of patch.replace) {
        const next = contents.replace(from, to);
        if (next === contents) throw new Error(`scripts/bundle.mjs: ${args.path} no longer contains ${from}; update PATCHES`);
        contents = next;
      }
      return { contents, loader: 'js' };
    });
  },
};
/**
 * The emulator's bundle carries libsql's JS (patched above) and loads only
 * its native binary from node_modules: src/emulator/libsql.ts, which
 * requires libsql at run time for the plain tsc build, becomes a static
 * require here.
 */
const bundledLibsql = {
  name: 'bundled-libsql',
  setup(b) {
    b.onLoad({ filter: /src\/emulator\/libsql\.ts$/ }, () => ({ contents: "export const loadLibsql = () => require('libsql');\n", loader: 'js' }));
  },
};
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.namespace === 'outside') return { path: args.path, external: true };
      const o = OUTSIDE.findIndex((out) => args.path === out.path && out.importer.test(args.importer));
      if (o >= 0) return OUTSIDE[o].stub ? { path: `outside-${o}`, namespace: 'outside' } : { path: OUTSIDE[o].external, external: true };
      const i = LAZY.findIndex((lazy) => args.path === lazy.path && lazy.importer.test(args.importer));
      if (i < 0 || args.pluginData === 'real') return undefined;
      const real = args.path.startsWith('node:') ? args.path : (await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'real' })).path;
      return { path: `lazy-${i}`, namespace: 'lazy', pluginData: { real, resolveDir: args.resolveDir } };
    });
    b.onLoad({ filter: /.*/, namespace: 'outside' }, (args) => {
      const { stub, external } = OUTSIDE[Number(args.path.slice(8))];
      return { contents: stub(external), loader: 'js', resolveDir: root };
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
 * stub module that re-exports the file: the sources import undici
 * (CommonJS) for its default export and conf, chalk and
 * csv-parse (ES modules) for their exports, and the stub keeps both as Node
 * has them.
 */
const ownFiles = {
  name: 'own-files',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (Object.hasOwn(VENDOR, args.path)) return { path: args.path, namespace: 'vendor-stub' };
      if (args.path.startsWith('vendor-file:')) return { path: `./${vendorFile(args.path.slice(12))}.cjs`, external: true };
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
    entryPoints: Object.fromEntries(Object.keys(VENDOR).map((name) => [vendorFile(name), `vendor:${name}`])),
    alias: ALIASES,
    plugins: [vendorEntries, patchSources, wasmBudget, lazyRequires],
  }),
  build({ ...common, entryPoints: { run: 'src/cli/run.ts' }, alias: ALIASES, plugins: [inlineEntries, ownFiles, patchSources, lazyRequires, builtinDefaults] }),
  // libsql's binary packages, and the detectors the patch leaves for platforms it does not list, stay in node_modules.
  // yaml, read only for a YAML seed file, stays in its vendor file (ownFiles), out of what --sandbox loads.
  build({ ...common, entryPoints: { emulator: 'src/emulator/index.ts' }, external: ['@libsql/*', '@neon-rs/load'], plugins: [bundledLibsql, ownFiles, patchSources, builtinDefaults] }),
]);

const contents = {};
for (const { metafile } of builds) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    contents[file.slice(outdir.length + 1)] = Object.keys(output.inputs).sort();
  }
}
writeFileSync(`${root}${outdir}/contents.json`, `${JSON.stringify(contents, null, 1)}\n`);
for (const [name, js] of Object.entries(WASM_FILES)) writeFileSync(`${root}${outdir}/vendor/${name}`, requireHere(`undici/lib/llhttp/${js}`));
