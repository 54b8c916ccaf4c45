import { defineConfig } from 'vitest/config';

// CLI tests run in-process against real sockets; forks keep each file's
// servers and env isolated.
const shared = { testTimeout: 20_000, hookTimeout: 30_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    // Once, for both projects: builds dist/ for the tests that spawn the bin.
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      // test/package is `npm run test:package` (its own config): its npm pack rebuilds dist/ and takes
      // "prepare" out of package.json while the bins of the tests beside it run from there.
      { test: { ...shared, name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/browser/**', 'test/package/**'] } },
      // The browser tests run after the rest, one file at a time: Chromium is the
      // heaviest thing the suite starts. They time nothing (bench/run.js does).
      { test: { ...shared, name: 'browser', include: ['test/browser/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
