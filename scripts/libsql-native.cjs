// Loads libsql's prebuilt binary for this machine, for the emulator in the
// bundled bin (scripts/bundle.mjs puts it in place of libsql's own
// requireNative()). libsql picks the binary with @neon-rs/load, which asks
// process.report for the C library (a full diagnostic report, ~5 ms), and
// detect-libc, which loads child_process (~5 ms): together over half of
// what opening the sandbox costs. The choice here is the same one: on Linux
// the glibc build unless the C library is musl, read from /usr/bin/ldd as
// detect-libc does first; when ldd says neither, the glibc build is tried
// and then the musl one. Platforms not listed here go through libsql's own
// detectors.
'use strict';

const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');

/** 'musl', 'glibc' or undefined, from the text of /usr/bin/ldd. */
function libcFamily() {
  try {
    const ldd = readFileSync('/usr/bin/ldd', 'latin1');
    if (ldd.includes('musl')) return 'musl';
    if (ldd.includes('GNU C Library')) return 'glibc';
  } catch {
    // no ldd: decided by which binary loads
  }
  return undefined;
}

/** The @libsql/<target> packages to try, in order. */
function candidates() {
  const { platform, arch } = process;
  if (platform === 'darwin' && (arch === 'x64' || arch === 'arm64')) return [`darwin-${arch}`];
  if (platform === 'win32' && arch === 'x64') return ['win32-x64-msvc'];
  if (platform !== 'linux') return [];
  const [gnu, musl] = arch === 'arm' ? ['linux-arm-gnueabihf', 'linux-arm-musleabihf'] : arch === 'x64' || arch === 'arm64' ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : [];
  if (!gnu) return [];
  const family = libcFamily();
  if (family === 'musl') return [musl];
  if (family === 'glibc') return [gnu];
  return [gnu, musl];
}

module.exports = function requireNative() {
  // libsql's optional dependencies are resolved from libsql itself, wherever npm put it.
  const fromLibsql = createRequire(createRequire(__filename).resolve('libsql'));
  const targets = candidates();
  for (let i = 0; i < targets.length; i++) {
    try {
      return fromLibsql(`@libsql/${targets[i]}`);
    } catch (err) {
      if (i === targets.length - 1) throw err;
    }
  }
  const { currentTarget } = fromLibsql('@neon-rs/load');
  return fromLibsql(`@libsql/${currentTarget()}`);
};
