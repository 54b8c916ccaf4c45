// What libsql's index.js takes from @neon-rs/load and detect-libc, for the
// bundled bin (scripts/bundle.mjs puts this file in their place): the name of
// the prebuilt binary for this machine. @neon-rs/load asks process.report for
// the C library (a full diagnostic report) and detect-libc loads
// child_process: `--sandbox link get` measured 81.2 ms with them and 71.6 ms
// with this file (remeasure: `npm run bench -- --only sandbox` with and
// without the bundledLibsql plugin's onResolve). Like detect-libc, this reads
// the C library's name from /usr/bin/ldd.
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
