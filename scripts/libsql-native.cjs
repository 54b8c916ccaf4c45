// What libsql's index.js takes from @neon-rs/load and detect-libc, for the
// bundle (scripts/bundle.mjs puts this file in their place): the name of the
// prebuilt binary for this machine, from the C library named by /usr/bin/ldd,
// without process.report or child_process, which they load (docs/performance.md;
// remeasure with `npm run bench -- --only sandbox` with and without it).
'use strict';

const GLIBC = 'glibc';
const MUSL = 'musl';

function familySync() {
  try {
    const ldd = require('node:fs').readFileSync('/usr/bin/ldd', 'latin1');
    if (ldd.includes('musl')) return MUSL;
    if (ldd.includes('GNU C Library')) return GLIBC;
  } catch {
    // no ldd: glibc, as most Linux systems
  }
  return null;
}

/** @libsql/<target> for this machine, as @neon-rs/load names it. */
function currentTarget() {
  const { platform, arch } = process;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  if (platform !== 'linux') return `${platform}-${arch}`;
  const musl = familySync() === MUSL;
  return arch === 'arm' ? `linux-arm-${musl ? 'musleabihf' : 'gnueabihf'}` : `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
}

module.exports = { GLIBC, MUSL, familySync, currentTarget, load: () => require('libsql') };
