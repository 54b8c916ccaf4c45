// The mirror, loaded by `sync`, `report` and `search` only (it brings libsql):
// the store and its lock, sync, the reports and search. The bundled bin keeps
// it in a file of its own (scripts/bundle.mjs), as it does the emulator.

export { Mirror, mirrorPath, removeSandboxMirror, type MirrorSource } from './store.js';
export { lockMirror } from './lock.js';
export { syncMirror, type MirrorService, type SyncStep, type SyncSummary } from './sync.js';
export { deliveryReport, linksReport, mirrorStatus, FINAL_COUNTS, GROUPINGS, type Grouping, type DeliveryRow } from './report.js';
export { countMatches, ftsQuery, searchMirror } from './search.js';
