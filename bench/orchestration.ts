import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Client, WithStartWorkflowOperation } from '@temporalio/client';
import { connectTemporal } from '../client/temporal-connection';
import { performance } from 'node:perf_hooks';
import { RagClient, newRagWorkflowId } from '../client/rag-client';
import type { RagOutcome } from '../core/schemas/run-io';
import { SpeculationLevel } from '../core/schemas/speculation';
import { WORKER_FLAGS, WORKER_FLAGS_HELP, parseArgs, positiveInt, temporalAddress, temporalSecurity, workerFlags } from './support/args';
import { gapTable, historyGaps } from './support/history-gaps';
import { describeMachine, loadAverage, machineInfo, ownCpuMs, processCpuMs } from './support/machine';
import { floorDoneUpdate, type benchFloorWorkflow } from './support/floor-workflow';
import { LATENCY_FLAGS, LATENCY_FLAGS_HELP, isZeroLatency, latencyFromFlags } from './support/latency';
import { SCENARIOS, SCENARIO_ALIASES, inProcessModels, runInProcess, type ScenarioName } from './support/scenarios';
import { RunTracker, deadline } from './support/run-tracker';
import { closedLoop, ms, rate, summarize, sustainedLoop, table, type Summary } from './support/stats';
import { startBenchWorker, type BenchWorkerHandle } from './support/worker-host';

/*
 * Orchestration overhead of ragtime (issue 3 §7) and, with a latency model (issue 17 §1), the latency users feel: the
 * peer's scenarios (fast, planner, rewrite, complex, hitl) with adapters that answer at once or sleep as told,
 * (a) through Temporal — the real dev server, one worker, RagClient.ask (update-with-start) per run — and (b) the same
 * graph in-process (the pure driver runRag over the same core/ functions). p50/p95 latency per run and sustained
 * runs/s at each concurrency (support/stats.ts sustainedLoop: a closed loop, warm-up excluded, filler runs keep every
 * lane busy until the last measured run returns). Overhead = (a) − (b).
 *
 * A third scenario, the floor, runs the simple run's shape on Temporal without any ragtime code: the part of (a) that
 * is Temporal's on this machine, whatever the workflow does.
 *
 *   npx tsx bench/orchestration.ts [--runs N] [--concurrency 1,10,50] [--scenarios fast,planner,rewrite,complex,hitl,floor]
 *                                  [--llm-ms N --embed-ms N --search-ms N --jitter F] [worker flags]
 */

const HELP = `usage: npx tsx bench/orchestration.ts [options]
  --runs N[,N…]             measured runs per scenario and concurrency (default 200); a list gives one per
                            --concurrency level, in order
  --complex-runs N[,N…]     the same for the complex scenario, 4 workflows per run (default 60)
  --warmup N                warm-up runs before each measurement, at least 2 × concurrency (default 30)
                            (then filler runs keep all lanes busy until the last measured run returns)
  --concurrency 1,10,50     closed-loop concurrency levels (default 1,10,50)
  --scenarios fast,planner,rewrite,complex,hitl,floor
                            the peer's names (support/scenarios.ts; simple = fast); hitl only at concurrency 1, as
                            the peer: its p50 is ask → awaiting input, its resume p50 answer → outcome
                            floor: the simple run's shape on Temporal with no ragtime code (support/floor-workflow.ts)
                            floor-3: the fast run's shape at speculation off (3 activities, then 1 local; 4 tasks)
                            floor-local: the floor's two activities as local ones (one workflow task; not how ragtime runs)
  --in-process-runs N       measured in-process runs per cell (default 2000; they take microseconds)
  --profile N               then run N more simple (and floor) runs one at a time; break their time down by history event
  --json FILE               also write the results as JSON
  --speculation LEVEL       off (default), retrieve, grade, answer or rewrite: what the runs speculate (issue 17 §2)
${LATENCY_FLAGS_HELP}
  --max-seconds N           abort after N seconds (default 600)
${WORKER_FLAGS_HELP}
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233)`;

