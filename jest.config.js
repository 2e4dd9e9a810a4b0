/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // One worker process: the suites share one set of local services (Temporal, Milvus Lite, embeddings).
  maxWorkers: 1,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  },
  testTimeout: 60_000,
  // The Milvus SDK pulls in an ESM-only uuid through its bulk writer; jest's CommonJS runtime needs the CJS build.
  moduleNameMapper: { '^uuid$': require.resolve('uuid') },
  // kysely 0.29 and cookie 2 (used by fastify's inject, light-my-request) ship ESM only; plain Node 20.19+ requires
  // them natively, jest's CommonJS runtime needs them compiled.
  transformIgnorePatterns: ['/node_modules/(?!(kysely|cookie)/)'],
  // A test that needs a service and cannot reach it fails; nothing is skipped quietly.
  errorOnDeprecated: true,
};
