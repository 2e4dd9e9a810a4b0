/*
 * Where the test suite's time goes (issue 31): reads jest's JSON results (`jest --json --outputFile=…`; `make test`
 * writes .data/jest-results*.json) and prints seconds per suite, the slowest suites and seconds by layer.
 *
 * Usage: npx tsx scripts/test-times.ts [options] results.json [more.json…]
 *   --top N            how many of the slowest suites to list (default 10; the committed report uses 25)
 *   --markdown         the full report as markdown (docs/TEST-TIMES.md is this output), else a short plain summary
 *   --wall S           the measured wall time of the whole run, said in the report beside jest's own
 *   --max-heap-mb N    exit 1 when a suite ended with a jest worker heap above N MB (read from the heap file that
 *                      test/support/heap-reporter.js writes, RAGTIME_TEST_HEAP_FILE; a missing file fails too)
 *   --write-seconds    rewrite test/suite-seconds.json (the sequencer's order on a fresh clone) from these results
 * Several result files (make test runs the shared and the solo tier as two jest invocations) add up.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../runtime/repo-root';

/** The layers of the suite, by the folder a test file lives in (docs/TESTING.md). */
export const LAYERS = ['unit', 'workflows', 'integration', 'e2e', 'browser', 'replay', 'smoke', 'cluster'] as const;
export type Layer = (typeof LAYERS)[number] | 'other';

export type SuiteTime = { file: string; layer: Layer; seconds: number; tests: number; failed: number; startMs: number; endMs: number };

type JestSuiteResult = {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
  assertionResults: Array<{ status: string }>;
};
type JestResults = { startTime: number; testResults: JestSuiteResult[] };

export function layerOf(file: string): Layer {
  const parts = file.split(/[\\/]/);
  const at = parts.indexOf('test');
  const folder = at >= 0 ? parts[at + 1] : undefined;
  return (LAYERS as readonly string[]).includes(folder ?? '') ? (folder as Layer) : 'other';
}

/**
 * A suite's path in the repository. Results of a run in another clone (CI's, or a fresh-clone check in /tmp) are
 * outside `root`: their path is taken from the clone's own test/ folder, so the sequencer's keys stay repo-relative.
 */
export function suiteFile(suiteName: string, root = REPO_ROOT): string {
  const relative = path.relative(root, suiteName).split(path.sep).join('/');
  if (!relative.startsWith('../')) return relative;
  const absolute = suiteName.split(path.sep).join('/');
  const at = absolute.lastIndexOf('/test/');
  return at >= 0 ? absolute.slice(at + 1) : relative;
}

export function suiteTimes(results: JestResults, root = REPO_ROOT): SuiteTime[] {
  return results.testResults.map((suite) => {
    const file = suiteFile(suite.name, root);
    return {
      file,
      layer: layerOf(file),
      seconds: Math.max(0, suite.endTime - suite.startTime) / 1000,
      tests: suite.assertionResults.length,
      failed: suite.assertionResults.filter((a) => a.status === 'failed').length + (suite.status === 'failed' && suite.assertionResults.length === 0 ? 1 : 0),
      startMs: suite.startTime,
      endMs: suite.endTime,
    };
  });
}

export type LayerTotal = { layer: Layer; suites: number; tests: number; seconds: number };

export function byLayer(suites: SuiteTime[]): LayerTotal[] {
  const totals = new Map<Layer, LayerTotal>();
  for (const suite of suites) {
    const total = totals.get(suite.layer) ?? { layer: suite.layer, suites: 0, tests: 0, seconds: 0 };
    total.suites += 1;
    total.tests += suite.tests;
    total.seconds += suite.seconds;
    totals.set(suite.layer, total);
  }
  return [...totals.values()].sort((a, b) => b.seconds - a.seconds);
}

export function slowest(suites: SuiteTime[], top: number): SuiteTime[] {
  return [...suites].sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file)).slice(0, top);
}

/** From the first suite's start to the last suite's end, over every result file: jest's own wall time. */
export function jestWallSeconds(suites: SuiteTime[]): number {
  if (suites.length === 0) return 0;
  return (Math.max(...suites.map((s) => s.endMs)) - Math.min(...suites.map((s) => s.startMs))) / 1000;
}

const fmt = (seconds: number) => seconds.toFixed(1);

export function plainSummary(suites: SuiteTime[], top: number): string {
  const sum = suites.reduce((acc, s) => acc + s.seconds, 0);
  const lines = [
    `slowest ${Math.min(top, suites.length)} of ${suites.length} suites (suite seconds add to ${fmt(sum)} s; jest wall ${fmt(jestWallSeconds(suites))} s):`,
    ...slowest(suites, top).map((s) => `  ${fmt(s.seconds).padStart(7)} s  ${s.file}`),
    `by layer: ${byLayer(suites).map((l) => `${l.layer} ${fmt(l.seconds)} s`).join(', ')}`,
  ];
  return lines.join('\n');
}