const FLOOR_WORKFLOWS = { floor: 'benchFloorWorkflow', 'floor-3': 'benchFloor3Workflow', 'floor-local': 'benchFloorLocalWorkflow' } as const;
type FloorScenario = keyof typeof FLOOR_WORKFLOWS;
type BenchScenario = ScenarioName | FloorScenario;
const isFloor = (scenario: BenchScenario): scenario is FloorScenario => scenario in FLOOR_WORKFLOWS;

type Cell = {
  scenario: BenchScenario;
  concurrency: number;
  temporal: Summary;
  /** Null for the floor, which has no in-process counterpart. */
  inProcess: Summary | null;
  /** hitl: answer → outcome of the measured runs (`temporal` is ask → awaiting input, runs/s whole runs). */
  resume?: Summary;
  /** CPU ms per measured run, by process, during the Temporal measurement. */
  cpuPerRun: { client: number; worker: number | null; server: number | null };
  load: string;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      'complex-runs': { type: 'string' },
      warmup: { type: 'string' },
      concurrency: { type: 'string', default: '1,10,50' },
      scenarios: { type: 'string', default: 'fast,planner,rewrite,complex,hitl,floor' },
      'in-process-runs': { type: 'string' },
      json: { type: 'string' },
      profile: { type: 'string' },
      'max-seconds': { type: 'string' },
      speculation: { type: 'string', default: 'off' },
      help: { type: 'boolean', default: false },
      ...LATENCY_FLAGS,
      ...WORKER_FLAGS,
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const runs = runsPerLevel('runs', values.runs, 200);
  const complexRuns = runsPerLevel('complex-runs', values['complex-runs'], 60);
  const warmup = positiveInt('warmup', values.warmup, 30);
  const inProcessRuns = positiveInt('in-process-runs', values['in-process-runs'], 2000);
  const concurrencies = values.concurrency.split(',').map((text) => positiveInt('concurrency', text.trim()));
  const runsAt = (list: number[], level: number): number => {
    if (list.length !== 1 && list.length !== concurrencies.length) throw new Error(`--runs and --complex-runs take one number or one per --concurrency level (${concurrencies.length})`);
    return list[list.length === 1 ? 0 : level] as number;
  };
  const scenarios = values.scenarios.split(',').map((name) => SCENARIO_ALIASES[name.trim()] ?? name.trim()) as BenchScenario[];
  for (const name of scenarios) {
    if (!isFloor(name) && !(name in SCENARIOS)) throw new Error(`unknown scenario ${JSON.stringify(name)} (${Object.keys(SCENARIOS).join(', ')}, ${Object.keys(FLOOR_WORKFLOWS).join(', ')})`);
  }
  const latency = latencyFromFlags(values);
  const speculation = SpeculationLevel.parse(values.speculation);
  const { mode, tuning } = workerFlags(values);
  const maxSeconds = positiveInt('max-seconds', values['max-seconds'], 600);

  const address = temporalAddress();
  const connection = await connectTemporal({ ...temporalSecurity(), address });
  const client = new Client({ connection });
  const tracker = new RunTracker(client, 'bench/orchestration: the benchmark stopped before this run finished');
  deadline(maxSeconds, async () => {
    console.error(`terminated ${await tracker.close()} runs in flight`);
  });
  const machine = await machineInfo(connection, address);
  console.log(`# bench/orchestration — ${new Date().toISOString()}`);
  console.log(`command: npx tsx bench/orchestration.ts ${process.argv.slice(2).join(' ')}`.trimEnd());
  console.log(describeMachine(machine));
  console.log(`load average at start: ${loadAverage()}`);
  console.log(`latency model: ${JSON.stringify(latency)}; speculation: ${speculation}`);

  // (b) in-process first: it needs no worker and takes well under a second per cell. Only at zero latency (the pure
  // driver does not sleep) and not for hitl (it has no person to wait for).
  const inProcess = new Map<string, Summary>();
  for (const scenario of scenarios) {
    if (isFloor(scenario) || scenario === 'hitl' || !isZeroLatency(latency)) continue;
    for (const concurrency of concurrencies) {
      const models = inProcessModels();
      const once = async () => runInProcess(models, SCENARIOS[scenario].question);
      inProcess.set(`${scenario}/${concurrency}`, await sustainedLoop(concurrency, Math.max(warmup, 2 * concurrency, 200), inProcessRuns, once));
    }
  }

  const profileRuns = positiveInt('profile', values.profile, 0);
  const cells: Cell[] = [];
  let settings: Record<string, unknown> = {};
  // One worker per scenario, so that each cell's worker CPU is that scenario's (and the floor has its own bundle).
  for (const scenario of scenarios) {
    const taskQueue = `bench-${randomUUID()}`;
    const bundle = isFloor(scenario) ? 'floor' : 'ragtime';
    const worker: BenchWorkerHandle = await startBenchWorker(mode, { address, taskQueue, tuning, bundle, latency }, { cpuProfileDir: values['worker-cpu-prof'] });
    settings = worker.tuning;
    console.log(`${scenario}: worker ${mode === 'process' ? `in its own process (pid ${worker.pid})` : 'in the benchmark process'}, task queue ${taskQueue}`);
    console.log(`worker settings: ${JSON.stringify(worker.tuning)}`);
    const rag = RagClient.fromClient(client, taskQueue, { speculation });
    const hitlParts = new Map<number, HitlParts>();
    const ask = (index = -1) =>
      isFloor(scenario) ? floorRun(client, taskQueue, tracker, scenario) : ragRun(rag, scenario, tracker, (parts) => hitlParts.set(index, parts));
    try {
      for (const [level, concurrency] of concurrencies.entries()) {
        // As the peer: one person answering at a time.
        if (scenario === 'hitl' && concurrency > 1) continue;
        hitlParts.clear();
        // CPU is read around the whole loop (warm-up and filler runs too) and divided by every run it did.
        let total = 0;
        const counted = async (index: number) => {
          total += 1;
          await ask(index);
        };
        const before = { client: ownCpuMs(), worker: (await worker.usage()).cpuMs, server: processCpuMs(machine.serverPid) };
        const measured = runsAt(scenario === 'complex' ? complexRuns : runs, level);
        const warm = Math.max(warmup, 2 * concurrency);
        const loop = await sustainedLoop(concurrency, warm, measured, counted);
        const split = scenario === 'hitl' ? splitHitl(loop, hitlParts, warm, measured) : null;
        const temporal = split?.ask ?? loop;
        const after = { client: ownCpuMs(), worker: (await worker.usage()).cpuMs, server: processCpuMs(machine.serverPid) };
        const perRun = (a: number | null, b: number | null) => (a === null || b === null ? null : (b - a) / total);
        const cell: Cell = {
          scenario,
          concurrency,
          temporal,
          inProcess: inProcess.get(`${scenario}/${concurrency}`) ?? null,
          ...(split ? { resume: split.resume } : {}),
          // In inproc mode the worker's CPU is part of this process's: report it once, as the client's.
          cpuPerRun: {
            client: (after.client - before.client) / total,
            worker: mode === 'process' ? perRun(before.worker, after.worker) : null,
            server: perRun(before.server, after.server),
          },
          load: loadAverage(),
        };
        cells.push(cell);
        console.log(
          `${scenario} c=${concurrency}: temporal p50 ${ms(cell.temporal.p50)} ms p95 ${ms(cell.temporal.p95)} ms ` +
            `${rate(cell.temporal.runsPerSecond)} runs/s; ${cell.resume ? `resume p50 ${ms(cell.resume.p50)} ms; ` : ''}` +
            `in-process p50 ${cell.inProcess ? ms(cell.inProcess.p50) : '—'} ms; load ${cell.load}` +
            (temporal.failed ? `; ${temporal.failed} FAILED (first: ${temporal.firstError})` : ''),
        );
      }
      if (profileRuns > 0 && scenario !== 'hitl') await profile(client, scenario, profileRuns, ask);
    } finally {
      const inFlight = await tracker.terminateAll();
      const unfinished = await tracker.drain(taskQueue);
      if (inFlight + unfinished > 0) console.error(`terminated ${inFlight} runs in flight and ${unfinished} that did not finish`);
      await worker.stop();
    }
  }
  await connection.close();

  report(cells, { runs, complexRuns, warmup, inProcessRuns, mode });
  if (values.json) {
    const document = { date: new Date().toISOString(), argv: process.argv.slice(2), machine, mode, tuning: settings, latency, speculation, cells };
    writeFileSync(values.json, `${JSON.stringify(document, null, 2)}\n`);
  }
}

