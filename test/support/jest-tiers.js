/*
 * The two tiers of `make test` (docs/TESTING.md, issue 31). Most suites share nothing but the local services (each
 * makes its own task queue, collection, data dir and database rows) and run side by side in several jest workers:
 * the shared tier. A suite that needs the machine to itself says so with an `@solo <why>` line in its first comment
 * (timing-sensitive faults, a browser under load); those run one at a time after the shared tier: the solo tier.
 * CommonJS, because jest.config.js and the sequencer load it before any transform.
 */
const fs = require('node:fs');
const path = require('node:path');

const TEST_ROOT = path.resolve(__dirname, '..');

function testFiles(dir = TEST_ROOT) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'cluster' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The reason a suite gives for running alone, or undefined: an `@solo` line in the file's first block comment. */
function soloReason(file) {
  const head = fs.readFileSync(file, 'utf8').slice(0, 4000);
  const comment = /^\s*\/\*[\s\S]*?\*\//.exec(head);
  const match = comment && /^[\s*]*@solo\b\s*(.*)$/m.exec(comment[0]);
  return match ? match[1].trim() || 'no reason given' : undefined;
}

/** Absolute paths of the suites that run alone. */
function soloSuites() {
  return testFiles().filter((file) => soloReason(file) !== undefined);
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = { TEST_ROOT, testFiles, soloReason, soloSuites, escape };
