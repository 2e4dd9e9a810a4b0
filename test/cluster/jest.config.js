/*
 * The cluster tests (issue 27): ragtime against the Temporal cluster of scripts/cluster.sh, with faults. A jest config
 * of their own, run by `make test-cluster` (scripts/cluster/test.sh), not by `make test`: the main suite already
 * takes its 25-minute budget, and these need the cluster (built from the Go module proxy on first use).
 * Their files end in .cluster.ts, so the main config's testMatch (*.test.ts under test/) never picks them up.
 */
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/cluster'],
  testMatch: ['**/*.cluster.ts'],
  // Brings the cluster up once for all files (and down at the end if it was not running before).
  globalSetup: '<rootDir>/test/cluster/global-setup.ts',
  globalTeardown: '<rootDir>/test/cluster/global-teardown.ts',
  testTimeout: 300_000,
  // One file at a time: faults.cluster.ts kills history and matching and stops PostgreSQL, which fails whatever
  // another file runs on the cluster meanwhile (the main config's two workers did: "no ragtime worker polls").
  maxWorkers: 1,
};