/** Runs `run` as the tracked run `workflowId`: a run whose call fails is terminated (it may still be running). */
async function trackedRun(tracker: RunTracker, workflowId: string, run: () => Promise<void>): Promise<string> {
  await tracker.admit(workflowId);
  try {
    await run();
  } catch (error) {
    await tracker.terminate(workflowId);
    throw error;
  }
  tracker.finished(workflowId);
  return workflowId;
}

/**
 * One ragtime run through RagClient.ask (update-with-start); it must complete with route answer. hitl: the ask must
 * park the run (awaiting input), then the person's answer (an update) must complete it; `onResume` gets the answer's
 * latency (ms), the part of the run after the person.
 */
function ragRun(rag: RagClient, scenario: ScenarioName, tracker: RunTracker, onParts: (parts: HitlParts) => void): Promise<string> {
  const workflowId = newRagWorkflowId('bench');
  const { question, answer } = SCENARIOS[scenario];
  const expectDone = (outcome: RagOutcome) => {
    if (outcome.status !== 'completed' || outcome.route !== 'answer') {
      throw new Error(`${scenario} run ${workflowId} ended ${outcome.status}/${outcome.route}: ${JSON.stringify(outcome.error)}`);
    }
  };
  return trackedRun(tracker, workflowId, async () => {
    const started = performance.now();
    const first = await rag.ask(question, { sessionId: 'bench', workflowId });
    if (answer === undefined) return expectDone(first);
    if (first.status !== 'awaiting_input') throw new Error(`${scenario} run ${workflowId} did not wait for a person: ${first.status}/${first.route}`);
    const asked = performance.now();
    expectDone(await rag.answer(workflowId, answer));
    onParts({ askMs: asked - started, resumeMs: performance.now() - asked });
  });
}

