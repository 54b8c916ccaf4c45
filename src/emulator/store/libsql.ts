// libsql, required when the first database opens (a native addon). The
// bundled bin replaces this file (scripts/bundle.mjs): there libsql's code is
// part of the emulator's bundle, with a cheaper choice of its binary.

import { createRequire } from 'node:module';

export function loadLibsql(): unknown {
  return createRequire(import.meta.url)('libsql');
}
