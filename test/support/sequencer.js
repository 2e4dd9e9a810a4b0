/*
 * Slowest suites first, so that no worker is left with a long suite at the end (issue 31). Jest orders by the
 * durations it cached in earlier runs; a fresh clone has none, and jest's fallback (file size) put 100-second suites
 * last. This sequencer falls back to the committed seconds per suite (test/suite-seconds.json, written by
 * `npx tsx scripts/test-times.ts --write-seconds` from a run's results), then to file size for a suite not in it.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const SECONDS_FILE = path.resolve(__dirname, '..', 'suite-seconds.json');
const REPO_ROOT = path.resolve(__dirname, '..', '..');

function committedSeconds() {
  try {
    return JSON.parse(fs.readFileSync(SECONDS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

class CommittedTimingsSequencer extends Sequencer {
  constructor(...args) {
    super(...args);
    this.committed = committedSeconds();
  }

  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const seconds = this.committed[path.relative(REPO_ROOT, test.path).split(path.sep).join('/')];
    return seconds === undefined ? undefined : seconds * 1000;
  }
}

module.exports = CommittedTimingsSequencer;