type HitlParts = { askMs: number; resumeMs: number };

/**
 * hitl, reported as the peer reports it: latency is ask → awaiting input, `resume` answer → outcome, both over the
 * measured runs; runs/s counts whole runs (ask and answer).
 */
function splitHitl(loop: Summary, parts: Map<number, HitlParts>, warmup: number, measured: number): { ask: Summary; resume: Summary } {
  const kept = [...parts].filter(([index]) => index >= warmup && index < warmup + measured).map(([, value]) => value);
  const part = (pick: (value: HitlParts) => number): Summary => ({
    ...summarize(kept.map(pick), loop.wallMs),
    failed: loop.failed,
    runsPerSecond: loop.runsPerSecond,
    ...(loop.firstError ? { firstError: loop.firstError } : {}),
  });
  return { ask: part((value) => value.askMs), resume: part((value) => value.resumeMs) };
}

/** One floor run, started the way `ask` starts a run: update-with-start, waiting for the update's result. */
function floorRun(client: Client, taskQueue: string, tracker: RunTracker, scenario: FloorScenario): Promise<string> {
  const workflowId = `bench-${scenario}-${randomUUID()}`;
  return trackedRun(tracker, workflowId, async () => {
    const start = new WithStartWorkflowOperation<typeof benchFloorWorkflow>(FLOOR_WORKFLOWS[scenario], {
      workflowId,
      taskQueue,
      workflowIdConflictPolicy: 'FAIL',
    });
    const result = await client.workflow.executeUpdateWithStart(floorDoneUpdate, { startWorkflowOperation: start });
    if (result !== 2) throw new Error(`floor run returned ${result}`);
  });
}

