import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../client/temporal-connection';
import { RagClient, newRagWorkflowId } from '../client/rag-client';
import { WORKER_FLAGS, WORKER_FLAGS_HELP, parseArgs, positiveInt, temporalAddress, temporalSecurity, workerFlags } from './support/args';
import { describeMachine, loadAverage, machineInfo } from './support/machine';
import { RunTracker, deadline } from './support/run-tracker';
import { PARK_ANSWER, PARK_QUESTION, SIMPLE_QUESTION } from './support/scenarios';
import { closedLoop, mib, ms, rate, summarize, table, type Summary } from './support/stats';
import { startBenchWorker, type BenchWorkerHandle } from './support/worker-host';
import type { WorkerUsage } from './support/worker-process';

/*
 * Runs parked awaiting input (issue 3 §7): start N runs whose grade asks for clarification, so each waits (7 days by
 * default) for an answer; measure the worker's RSS with them parked; then answer a sample with RagClient.answer and
 * measure answer → next outcome. Twice: (1) on the worker that parked them, where they are still in its workflow
 * cache unless --max-cached is below --runs (the oldest runs are answered first, so LRU has evicted them), and (2) on
 * a fresh worker after that one stopped, where every answered run must first be replayed from its history — the path
 * a run takes once maxCachedWorkflows has evicted it. Every parked run is terminated at the end, answered or not.
 * The forced GC (--expose-gc) collects the worker's main thread; workflows live in the workflow thread's own V8 heap,
 * which shows in RSS only.
 *
 *   npx tsx bench/parked-runs.ts [--runs 1000] [--sample 200] [worker flags]
 */

const HELP = `usage: npx tsx bench/parked-runs.ts [options]
  --runs N                  runs to park (default 1000)
  --sample N                runs answered in each phase, cached and evicted (default 200)
  --start-concurrency N     concurrent asks while parking (default 20)
  --answer-concurrency N    concurrent answers (default 1: latency, not throughput)
  --json FILE               also write the results as JSON
  --max-seconds N           abort after N seconds (default 600)
${WORKER_FLAGS_HELP}
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233)`;

