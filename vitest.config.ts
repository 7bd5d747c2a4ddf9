import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

// The tests that need no database and no listener: pure functions, parsers and the pipeline's
// steps run alone. They skip the database set-up and share their workers' module cache, so they
// give feedback in well under a minute. Every other test file is an integration test.
const UNIT_TESTS = [
  'test/domain/**/*.test.ts',
  'test/rba/**/*.test.ts',
  // the steps run alone, save two run against a started app and its database
  'test/rest/steps/!(authenticate|operation).test.ts',
  'test/rest/route-types.test.ts',
  'test/rest/params.test.ts',
  'test/rest/workbook.test.ts',
  'test/schema/account-usage.test.ts',
  'test/schema/month-split.test.ts',
  'test/schema/schema.test.ts',
  'test/limits/billing-period.test.ts',
  'test/limits/client-address.test.ts',
  'test/limits/ip-address.test.ts',
  'test/dashboard/currency-list.test.ts',
  'test/dashboard/outbox.test.ts',
  'test/jobs/schedule-decisions.test.ts',
  'test/keys/identifier-uniformity.test.ts',
  'test/webhooks/target.test.ts',
  'test/http/listener.test.ts',
  'test/http/end-of-turn.test.ts',
  'test/docs/**/*.test.ts',
];

export default defineConfig({
  // One copy of graphql: Pothos loads its CommonJS build, so the tests must use the same one.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    pool: 'forks',
    // Most of an integration test's time is spent waiting (on the database, a child process, a
    // socket, a browser), so more files run at once than the machine has cores; vitest's default
    // leaves one of two cores idle.
    maxWorkers: 3,
    // A worker's tests run for seconds to a minute: compiling the embedded database's WebAssembly
    // a second time with V8's optimising compiler costs more CPU than the faster code gives back.
    // The code run, and so every answer, is the same (test/support/cli.ts does the same for the
    // service processes the tests start).
    execArgv: ['--liftoff-only'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most of a run is spent in a few long files: they start first (test/support/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT_TESTS, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: UNIT_TESTS,
          globalSetup: ['test/support/global-setup.ts'],
          // Files share their worker's module cache: each builds its own app, database and
          // listeners, and no file mocks a module, so only the imports are saved.
          isolate: false,
        },
      },
    ],
  },
});
