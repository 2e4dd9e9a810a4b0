/*
 * The local model (issue 34; docs/design/local-model.md): tests that need its weights (1.1 GB) and its service, run by
 * `make test-llm`, which starts both. A jest config of its own: the files end in .llm.ts, so the main config's
 * testMatch (*.test.ts) never picks them up; a real model's call takes seconds.
 */
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/llm'],
  testMatch: ['**/*.llm.ts'],
  testTimeout: 600_000,
  // One file at a time: they share one model server that computes one call at a time, and
  // logprobs-and-abort.llm.ts counts the requests in flight on it (beside local-model.llm.ts it saw 2 and 3).
  maxWorkers: 1,
};
