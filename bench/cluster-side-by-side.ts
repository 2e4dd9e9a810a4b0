import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../client/temporal-connection';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { RagClient, newRagWorkflowId } from '../client/rag-client';
import { DEFAULT_SPECULATION, SpeculationLevel } from '../core/schemas/speculation';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt } from './support/args';
import { preparePeer, runPeer } from './support/langgraph-peer';
import { type LatencyModel } from './support/latency';
import { loadAverage, sourceInfo } from './support/machine';
import { RunTracker, deadline } from './support/run-tracker';
import { SCENARIOS, type ScenarioName } from './support/scenarios';
import { cpuSpent, readServerCpu, type ServerProcesses } from './support/server-cpu';
import { sustainedLoop } from './support/stats';
import { startBenchWorker, type BenchWorkerHandle } from './support/worker-host';
import { renderClusterTables, type Cell, type Measured, type Phase, type TargetName } from './support/cluster-report';
import { writeSection } from './support/markdown-section';

/*
 * Issue 27 §4: the same ragtime runs through the single-process dev server and through the Temporal cluster of
 * scripts/cluster.sh (four services on PostgreSQL), with the LangGraph.js peer as the third column, in one invocation.
 * Each cell (latency model × scenario × concurrency) is measured in every round on all three targets, in an order
 * that rotates from round to round, so that the noise of a shared machine falls on every column alike; the table
 * gives each figure's median over the rounds. Around each ragtime load the server's CPU time is read from /proc: the
 * dev server's one process against the sum of the cluster's four services and its PostgreSQL (postmaster and
 * backends), divided by every run of the load (warm-up and filler runs included), as bench/orchestration.ts does.
 *
 * The dev server is a private one started here (the flags of scripts/services.sh: SQLite file, the same dynamic
 * config; headless, on --dev-port), so that other sessions' runs on the dev server of `make up` do not count in its
 * CPU; --dev-address uses a running one instead. The cluster must be up (`make cluster-up`).
 *
 *   npx tsx bench/cluster-side-by-side.ts [--write docs/PERFORMANCE.md] [--json FILE]
 */

const HELP = `usage: npx tsx bench/cluster-side-by-side.ts [options]
  --rounds N                 rounds; each measures every cell on all three targets (default 3)
  --concurrency 1,20         closed-loop concurrency levels (default 1,20)
  --runs N,N                 measured runs per cell and round, one per concurrency level (default 10,40)
  --complex-runs N,N         the same for complex, 4 workflows a run (default 5,20)
  --warmup N                 ragtime's warm-up runs per cell, at least 2 × concurrency (default 3)
  --scenarios fast,complex   fast, planner, rewrite, complex (default fast,complex)
  --models realistic,zero    realistic: llm 400 / embed 20 / search 20 ms, jitter 0.2; zero: every latency 0
  --speculation LEVEL        what ragtime's runs speculate (default ${DEFAULT_SPECULATION}, as \`ragtime ask\`)
  --dev-address HOST:PORT    measure a running dev server (default: start a private one on --dev-port)
  --dev-port N               the private dev server's port (default 37233)
  --cluster-address H:P      the cluster's frontend (default CLUSTER_TEMPORAL_ADDRESS or 127.0.0.1:7633)
  --peer DIR                 the LangGraph.js peer (default ../shared/peers/langgraph-bench beside the repository)
  --idle-seconds N           how long each server's idle CPU is read before the loads (default 10)
  --write FILE               put the tables between the cluster-side-by-side markers of FILE
  --json FILE                also write every round of every cell as JSON
  --max-seconds N            abort after N seconds (default 1800)`;

const MODELS: Record<string, LatencyModel & { label: string }> = {
  realistic: { label: 'llm 400 / embed 20 / search 20 ms, jitter 0.2', llmMs: 400, embedMs: 20, searchMs: 20, jitter: 0.2, seed: 1 },
  zero: { label: 'zero latency', llmMs: 0, embedMs: 0, searchMs: 0, jitter: 0, seed: 1 },
};
const latencyFlags = (model: LatencyModel) => ['--llm-ms', model.llmMs, '--embed-ms', model.embedMs, '--search-ms', model.searchMs, '--jitter', model.jitter].map(String);

