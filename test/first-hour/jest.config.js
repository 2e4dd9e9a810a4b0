/*
 * The first hour of a new user (issue 33): a fresh clone with every service port moved runs `make demo`, then a
 * shell that exported only the ports runs the commands of the docs. A jest config of its own, run by
 * `make test-first-hour` (scripts/test-first-hour.sh) after `make test` (.ci/run): it starts a second set of local
 * services, on the moved ports, for its whole run (about 2-3 minutes on a 2-core machine).
 * Its files end in .first-hour.ts, so the main config's testMatch (*.test.ts) never picks them up.
 */
const base = require('../../jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/first-hour'],
  testMatch: ['**/*.first-hour.ts'],
  testTimeout: 900_000,
};
