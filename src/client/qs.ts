// qs, required when the first form is written (a request is built) or read
// (the emulator decodes one), so that commands which send nothing never load
// it. The bundled bin replaces this file (scripts/bundle.mjs): there qs is a
// vendor file of its own, dist/bundle/vendor/qs.cjs.

import { createRequire } from 'node:module';
import type * as Qs from 'qs';

let qs: typeof Qs | undefined;

export function loadQs(): typeof Qs {
  return (qs ??= createRequire(import.meta.url)('qs') as typeof Qs);
}
