#!/usr/bin/env node
// The ragtime CLI. Runs the TypeScript sources through tsx, so there is no build step.
require('tsx/cjs');
require('./main.ts')
  .run(process.argv)
  .then((code) => process.exit(code), (error) => {
    console.error(error);
    process.exit(1);
  });