/** Runs one at a time: client round trip vs the server-side duration, and the server-side breakdown. */
async function profile(client: Client, name: string, runs: number, once: () => Promise<string>): Promise<void> {
  const ids: string[] = [];
  const { latencies } = await closedLoop(runs, 1, async () => {
    ids.push(await once());
  });
  const gaps = await historyGaps(client, ids);
  const clientP50 = summarize(latencies, 1).p50;
  console.log(`\n## Profile: ${runs} ${name} runs at concurrency 1`);
  console.log(`client round trip p50 ${ms(clientP50)} ms; server-side (first → last history event) p50 ${ms(gaps.durationP50)} ms`);
  console.log(gapTable(gaps));
}

/** `--runs 20` or `--runs 10,20,40` (one per concurrency level). */
const runsPerLevel = (name: string, text: string | undefined, fallback: number): number[] =>
  text === undefined ? [fallback] : text.split(',').map((part) => positiveInt(name, part.trim()));

function report(cells: Cell[], settings: { runs: number[]; complexRuns: number[]; warmup: number; inProcessRuns: number; mode: string }): void {
  const cpu = (value: number | null) => (value === null ? '—' : ms(value));
  console.log(
    `\n## Results (${settings.runs} measured runs per Temporal cell, complex ${settings.complexRuns}; ${settings.inProcessRuns} in-process; ` +
      'warm-up and filler runs excluded)\n',
  );
  console.log(
    table(
      ['scenario', 'conc.', '(a) Temporal p50 / p95 ms', '(a) runs/s', '(a) failed', '(b) in-process p50 / p95 ms', '(b) runs/s', 'overhead p50 (a−b) ms', 'CPU ms/run client / worker / server'],
      cells.map((cell) => [
        cell.scenario,
        String(cell.concurrency),
        `${ms(cell.temporal.p50)} / ${ms(cell.temporal.p95)}`,
        rate(cell.temporal.runsPerSecond),
        String(cell.temporal.failed),
        cell.inProcess ? `${ms(cell.inProcess.p50)} / ${ms(cell.inProcess.p95)}` : '—',
        cell.inProcess ? rate(cell.inProcess.runsPerSecond) : '—',
        cell.inProcess ? ms(cell.temporal.p50 - cell.inProcess.p50) : '—',
        `${cpu(cell.cpuPerRun.client)} / ${cpu(cell.cpuPerRun.worker)} / ${cpu(cell.cpuPerRun.server)}`,
      ]),
    ),
  );
  const simple = cells.filter((cell) => cell.scenario === 'fast');
  const single = simple.find((cell) => cell.concurrency === 1);
  const best = simple.reduce<Cell | null>((top, cell) => (!top || cell.temporal.runsPerSecond > top.temporal.runsPerSecond ? cell : top), null);
  console.log('\n## Targets');
  const failures = cells.filter((cell) => cell.temporal.failed > 0);
  for (const cell of failures) console.log(`${cell.scenario} c=${cell.concurrency}: ${cell.temporal.failed} runs failed, first: ${cell.temporal.firstError}`);
  if (single?.inProcess) {
    const overhead = single.temporal.p50 - single.inProcess.p50;
    console.log(`simple-run overhead p50 at concurrency 1: ${ms(overhead)} ms (target ≤ 40 ms) — ${overhead <= 40 ? 'met' : 'MISSED'}`);
  }
  if (best) {
    const met = best.temporal.runsPerSecond >= 50;
    console.log(`simple runs/s sustained, best level (concurrency ${best.concurrency}): ${rate(best.temporal.runsPerSecond)} (target ≥ 50) — ${met ? 'met' : 'MISSED'}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