export function markdownReport(suites: SuiteTime[], top: number, measured: { wallSeconds?: number; note?: string }): string {
  const sum = suites.reduce((acc, s) => acc + s.seconds, 0);
  const tests = suites.reduce((acc, s) => acc + s.tests, 0);
  const out: string[] = [];
  out.push(`${suites.length} suites, ${tests} tests. Suite seconds add to ${fmt(sum)} s; jest's wall time ${fmt(jestWallSeconds(suites))} s` +
    (measured.wallSeconds !== undefined ? `; the whole \`make test\` ${fmt(measured.wallSeconds)} s.` : '.'));
  if (measured.note) out.push('', measured.note);
  out.push('', '### By layer', '', '| layer | suites | tests | seconds | share |', '|---|---:|---:|---:|---:|');
  for (const l of byLayer(suites)) out.push(`| ${l.layer} | ${l.suites} | ${l.tests} | ${fmt(l.seconds)} | ${((100 * l.seconds) / (sum || 1)).toFixed(1)} % |`);
  out.push('', `### The slowest ${Math.min(top, suites.length)}`, '', '| seconds | tests | suite |', '|---:|---:|---|');
  for (const s of slowest(suites, top)) out.push(`| ${fmt(s.seconds)} | ${s.tests} | \`${s.file}\` |`);
  out.push('', '### Every suite', '', '<details><summary>seconds per suite</summary>', '', '| seconds | tests | layer | suite |', '|---:|---:|---|---|');
  for (const s of slowest(suites, suites.length)) out.push(`| ${fmt(s.seconds)} | ${s.tests} | ${s.layer} | \`${s.file}\` |`);
  out.push('', '</details>');
  return out.join('\n');
}

export type SuiteHeap = { suite: string; heapBytes: number };

/** The suites that ended above the limit, largest first. */
export function heapOverLimit(heaps: SuiteHeap[], limitMb: number, root = REPO_ROOT): string[] {
  return heaps
    .filter((h) => h.heapBytes > limitMb * 1024 * 1024)
    .sort((a, b) => b.heapBytes - a.heapBytes)
    .map((h) => `${path.relative(root, h.suite)} ended with ${Math.round(h.heapBytes / 1024 / 1024)} MB of heap (limit ${limitMb} MB)`);
}

export function readHeapFile(file: string): SuiteHeap[] {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as SuiteHeap);
}

/** Seconds per suite, by repository path, rounded: what test/support/sequencer.js reads. */
export function secondsFile(suites: SuiteTime[]): Record<string, number> {
  const sorted = [...suites].sort((a, b) => a.file.localeCompare(b.file));
  return Object.fromEntries(sorted.map((s) => [s.file.split(path.sep).join('/'), Math.round(s.seconds * 10) / 10]));
}

const USAGE = 'usage: npx tsx scripts/test-times.ts [--top N] [--markdown] [--wall SECONDS] [--max-heap-mb N] [--write-seconds] results.json [more.json…]';

function main(argv: string[]): number {
  let top = 10;
  let markdown = false;
  let writeSeconds = false;
  let wallSeconds: number | undefined;
  let maxHeapMb: number | undefined;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--top') top = Number(argv[++i]);
    else if (arg === '--markdown') markdown = true;
    else if (arg === '--write-seconds') writeSeconds = true;
    else if (arg === '--wall') wallSeconds = Number(argv[++i]);
    else if (arg === '--max-heap-mb') maxHeapMb = Number(argv[++i]);
    else files.push(arg);
  }
  if (files.length === 0 || !Number.isInteger(top) || top <= 0 || (maxHeapMb !== undefined && !(maxHeapMb > 0))) throw new Error(USAGE);
  const suites = files.flatMap((file) => suiteTimes(JSON.parse(readFileSync(file, 'utf8')) as JestResults));
  console.log(markdown ? markdownReport(suites, top, { wallSeconds }) : plainSummary(suites, top));
  if (writeSeconds) {
    writeFileSync(path.join(REPO_ROOT, 'test', 'suite-seconds.json'), `${JSON.stringify(secondsFile(suites), null, 2)}\n`);
  }
  if (maxHeapMb === undefined) return 0;
  const heapFile = process.env.RAGTIME_TEST_HEAP_FILE;
  if (!heapFile || !existsSync(heapFile)) {
    console.error(`heap check: no heap file (RAGTIME_TEST_HEAP_FILE=${heapFile ?? ''}); run jest with --logHeapUsage and test/support/heap-reporter.js`);
    return 1;
  }
  const heaps = readHeapFile(heapFile);
  const over = heapOverLimit(heaps, maxHeapMb);
  const largest = Math.max(0, ...heaps.map((h) => h.heapBytes)) / 1024 / 1024;
  if (over.length > 0) {
    console.error(`heap check: ${over.length} suite(s) ended above ${maxHeapMb} MB: a jest worker is growing without bound\n  ${over.join('\n  ')}`);
    return 1;
  }
  console.log(`heap check: ${heaps.length} suites, the largest jest worker heap ${largest.toFixed(0)} MB (limit ${maxHeapMb} MB)`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