/** A Temporal server to measure: its address, its processes (by listening port) and a client on it. */
type ServerTarget = { name: Exclude<TargetName, 'peer'>; address: string; processes: ServerProcesses; client: Client; connection: Connection };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '1,20' },
      runs: { type: 'string', default: '10,40' },
      'complex-runs': { type: 'string', default: '5,20' },
      warmup: { type: 'string', default: '3' },
      scenarios: { type: 'string', default: 'fast,complex' },
      models: { type: 'string', default: 'realistic,zero' },
      speculation: { type: 'string', default: DEFAULT_SPECULATION },
      'dev-address': { type: 'string' },
      'dev-port': { type: 'string', default: '37233' },
      'cluster-address': { type: 'string', default: process.env.CLUSTER_TEMPORAL_ADDRESS?.trim() || `127.0.0.1:${process.env.CLUSTER_TEMPORAL_PORT?.trim() || '7633'}` },
      peer: { type: 'string', default: path.resolve(REPO_ROOT, '..', 'shared', 'peers', 'langgraph-bench') },
      'idle-seconds': { type: 'string', default: '10' },
      write: { type: 'string' },
      json: { type: 'string' },
      'max-seconds': { type: 'string', default: '1800' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return console.log(HELP);
  const list = (text: string) => text.split(',').map((part) => part.trim()).filter(Boolean);
  const concurrencies = list(values.concurrency).map((text) => positiveInt('concurrency', text));
  const perLevel = (name: string, text: string) => {
    const counts = list(text).map((part) => positiveInt(name, part));
    if (counts.length !== concurrencies.length) throw new Error(`--${name} takes one number per --concurrency level (${concurrencies.length})`);
    return counts;
  };
  const runs = perLevel('runs', values.runs);
  const complexRuns = perLevel('complex-runs', values['complex-runs']);
  const rounds = positiveInt('rounds', values.rounds);
  const warmup = positiveInt('warmup', values.warmup);
  const scenarios = list(values.scenarios) as ScenarioName[];
  for (const name of scenarios) if (!(name in SCENARIOS) || name === 'hitl') throw new Error(`--scenarios: ${name} is not one of fast, planner, rewrite, complex`);
  const models = list(values.models).map((name) => {
    if (!MODELS[name]) throw new Error(`--models: ${name} is not one of ${Object.keys(MODELS).join(', ')}`);
    return name;
  });
  const speculation = SpeculationLevel.parse(values.speculation);
  const started = new Date();
  const command = `npx tsx bench/cluster-side-by-side.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  console.log(`# bench/cluster-side-by-side — ${started.toISOString()}\ncommand: ${command}\nsource: ${sourceInfo()}\nload average at start: ${loadAverage()}`);

  const peerDir = preparePeer(values.peer);
  const devServer = values['dev-address'] ? null : await startDevServer(positiveInt('dev-port', values['dev-port']));
  const devAddress = values['dev-address'] ?? (devServer as DevServer).address;
  const port = (address: string) => Number(address.split(':').pop());
  const clusterPorts = { frontend: port(values['cluster-address']), history: 7634, matching: 7635, worker: 7639, postgres: 5633 };
  for (const [name, variable] of [['history', 'CLUSTER_HISTORY_PORT'], ['matching', 'CLUSTER_MATCHING_PORT'], ['worker', 'CLUSTER_WORKER_PORT'], ['postgres', 'CLUSTER_POSTGRES_PORT']] as const) {
    if (process.env[variable]?.trim()) clusterPorts[name] = positiveInt(variable, process.env[variable]?.trim());
  }
  const targets: ServerTarget[] = [];
  const phases: Phase[] = [];
  const cells: Cell[] = [];
  let trackers: RunTracker[] = [];
  let idle: Record<string, number> = {};
  let bundle: { path: string; remove(): void } | null = null;
  deadline(positiveInt('max-seconds', values['max-seconds']), async () => {
    await Promise.all(trackers.map((tracker) => tracker.close()));
    await devServer?.stop();
  });
  try {
    for (const [name, address, ports] of [['dev', devAddress, { server: port(devAddress) }], ['cluster', values['cluster-address'], clusterPorts]] as const) {
      const connection = await connectTemporal({ address });
      targets.push({ name, address, processes: { label: name === 'dev' ? 'dev server' : 'cluster', ports }, client: new Client({ connection }), connection });
    }
    trackers = targets.map((target) => new RunTracker(target.client, 'bench/cluster-side-by-side: stopped before this run finished'));
    // One workflow bundle for every worker: bundling takes tens of seconds on a busy machine.
    bundle = await bundleOnce();
    idle = await measureIdle(targets, positiveInt('idle-seconds', values['idle-seconds']));
    for (const modelName of models) {
      const model = MODELS[modelName] as LatencyModel & { label: string };
      const workers = new Map<ServerTarget['name'], BenchWorkerHandle>();
      const taskQueue = `bench-cluster-sbs-${process.pid}-${modelName}`;
      for (const target of targets) {
        workers.set(target.name, await startBenchWorker('process', { address: target.address, taskQueue, tuning: {}, latency: model, workflowBundlePath: bundle.path }));
        console.log(`${new Date().toISOString()} ${modelName}: bench worker on the ${target.name} server (${target.address}), task queue ${taskQueue}`);
      }
      try {
        for (let round = 1; round <= rounds; round += 1) {
          for (const scenario of scenarios) {
            for (const [level, concurrency] of concurrencies.entries()) {
              const measured = (scenario === 'complex' ? complexRuns : runs)[level] as number;
              // Rotate the order of the three targets from round to round (and cell to cell).
              const order: TargetName[] = ['dev', 'cluster', 'peer'];
              const shift = (round + level + scenarios.indexOf(scenario)) % order.length;
              for (const name of [...order.slice(shift), ...order.slice(0, shift)]) {
                const what = `${model.label}, ${scenario}, c=${concurrency}, round ${round}: ${name}`;
                const result = await phase(phases, what, async () => {
                  if (name === 'peer') return measurePeer(peerDir, model, scenario, concurrency, measured);
                  const index = targets.findIndex((target) => target.name === name);
                  const rag = RagClient.fromClient((targets[index] as ServerTarget).client, taskQueue, { speculation });
                  return measureRagtime(targets[index] as ServerTarget, workers.get(name) as BenchWorkerHandle, rag, trackers[index] as RunTracker, scenario, concurrency, warmup, measured);
                });
                cells.push({ model: modelName, scenario, concurrency, round, target: name, ...result });
                console.log(`${what}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, ${result.runsPerSecond.toFixed(2)} runs/s` +
                  (result.serverCpuPerRun === undefined ? '' : `, server CPU ${result.serverCpuPerRun.toFixed(1)} ms/run`) + (result.failed ? `, ${result.failed} FAILED` : ''));
              }
            }
          }
        }
      } finally {
        for (const [index, target] of targets.entries()) {
          await (trackers[index] as RunTracker).terminateAll();
          await (trackers[index] as RunTracker).drain(taskQueue);
          await workers.get(target.name)?.stop();
        }
      }
    }
  } finally {
    for (const target of targets) await target.connection.close();
    await devServer?.stop();
    bundle?.remove();
  }
  const markdown = renderClusterTables({ started, command, phases, cells, idle, rounds, concurrencies, runs, complexRuns, warmup, speculation, models: models.map((name) => ({ name, label: (MODELS[name] as { label: string }).label })), devPrivate: devServer !== null, devAddress });
  console.log(`\n${markdown}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: started.toISOString(), command, phases, idle, cells }, null, 2)}\n`);
  if (values.write) writeSection(path.resolve(REPO_ROOT, values.write), { begin: BEGIN, end: END }, markdown);
}

