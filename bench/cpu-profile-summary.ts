import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { table } from './support/stats';

/*
 * Summarizes V8 .cpuprofile files (from `--worker-cpu-prof DIR`): self time by source (package or file) and the top
 * functions, per file (one per thread: the worker's main thread and its workflow thread).
 *
 *   npx tsx bench/cpu-profile-summary.ts DIR [--top 15]
 */

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** A bucket for a script URL: the npm package, the workflow bundle, the repo folder, or V8's own pseudo-frames. */
function sourceOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return 'node: core';
  if (/workflow-bundle|webpack/.test(url)) return 'workflow bundle';
  const repo = /\/work\/[^/]+\/([^/]+)\//.exec(url);
  return repo ? `ragtime ${repo[1]}/` : url;
}

function summarize(file: string, top: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const bySource = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const source = sourceOf(frame.url, frame.functionName);
    bySource.set(source, (bySource.get(source) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const busyUs = [...bySource.entries()].filter(([source]) => source !== '(idle)').reduce((sum, [, us]) => sum + us, 0);
  const rows = (map: Map<string, number>) =>
    [...map.entries()]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => [name, (us / 1000).toFixed(0), `${((100 * us) / Math.max(1, busyUs)).toFixed(1)}%`]);
  console.log(`\n## ${path.basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled, ${(busyUs / 1000).toFixed(0)} ms busy (not idle)\n`);
  console.log(table(['source', 'self ms', 'of busy'], rows(bySource)));
  console.log('');
  console.log(table(['function', 'self ms', 'of busy'], rows(byFunction)));
}

const [dir, flag, value] = process.argv.slice(2);
if (!dir) {
  console.error('usage: npx tsx bench/cpu-profile-summary.ts DIR [--top N]');
  process.exit(2);
}
const top = flag === '--top' ? Number(value) : 15;
for (const name of readdirSync(dir).filter((entry) => entry.endsWith('.cpuprofile')).sort()) summarize(path.join(dir, name), top);
