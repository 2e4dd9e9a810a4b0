import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/*
 * What a process loads before it does anything: the CLI (every command) and the worker. The OpenTelemetry SDK is
 * loaded only when tracing is on, and the HTML and Word loaders' libraries only when such a file is ingested —
 * together about a third of a CLI start (~300 ms of CPU, measured with bin/main.ts required alone: ~980 → ~700 ms),
 * paid by every command a person or a script runs, and by every worker.
 */
const LAZY = ['@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@temporalio/interceptors-opentelemetry', 'cheerio', 'undici', 'mammoth', 'jszip'];

function loadedPackages(entry: string): string[] {
  const script = `require('tsx/cjs'); require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const run = spawnSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, RAGTIME_OTEL_EXPORTER: 'none' }, timeout: 60_000 });
  expect([run.status, run.stderr]).toEqual([0, '']);
  const packages = new Set<string>();
  for (const file of JSON.parse(run.stdout) as string[]) {
    const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file); // the last node_modules: the package itself
    if (match) packages.add(match[1]!);
  }
  return [...packages];
}

test.each([
  ['the CLI', './bin/main.ts'],
  ['the worker', './workers/run-worker.ts'],
])('%s loads neither the OpenTelemetry SDK (tracing off) nor the HTML and Word libraries', (_, entry) => {
  const packages = loadedPackages(entry);
  expect(packages).toContain('@temporalio/client'); // it did load what it needs
  expect(LAZY.filter((name) => packages.includes(name))).toEqual([]);
});
