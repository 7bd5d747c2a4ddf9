import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql: Pothos loads its CommonJS build, so the tests must use the same one.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
