/*
 * Records the heap each suite ended with (jest --logHeapUsage measures it; jest's --json results leave it out) as
 * one JSON line per suite in RAGTIME_TEST_HEAP_FILE, for scripts/test-times.ts's heap check (issue 31: one jest
 * process once grew by every suite until it died). Does nothing when the variable is unset.
 */
const fs = require('node:fs');

class HeapReporter {
  onTestResult(test, result) {
    const file = process.env.RAGTIME_TEST_HEAP_FILE;
    if (!file || typeof result.memoryUsage !== 'number') return;
    fs.appendFileSync(file, `${JSON.stringify({ suite: result.testFilePath, heapBytes: result.memoryUsage })}\n`);
  }
}

module.exports = HeapReporter;