type Memory = { label: string; usage: WorkerUsage };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      sample: { type: 'string' },
      'start-concurrency': { type: 'string' },
      'answer-concurrency': { type: 'string' },
      json: { type: 'string' },
      'max-seconds': { type: 'string' },
      help: { type: 'boolean', default: false },
      ...WORKER_FLAGS,
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const runs = positiveInt('runs', values.runs, 1000);
  const sample = positiveInt('sample', values.sample, 200);
  const startConcurrency = positiveInt('start-concurrency', values['start-concurrency'], 20);
  const answerConcurrency = positiveInt('answer-concurrency', values['answer-concurrency'], 1);
  if (2 * sample > runs) throw new Error(`--sample ${sample} twice (cached and evicted) exceeds --runs ${runs}`);
  const { mode, tuning } = workerFlags(values);
  if (mode !== 'process') throw new Error('parked-runs measures the worker process RSS: use --worker process');
  const maxSeconds = positiveInt('max-seconds', values['max-seconds'], 600);

  const address = temporalAddress();
  const connection = await connectTemporal({ ...temporalSecurity(), address });
  const client = new Client({ connection });
  // Every run started here and not seen finish: the parked ones, and any whose ask or answer failed.
  const tracker = new RunTracker(client, 'bench/parked-runs: done');
  deadline(maxSeconds, async () => {
    console.error(`terminated ${await tracker.close()} runs`);
  });
  const machine = await machineInfo(connection, address);
  console.log(`# bench/parked-runs — ${new Date().toISOString()}`);
  console.log(`command: npx tsx bench/parked-runs.ts ${process.argv.slice(2).join(' ')}`.trimEnd());
  console.log(describeMachine(machine));
  console.log(`load average at start: ${loadAverage()}`);

  const taskQueue = `bench-parked-${randomUUID()}`;
  const rag = RagClient.fromClient(client, taskQueue);
  const memory: Memory[] = [];
  const parked: string[] = [];
  let worker: BenchWorkerHandle | null = null;
  const note = async (label: string, gc = false) => {
    const usage = gc ? await (worker as BenchWorkerHandle).gcThenUsage() : await (worker as BenchWorkerHandle).usage();
    memory.push({ label, usage });
    console.log(`${label}: RSS ${mib(usage.rss)}, main heap ${mib(usage.heapUsed)}, other threads' heaps ${threadHeaps(usage)}, cached workflows ${usage.cachedWorkflows}`);
  };
  const answerSample = async (ids: string[]): Promise<Summary> => {
    const { latencies, wallMs } = await closedLoop(ids.length, answerConcurrency, async (i) => {
      const workflowId = ids[i] as string;
      const outcome = await rag.answer(workflowId, PARK_ANSWER);
      if (outcome.status !== 'completed' || outcome.route !== 'answer') {
        throw new Error(`answered run ${workflowId} ended ${outcome.status}/${outcome.route}: ${JSON.stringify(outcome.error)}`);
      }
      tracker.finished(workflowId);
    });
    return summarize(latencies, wallMs);
  };

  let parking: Summary | null = null;
  let cached: Summary | null = null;
  let evicted: Summary | null = null;
  let firstTuning: Record<string, unknown> = {};
  try {
    worker = await startBenchWorker('process', { address, taskQueue, tuning });
    firstTuning = worker.tuning;
    console.log(`worker 1: own process (pid ${worker.pid}), task queue ${taskQueue}`);
    console.log(`worker settings: ${JSON.stringify(worker.tuning)}`);
    await note('worker 1 started, idle', true);
    // Warm-up: load the workflow bundle's code paths once (these runs complete and leave the cache empty of parked runs).
    await closedLoop(20, 5, async () => {
      const workflowId = newRagWorkflowId('bench-parked');
      await tracker.admit(workflowId);
      await rag.ask(SIMPLE_QUESTION, { sessionId: 'bench-parked', workflowId });
      tracker.finished(workflowId);
    });
    await note('worker 1 after 20 warm-up runs, after GC', true);

    const parkedRuns = await closedLoop(runs, startConcurrency, async () => {
      const workflowId = newRagWorkflowId('bench-parked');
      await tracker.admit(workflowId);
      const outcome = await rag.ask(PARK_QUESTION, { sessionId: 'bench-parked', workflowId });
      if (outcome.status !== 'awaiting_input') throw new Error(`run ${workflowId} did not park: ${outcome.status}/${outcome.route}`);
      parked.push(workflowId);
    });
    parking = summarize(parkedRuns.latencies, parkedRuns.wallMs);
    console.log(`parked ${parked.length} runs: ask p50 ${ms(parking.p50)} ms, ${rate(parking.runsPerSecond)} runs/s; load ${loadAverage()}`);
    await note(`worker 1 with ${parked.length} parked runs`);
    await note(`worker 1 with ${parked.length} parked runs, after GC`, true);

    cached = await answerSample(parked.slice(0, sample));
    console.log(`answered ${sample} runs on worker 1: p50 ${ms(cached.p50)} ms p95 ${ms(cached.p95)} ms; load ${loadAverage()}`);
    await note(`worker 1 after answering ${sample}, after GC`, true);

    await worker.stop();
    worker = await startBenchWorker('process', { address, taskQueue, tuning });
    console.log(`worker 2: own process (pid ${worker.pid}), empty cache`);
    await note('worker 2 started, idle', true);
    evicted = await answerSample(parked.slice(sample, 2 * sample));
    console.log(`answered ${sample} evicted runs (replayed from history): p50 ${ms(evicted.p50)} ms p95 ${ms(evicted.p95)} ms; load ${loadAverage()}`);
    await note(`worker 2 after answering ${sample}, after GC`, true);
  } finally {
    console.log(`terminated ${await tracker.terminateAll()} runs that were not answered (or did not finish)`);
    const unfinished = worker ? await tracker.drain(taskQueue) : 0;
    if (unfinished > 0) console.error(`terminated ${unfinished} more runs that did not finish`);
    await worker?.stop();
    await connection.close();
  }

  const cacheSize = Number(firstTuning.maxCachedWorkflows);
  console.log('\n## Worker memory (worker process; forced GC in every thread where noted)\n');
  console.log(
    table(
      ['moment', 'RSS', 'main-thread heap used', 'workflow-thread heap used', 'cached workflows'],
      memory.map(({ label, usage }) => [label, mib(usage.rss), mib(usage.heapUsed), threadHeaps(usage), String(usage.cachedWorkflows)]),
    ),
  );
  const row = (label: string, summary: Summary | null) =>
    summary ? [label, String(summary.runs), ms(summary.p50), ms(summary.p95), ms(summary.max)] : [label, '—', '—', '—', '—'];
  console.log(`\n## Latency (answer concurrency ${answerConcurrency})\n`);
  console.log(
    table(['what', 'runs', 'p50 ms', 'p95 ms', 'max ms'], [
      row(`ask → awaiting_input (parking, concurrency ${startConcurrency})`, parking),
      row(
        cacheSize >= runs
          ? `answer → completed, run in the worker cache (maxCachedWorkflows ${cacheSize})`
          : `answer → completed, same worker, run evicted by maxCachedWorkflows ${cacheSize} (LRU) and replayed`,
        cached,
      ),
      row('answer → completed, run evicted (replayed on a fresh worker)', evicted),
    ]),
  );
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ date: new Date().toISOString(), argv: process.argv.slice(2), machine, tuning: firstTuning, memory, parking, cached, evicted }, null, 2)}\n`,
    );
  }
}

/** The other threads' heaps after their GC (the workflow thread; ESM loader threads report too, and are tiny). */
function threadHeaps(usage: WorkerUsage): string {
  if (!usage.threads) return '—';
  return usage.threads.map((thread) => mib(thread.usedHeap)).join(' + ') || 'no reply';
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
