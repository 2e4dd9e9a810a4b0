import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * The LangGraph.js peer (../shared/peers/langgraph-bench: ragtime's graph on LangGraph.js with its SQLite
 * checkpointer), made runnable for the benchmarks that race it (side-by-side.ts, cluster-side-by-side.ts).
 */

/** A copy of the peer with its dependencies installed, reused while its lock file is unchanged. */
export function preparePeer(source: string): string {
  const lock = path.join(source, 'package-lock.json');
  if (!existsSync(path.join(source, 'bench.mjs')) || !existsSync(lock)) throw new Error(`no LangGraph.js peer at ${source} (bench.mjs and package-lock.json)`);
  const cached = path.join(os.tmpdir(), 'ragtime-langgraph-peer');
  const ready = existsSync(path.join(cached, 'node_modules')) && existsSync(path.join(cached, 'package-lock.json'));
  if (ready && readFileSync(path.join(cached, 'package-lock.json'), 'utf8') === readFileSync(lock, 'utf8')) {
    cpSync(path.join(source, 'bench.mjs'), path.join(cached, 'bench.mjs'));
    return cached;
  }
  rmSync(cached, { recursive: true, force: true });
  const staging = mkdtempSync(path.join(os.tmpdir(), 'ragtime-langgraph-peer-'));
  cpSync(source, staging, { recursive: true });
  // The copy of a read-only folder is read-only too; npm needs to write node_modules there.
  spawnSync('chmod', ['-R', 'u+w', staging]);
  console.log(`installing the peer's dependencies in ${staging} (npm ci --offline, else npm ci)`);
  const offline = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: staging, stdio: 'inherit' });
  if (offline.status !== 0) {
    const online = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: staging, stdio: 'inherit' });
    if (online.status !== 0) throw new Error(`npm ci failed in ${staging}`);
  }
  mkdirSync(path.dirname(cached), { recursive: true });
  cpSync(staging, cached, { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  return cached;
}

/** One cell of the peer's output (bench.mjs prints one JSON line per scenario × concurrency). */
export type PeerCell = { kind: string; concurrency: number; runs: number; p50_ms: number; p95_ms: number; runs_per_s: number; answer_node: boolean };

/**
 * `node bench.mjs` once in the prepared copy `dir`: its cells. The peer warms up min(10, concurrency) runs itself and
 * writes an answer on route answer unless told --no-answer (ragtime always does, so that is refused here).
 */
export function runPeer(dir: string, args: { runs: number; concurrency: number; scenarios: string[]; latencyFlags: string[] }): PeerCell[] {
  const argv = ['bench.mjs', '--runs', String(args.runs), '--concurrency', String(args.concurrency), '--scenarios', args.scenarios.join(','), ...args.latencyFlags];
  const result = spawnSync('node', argv, { cwd: dir, encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0) throw new Error(`node ${argv.join(' ')} (in ${dir}) exited with ${result.status}:\n${result.stderr}`);
  const cells = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as PeerCell);
  for (const cell of cells) if (!cell.answer_node) throw new Error('the peer ran without its answer node; ragtime writes answers, so compare with it');
  return cells;
}
