// The part of qs the CLI uses, as the bundled bin's `qs` (see
// scripts/bundle.mjs): src/client/request.ts only encodes (qs.stringify);
// the emulator decodes forms itself (src/emulator/wire.ts). Same shape as
// qs's default export for that member. Used only in the bundle.
'use strict';

module.exports = { stringify: require('qs/lib/stringify') };