/** ragtime's workflows bundled once, in a file the bench workers load (as workflowBundle.codePath). */
async function bundleOnce(): Promise<{ path: string; remove(): void }> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: new DefaultLogger('WARN') });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-bundle-'));
  writeFileSync(path.join(dir, 'workflows.js'), code);
  return { path: path.join(dir, 'workflows.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Idle CPU of each server (ms of CPU per second), read over the same seconds for both, before any load. */
async function measureIdle(targets: ServerTarget[], seconds: number): Promise<Record<string, number>> {
  const before = targets.map((target) => readServerCpu(target.processes));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return Object.fromEntries(targets.map((target, i) => [target.name, cpuSpent(target.processes, before[i] as never, readServerCpu(target.processes)).total / seconds]));
}

async function measureRagtime(
  target: ServerTarget,
  worker: BenchWorkerHandle,
  rag: RagClient,
  tracker: RunTracker,
  scenario: ScenarioName,
  concurrency: number,
  warmup: number,
  measured: number,
): Promise<Measured> {
  const { question } = SCENARIOS[scenario];
  let total = 0;
  const once = async () => {
    total += 1;
    const workflowId = newRagWorkflowId('bench');
    await tracker.admit(workflowId);
    try {
      const outcome = await rag.ask(question, { sessionId: 'bench', workflowId });
      if (outcome.status !== 'completed' || outcome.route !== 'answer') throw new Error(`${scenario} run ${workflowId} ended ${outcome.status}/${outcome.route}`);
    } catch (error) {
      await tracker.terminate(workflowId);
      throw error;
    }
    tracker.finished(workflowId);
  };
  const server = readServerCpu(target.processes);
  const workerBefore = (await worker.usage()).cpuMs;
  const loop = await sustainedLoop(concurrency, Math.max(warmup, 2 * concurrency), measured, once);
  const spent = cpuSpent(target.processes, server, readServerCpu(target.processes));
  const workerSpent = (await worker.usage()).cpuMs - workerBefore;
  if (loop.failed) console.error(`${target.name} ${scenario} c=${concurrency}: ${loop.failed} runs failed, first: ${loop.firstError}`);
  return {
    p50: loop.p50,
    p95: loop.p95,
    runsPerSecond: loop.runsPerSecond,
    runs: loop.runs,
    failed: loop.failed,
    serverCpuPerRun: spent.total / total,
    serverCpuByProcess: Object.fromEntries(Object.entries(spent.byProcess).map(([name, ms]) => [name, ms / total])),
    workerCpuPerRun: workerSpent / total,
  };
}

function measurePeer(dir: string, model: LatencyModel, scenario: ScenarioName, concurrency: number, measured: number): Promise<Measured> {
  const [cell] = runPeer(dir, { runs: measured, concurrency, scenarios: [scenario], latencyFlags: latencyFlags(model) });
  if (!cell) throw new Error(`the peer printed no cell for ${scenario} at concurrency ${concurrency}`);
  return Promise.resolve({ p50: cell.p50_ms, p95: cell.p95_ms, runsPerSecond: cell.runs_per_s, runs: cell.runs, failed: 0 });
}

async function phase<T>(phases: Phase[], what: string, body: () => Promise<T>): Promise<T> {
  const started = new Date();
  const loadBefore = loadAverage();
  const result = await body();
  phases.push({ what, started: started.toISOString().slice(11, 19), seconds: (Date.now() - started.getTime()) / 1000, loadBefore, loadAfter: loadAverage() });
  return result;
}

type DevServer = { address: string; stop(): Promise<void> };

/** A dev server of our own, as scripts/services.sh starts the one of `make up` (SQLite file, its dynamic config), headless. */
async function startDevServer(port: number): Promise<DevServer> {
  const services = readFileSync(path.join(REPO_ROOT, 'scripts', 'services.sh'), 'utf8');
  const array = (name: string) => (new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(services)?.[1] ?? '').split(/\s+/).filter(Boolean);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-dev-server-'));
  const args = [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--db-filename', path.join(dir, 'temporal.db'), '--log-level', 'warn',
    ...array('SEARCH_ATTRIBUTES').flatMap((value) => ['--search-attribute', value]),
    ...array('DEV_SERVER_DYNAMIC_CONFIG').flatMap((value) => ['--dynamic-config-value', value]),
  ];
  const bin = path.join(process.env.RAGTIME_VENV ?? path.join(REPO_ROOT, '.venv'), 'bin', 'temporal');
  console.log(`private dev server: ${bin} ${args.join(' ')}`);
  // Its log stays out of the benchmark's output (a dev server at warn level still logs each shard's start and stop).
  const child: ChildProcess = spawn(bin, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${port}`;
  // The SQLite file goes only once the server has stopped writing it.
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    rmSync(dir, { recursive: true, force: true });
  };
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 500))) {
    if (child.exitCode !== null) throw new Error(`the private dev server exited (${child.exitCode}); is 127.0.0.1:${port} taken? (--dev-port)`);
    try {
      const connection = await connectTemporal({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return { address, stop };
    } catch {
      // not up yet
    }
  }
  await stop();
  throw new Error(`the private dev server did not answer on ${address} within 60 s`);
}

const BEGIN = '<!-- cluster-side-by-side:begin (written by bench/cluster-side-by-side.ts) -->';
const END = '<!-- cluster-side-by-side:end -->';

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
