// `npm run lint` runs this after eslint: imports run one way (docs/architecture.md,
// "Imports run one way"). No cycle anywhere in src/, type imports included; src/cli/core imports
// nothing else of src/cli, src/cli/shared only core, a noun's folder only core,
// shared and itself; the emulator's store nothing else of the emulator.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Imports run one way: a type or a function in the wrong room makes a circle. Move it to the room that owns it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-is-the-floor',
      comment: 'src/cli/core is what every command gets: it imports nothing else of src/cli.',
      severity: 'error',
      from: { path: '^src/cli/core/' },
      to: { path: '^src/cli/', pathNot: '^src/cli/core/' },
    },
    {
      name: 'shared-uses-core-only',
      comment: 'src/cli/shared is what several nouns reuse: it imports only src/cli/core (and itself).',
      severity: 'error',
      from: { path: '^src/cli/shared/' },
      to: { path: '^src/cli/', pathNot: '^src/cli/(core|shared)/' },
    },
    {
      name: 'nouns-stay-apart',
      comment: 'A noun folder imports src/cli/core, src/cli/shared and its own files, never another noun.',
      severity: 'error',
      from: { path: '^src/cli/(?!core/|shared/)([^/]+)/' },
      to: { path: '^src/cli/', pathNot: ['^src/cli/(core|shared)/', '^src/cli/$1/'] },
    },
    {
      name: 'top-files-imported-by-none',
      comment: 'run.ts, program.ts and commands.ts sit at the top: only what is above them (the bin, tests) imports them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/(run|program)\\.ts$' },
      to: { path: '^src/cli/(run|program|commands)\\.ts$' },
    },
    {
      name: 'emulator-store-is-the-floor',
      comment: "src/emulator/store is the emulator's database: the service, control and inspector use it, and it imports nothing else of src/emulator (the rows it stores are its types).",
      severity: 'error',
      from: { path: '^src/emulator/store/' },
      to: { path: '^src/emulator/', pathNot: '^src/emulator/store/' },
    },
    {
      name: 'cli-is-the-top',
      comment: 'src/cli uses the client, catalog, output, bulk, mirror and emulator; none of them uses src/cli.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
