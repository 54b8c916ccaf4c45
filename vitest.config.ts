import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // CLI tests run in-process against real sockets; forks keep each file's
    // servers and env isolated.
    pool: 'forks',
  },
});
