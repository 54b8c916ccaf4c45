// The library's declarations as the package ships them: of what tsc writes
// into dist/types, the files the two entries' types reach, in a folder marked
// CommonJS as the code is (dist/bundle/*.cjs), so TypeScript types `import`
// and `require()` alike. Fails the build if a declaration kept needs a package
// that installing smslink does not bring.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const types = join(root, 'dist/types');
const ENTRIES = ['index.d.ts', 'emulator/index.d.ts'];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const installed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);

/** The specifiers a declaration imports or re-exports. */
const importsOf = (text) => [...text.matchAll(/(?:^|\s)from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);

const kept = new Set();
const problems = [];
const visit = (file) => {
  if (kept.has(file)) return;
  kept.add(file);
  for (const spec of importsOf(readFileSync(file, 'utf8'))) {
    if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.d.ts')));
    else if (!spec.startsWith('node:') && !installed.has(spec)) problems.push(`${relative(root, file)} imports types from ${spec}, which is not a dependency`);
  }
};
for (const entry of ENTRIES) visit(join(types, entry));
if (problems.length) throw new Error(problems.join('\n'));

const prune = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (!kept.has(path)) rmSync(path);
  }
};
prune(types);
writeFileSync(join(types, 'package.json'), '{\n  "type": "commonjs"\n}\n');
