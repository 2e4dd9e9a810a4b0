const { soloSuites, escape } = require('./test/support/jest-tiers');

/*
 * `make test` runs jest twice (scripts/test.sh, docs/TESTING.md): RAGTIME_TEST_TIER=shared runs every suite but the
 * solo ones side by side in RAGTIME_TEST_WORKERS worker processes (default 3, measured in docs/TESTING.md), then
 * RAGTIME_TEST_TIER=solo runs the suites marked `@solo` one at a time. Unset (`npx jest <file>`), every suite runs.
 * The suites share only the local services: each makes its own task queue, collection, data dir and rows.
 */
const tier = process.env.RAGTIME_TEST_TIER;
if (tier !== undefined && tier !== 'shared' && tier !== 'solo') {
  throw new Error(`RAGTIME_TEST_TIER must be shared or solo (or unset for every suite), got ${JSON.stringify(tier)}`);
}
const solo = tier === undefined ? [] : soloSuites().map((file) => escape(file));
const workers = Number(process.env.RAGTIME_TEST_WORKERS ?? 3);
if (!Number.isInteger(workers) || workers < 1) {
  throw new Error(`RAGTIME_TEST_WORKERS must be a whole number of jest workers ≥ 1, got ${JSON.stringify(process.env.RAGTIME_TEST_WORKERS)}`);
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  maxWorkers: tier === 'solo' ? 1 : workers,
  // Every suite runs in a worker process (never in jest's own), and a worker whose heap is above this after a suite
  // is replaced: the Temporal SDK's native connection keeps each suite's module registry alive after it closes
  // (jest --detectLeaks on any suite that opens a NativeConnection), so one long-lived process grew by every suite
  // until it ran out of heap (issue 31). scripts/test.sh checks the heap each suite ended with.
  workerIdleMemoryLimit: '1GB',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(tier === 'shared' ? solo.map((file) => `^${file}$`) : []),
    ...(tier === 'solo' ? [`^(?!(?:${solo.join('|')})$)`] : []),
  ],
  // Slowest first, from the committed timings when jest has none of its own (a fresh clone): test/support/sequencer.js.
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/heap-reporter.js'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  },
  testTimeout: 60_000,
  // The Milvus SDK pulls in an ESM-only uuid through its bulk writer; jest's CommonJS runtime needs the CJS build.
  moduleNameMapper: { '^uuid$': require.resolve('uuid') },
  // kysely 0.29, cookie 2 (used by fastify's inject, light-my-request) and commander 15 (the CLI, run in-process by
  // test/support/cli-run.ts) ship ESM only; plain Node 20.19+ requires
  // them natively, jest's CommonJS runtime needs them compiled.
  transformIgnorePatterns: ['/node_modules/(?!(kysely|cookie|commander)/)'],
  // A test that needs a service and cannot reach it fails; nothing is skipped quietly.
  errorOnDeprecated: true,
};
