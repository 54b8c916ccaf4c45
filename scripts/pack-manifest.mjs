// The package.json that `npm pack` and `npm publish` put in the tarball has
// no "prepare": npm lists a package's prepare among its install scripts and
// warns on every global install of it, though an installed package is built
// already. A clone keeps it, so that `npm install` builds dist/.
//
//   node scripts/pack-manifest.mjs strip     (prepack, after the build)
//   node scripts/pack-manifest.mjs restore   (postpack)
//
// Run in the package's folder (npm runs scripts there). strip keeps the file
// as it was in node_modules/.cache/smslink/ and restore puts it back; a pack
// that failed before its postpack is put back by the next.
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
