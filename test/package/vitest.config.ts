import { defineConfig } from 'vitest/config';

// `npm run test:package`, a step of its own in .ci/run: the package as users
// get it. Not part of `npm test`: npm pack rebuilds dist/, which the suite's
// bins run, and the installs need the npm registry (or its cache).
export default defineConfig({
  test: { include: ['test/package/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 600_000, pool: 'forks' },
});
