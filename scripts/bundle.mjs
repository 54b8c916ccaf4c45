// Bundles the CLI (src/cli/run.ts) into dist/bundle/ for bin/smslink.js.
// Start-up time is mostly module loading: one ESM file per chunk instead of
// hundreds of files, with every dynamic import() of the sources kept as a
// chunk of its own, so each command still loads only what it needs (design
// rule 7). Run by `npm run build` after tsc; dist/index.js and the emulator
// entry stay plain tsc output. Writes dist/bundle/contents.json: the sources
// and packages in each chunk, which test/cli/lazy-loading.test.ts reads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/bundle';
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/** `undici` imported by the sources resolves to the slim entry (scripts/undici-cli.js). */
const slimUndici = {
  name: 'slim-undici',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.startsWith(`${root}src${'/'}`) ? { path: `${root}scripts/undici-cli.js` } : undefined,
    );
  },
};

/**
 * Built-in or internal modules that a bundled package requires at its top
 * level but only uses in a path the CLI never takes, replaced by a stub that
 * requires them on first use: commander spawns child processes only for
 * stand-alone executable subcommands (smslink has none), undici speaks HTTP/2
 * only with allowH2 (smslink never sets it). Each costs 10-20 ms of start-up.
 */
const LAZY = [
  { importer: /node_modules\/commander\/lib\/command\.js$/, path: 'node:child_process', stub: (real) => `module.exports = new Proxy({}, { get: (_, key) => require(${real})[key] });` },
  { importer: /node_modules\/undici\/lib\/dispatcher\/client\.js$/, path: './client-h2.js', stub: (real) => `module.exports = (...args) => require(${real})(...args);` },
];
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    for (const [i, lazy] of LAZY.entries()) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.path !== lazy.path || !lazy.importer.test(args.importer) || args.pluginData === 'real') return undefined;
        const real = lazy.path.startsWith('node:') ? lazy.path : (await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'real' })).path;
        return { path: `lazy-${i}`, namespace: 'lazy', pluginData: { real, resolveDir: args.resolveDir } };
      });
    }
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
      const lazy = LAZY[Number(args.path.slice(5))];
      return { contents: lazy.stub(JSON.stringify(args.pluginData.real)), loader: 'js', resolveDir: args.pluginData.resolveDir };
    });
  },
};

/**
 * `import ... from 'node:fs'` makes Node build an ES module facade of the
 * built-in (a few milliseconds for fs, events, process ...); the CommonJS
 * object that process.getBuiltinModule() returns is free. Static imports in
 * bundled modules get that object, so named imports become property reads.
 * Dynamic imports stay Node's own: a CommonJS module split into a chunk of
 * its own would only have a default export.
 */
const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'import-statement' && isBuiltin(args.path) ? { path: args.path, namespace: 'builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

rmSync(`${root}${outdir}`, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { run: 'src/cli/run.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon: loaded from node_modules at run time.
  external: ['libsql'],
  // The chunks sit two levels below package.json, where src/version.ts does not look.
  define: { SMSLINK_BUNDLED_VERSION: JSON.stringify(pkg.version) },
  // CommonJS packages inside an ESM bundle call require() for Node's built-ins.
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  plugins: [slimUndici, lazyRequires, builtinsWithoutFacades],
  metafile: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

const contents = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  contents[file.slice(outdir.length + 1)] = Object.keys(output.inputs).sort();
}
writeFileSync(`${root}${outdir}/contents.json`, `${JSON.stringify(contents, null, 1)}\n`);
