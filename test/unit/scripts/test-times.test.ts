/**
 * scripts/test-times.ts (issue 31): where the suite's time goes, from jest's JSON results, and the heap check that
 * fails a run whose jest worker grows without bound. No services.
 */
import * as path from 'node:path';
import { byLayer, heapOverLimit, jestWallSeconds, layerOf, markdownReport, plainSummary, secondsFile, slowest, suiteFile, suiteTimes } from '../../../scripts/test-times';

const ROOT = '/repo';
const suite = (file: string, start: number, seconds: number, statuses: string[] = ['passed']) => ({
  name: path.join(ROOT, file),
  startTime: start,
  endTime: start + seconds * 1000,
  status: statuses.includes('failed') ? 'failed' : 'passed',
  assertionResults: statuses.map((status) => ({ status })),
});
const results = {
  startTime: 0,
  testResults: [
    suite('test/unit/core/a.test.ts', 0, 0.5, ['passed', 'passed']),
    suite('test/e2e/cli.test.ts', 0, 103.4),
    suite('test/workflows/hitl.test.ts', 500, 15.5, ['passed', 'failed']),
    suite('test/integration/http-api.test.ts', 103_400, 27),
    suite('test/cluster/runs.cluster.ts', 200_000, 40),
  ],
};

describe('seconds per suite and by layer', () => {
  const suites = suiteTimes(results, ROOT);

  test("a suite of another clone's run keeps its repo-relative path (the sequencer's key), not one climbing out of the repo", () => {
    expect(suiteFile('/tmp/c2/test/e2e/chaos.test.ts', ROOT)).toBe('test/e2e/chaos.test.ts');
    expect(suiteFile('/repo/test/unit/core/a.test.ts', ROOT)).toBe('test/unit/core/a.test.ts');
  });

  test('a suite is in the layer of its folder under test/', () => {
    expect(['test/unit/core/x.test.ts', 'test/browser/console.test.ts', 'test/replay/replay.test.ts', 'test/smoke/milvus.test.ts', 'test/cluster/faults.cluster.ts', 'scripts/x.test.ts'].map(layerOf)).toEqual([
      'unit', 'browser', 'replay', 'smoke', 'cluster', 'other',
    ]);
  });

  test('seconds, tests and failures per suite; the slowest first; layers add up', () => {
    expect(suites.map((s) => [s.file, s.layer, s.seconds, s.tests, s.failed])).toEqual([
      ['test/unit/core/a.test.ts', 'unit', 0.5, 2, 0],
      ['test/e2e/cli.test.ts', 'e2e', 103.4, 1, 0],
      ['test/workflows/hitl.test.ts', 'workflows', 15.5, 2, 1],
      ['test/integration/http-api.test.ts', 'integration', 27, 1, 0],
      ['test/cluster/runs.cluster.ts', 'cluster', 40, 1, 0],
    ]);
    expect(slowest(suites, 2).map((s) => s.file)).toEqual(['test/e2e/cli.test.ts', 'test/cluster/runs.cluster.ts']);
    expect(byLayer(suites).map((l) => [l.layer, l.suites, l.seconds])).toEqual([
      ['e2e', 1, 103.4], ['cluster', 1, 40], ['integration', 1, 27], ['workflows', 1, 15.5], ['unit', 1, 0.5],
    ]);
    // From the first start (0) to the last end (200 s + 40 s): suites that ran side by side count once.
    expect(jestWallSeconds(suites)).toBe(240);
  });

  test('the plain summary names the slowest and the layers; the markdown report has every suite', () => {
    expect(plainSummary(suites, 2)).toMatchInlineSnapshot(`
"slowest 2 of 5 suites (suite seconds add to 186.4 s; jest wall 240.0 s):
    103.4 s  test/e2e/cli.test.ts
     40.0 s  test/cluster/runs.cluster.ts
by layer: e2e 103.4 s, cluster 40.0 s, integration 27.0 s, workflows 15.5 s, unit 0.5 s"
`);
    const markdown = markdownReport(suites, 25, { wallSeconds: 300 });
    expect(markdown).toContain('5 suites, 7 tests. Suite seconds add to 186.4 s; jest\'s wall time 240.0 s; the whole `make test` 300.0 s.');
    expect(markdown).toContain('| e2e | 1 | 1 | 103.4 | 55.5 % |');
    expect(markdown.match(/^\| [\d.]+ \| \d+ \| \w+ \| `/gm)).toHaveLength(5);
  });

  test('the sequencer file: seconds by repository path, sorted, rounded to a tenth', () => {
    expect(secondsFile(suites)).toEqual({
      'test/cluster/runs.cluster.ts': 40,
      'test/e2e/cli.test.ts': 103.4,
      'test/integration/http-api.test.ts': 27,
      'test/unit/core/a.test.ts': 0.5,
      'test/workflows/hitl.test.ts': 15.5,
    });
  });
});

describe('heap check', () => {
  const MB = 1024 * 1024;
  test('suites that ended above the limit are named, largest first; none above passes', () => {
    const heaps = [
      { suite: '/repo/test/e2e/a.test.ts', heapBytes: 400 * MB },
      { suite: '/repo/test/e2e/b.test.ts', heapBytes: 3900 * MB },
      { suite: '/repo/test/e2e/c.test.ts', heapBytes: 1600 * MB },
    ];
    expect(heapOverLimit(heaps, 1500, ROOT)).toEqual([
      'test/e2e/b.test.ts ended with 3900 MB of heap (limit 1500 MB)',
      'test/e2e/c.test.ts ended with 1600 MB of heap (limit 1500 MB)',
    ]);
    expect(heapOverLimit(heaps, 4000, ROOT)).toEqual([]);
  });
});
