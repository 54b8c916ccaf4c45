// The tarball's package.json has no "prepare" (npm warns about it on every
// global install, though an installed package is built): `strip` (prepack,
// after the build) keeps the file in node_modules/.cache/smslink/ and takes
// it out; `restore` (postpack) puts it back, and a pack that failed before
// its postpack is put back by the next. A clone keeps it, so `npm install` builds.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = process.cwd();
const manifest = join(root, 'package.json');
const kept = join(root, 'node_modules/.cache/smslink/package.json');

function restore() {
  if (existsSync(kept)) renameSync(kept, manifest);
}

function strip() {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  if (!pkg.scripts?.prepare) return;
  mkdirSync(dirname(kept), { recursive: true });
  copyFileSync(manifest, kept);
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
}

const command = process.argv[2];
if (command === 'strip') strip();
else if (command === 'restore') restore();
else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
