import { defineConfig } from 'vitest/config';

// CLI tests run in-process against real sockets; forks keep each file's
// servers and env isolated.
const shared = { testTimeout: 20_000, hookTimeout: 30_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    // Once, for both projects: builds dist/ for the tests that spawn the bin.
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/browser/**'] } },
      // The browser tests time what a person sees (a live update, a page of 1,000
      // messages): they run after the rest, alone, not against a busy machine.
      { test: { ...shared, name: 'browser', include: ['test/browser/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
