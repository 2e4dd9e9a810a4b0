import os from 'node:os';
import { ms, rate, table } from './stats';

/*
 * The tables of bench/cluster-side-by-side.ts (issue 27 §4): per cell the median over the rounds of each target's
 * p50, p95 and runs/s, the ratios between them, and the server CPU per run of the dev server and of the cluster.
 */

export type TargetName = 'dev' | 'cluster' | 'peer';

/** One measurement of one target; the CPU fields only for ragtime (the peer has no server). */
export type Measured = {
  p50: number;
  p95: number;
  runsPerSecond: number;
  runs: number;
  failed: number;
  /** Server CPU ms per run of the load (warm-up and filler runs included), all processes of the server. */
  serverCpuPerRun?: number;
  serverCpuByProcess?: Record<string, number>;
  workerCpuPerRun?: number;
};

export type Cell = { model: string; scenario: string; concurrency: number; round: number; target: TargetName } & Measured;
export type Phase = { what: string; started: string; seconds: number; loadBefore: string; loadAfter: string };

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? (a / b).toFixed(2) : '—');

export function renderClusterTables(input: {
  started: Date;
  command: string;
  phases: Phase[];
  cells: Cell[];
  idle: Record<string, number>;
  rounds: number;
  concurrencies: number[];
  runs: number[];
  complexRuns: number[];
  warmup: number;
  speculation: string;
  models: Array<{ name: string; label: string }>;
  devPrivate: boolean;
  devAddress: string;
}): string {
  const keys = [...new Map(input.cells.map((cell) => [`${cell.model}/${cell.scenario}/${cell.concurrency}`, cell])).values()];
  const of = (key: Cell, target: TargetName) =>
    input.cells.filter((cell) => cell.model === key.model && cell.scenario === key.scenario && cell.concurrency === key.concurrency && cell.target === target);
  const med = (key: Cell, target: TargetName, pick: (cell: Cell) => number | undefined) => median(of(key, target).map(pick).filter((value): value is number => value !== undefined));
  const label = (name: string) => input.models.find((model) => model.name === name)?.label ?? name;
  const failed = input.cells.reduce((sum, cell) => sum + cell.failed, 0);
  const seconds = (what: string) => Math.round(input.phases.filter((phase) => phase.what.endsWith(what)).reduce((sum, phase) => sum + phase.seconds, 0));
  const loads = input.phases.map((phase) => Number(phase.loadBefore.split(' ')[0]));
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';

  const latency = table(
    ['latency model', 'scenario', 'conc.', 'p50 ms dev / cluster / peer', 'p95 ms dev / cluster / peer', 'runs/s dev / cluster / peer', '**cluster ÷ dev** p50, runs/s', 'dev ÷ peer p50, runs/s', 'cluster ÷ peer p50, runs/s'],
    keys.map((key) => {
      const p50 = (target: TargetName) => med(key, target, (cell) => cell.p50);
      const p95 = (target: TargetName) => med(key, target, (cell) => cell.p95);
      const rps = (target: TargetName) => med(key, target, (cell) => cell.runsPerSecond);
      return [
        label(key.model),
        key.scenario,
        String(key.concurrency),
        `${ms(p50('dev'))} / ${ms(p50('cluster'))} / ${ms(p50('peer'))}`,
        `${ms(p95('dev'))} / ${ms(p95('cluster'))} / ${ms(p95('peer'))}`,
        `${rate(rps('dev'))} / ${rate(rps('cluster'))} / ${rate(rps('peer'))}`,
        `**${ratio(p50('cluster'), p50('dev'))}**, **${ratio(rps('cluster'), rps('dev'))}**`,
        `${ratio(p50('dev'), p50('peer'))}, ${ratio(rps('dev'), rps('peer'))}`,
        `${ratio(p50('cluster'), p50('peer'))}, ${ratio(rps('cluster'), rps('peer'))}`,
      ];
    }),
  );
  const parts = ['frontend', 'history', 'matching', 'worker', 'postgres'];
  const cpuTable = table(
    ['latency model', 'scenario', 'conc.', 'dev server ms/run', 'cluster ms/run', '**cluster ÷ dev**', `cluster: ${parts.join(' / ')}`, 'ragtime worker ms/run (dev / cluster)'],
    keys.map((key) => {
      const dev = med(key, 'dev', (cell) => cell.serverCpuPerRun);
      const cluster = med(key, 'cluster', (cell) => cell.serverCpuPerRun);
      return [
        label(key.model),
        key.scenario,
        String(key.concurrency),
        ms(dev),
        ms(cluster),
        `**${ratio(cluster, dev)}**`,
        parts.map((part) => ms(med(key, 'cluster', (cell) => cell.serverCpuByProcess?.[part]))).join(' / '),
        `${ms(med(key, 'dev', (cell) => cell.workerCpuPerRun))} / ${ms(med(key, 'cluster', (cell) => cell.workerCpuPerRun))}`,
      ];
    }),
  );
  return [
    `Measured ${input.started.toISOString().slice(0, 16).replace('T', ' ')} UTC with:`,
    '',
    '```',
    'make cluster-up && source scripts/env.sh   # not `make up`: a private dev server, fake adapters (no Milvus, no embeddings)',
    input.command,
    '```',
    '',
    `Machine: ${os.cpus().length} vCPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, shared: other sessions ran ` +
      `tests on the same cores (1-minute load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} at the starts of the ${input.phases.length} measurements; 2 = both cores busy). ` +
      `dev = ${input.devPrivate ? `a private dev server started by the benchmark (${input.devAddress}: the flags of \`make up\`'s, SQLite file, headless), so that other sessions' runs do not count in its CPU` : `the dev server at ${input.devAddress}`}; ` +
      'cluster = the four services and PostgreSQL of `make cluster-up` (127.0.0.1:7633); peer = the LangGraph.js peer in-process with its SQLite checkpointer. ' +
      `ragtime runs with speculation ${input.speculation} (\`ragtime ask\`'s default), one bench worker process per server (real activities, fake adapters sleeping the latency model). ` +
      `Rounds: ${input.rounds}; in each, every cell runs on all three targets in an order that rotates, and the tables give the median over the rounds. ` +
      `Measured runs per cell and round at concurrency ${input.concurrencies.join(' / ')}: ${input.runs.join(' / ')} (complex, 4 workflows a run: ${input.complexRuns.join(' / ')}), ` +
      `after ${input.warmup} warm-up runs (at least 2 × concurrency; the peer: min(10, concurrency)). Time: ragtime on the dev server ${seconds(': dev')} s, on the cluster ${seconds(': cluster')} s, the peer ${seconds(': peer')} s. ` +
      `Failed runs: ${failed}.`,
    '',
    'Latency per run and throughput (ratios: p50 above 1 and runs/s below 1 mean the first is slower):',
    '',
    latency,
    '',
    `Server CPU per ragtime run (utime + stime from /proc around each load, divided by every run of the load; cluster = the sum over its five processes, PostgreSQL with its backends). Idle, before the loads: dev server ${ms(input.idle.dev ?? Number.NaN)} ms of CPU per second, cluster ${ms(input.idle.cluster ?? Number.NaN)} ms/s.`,
    '',
    cpuTable,
  ].join('\n');
}
