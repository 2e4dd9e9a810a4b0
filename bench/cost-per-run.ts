import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createAnswerStreamStore } from '../activities/adapters/sql-answer-stream';
import { openSqlDatabase } from '../activities/adapters/sql/database';
import { followAnswer, type AnswerStreamReader } from '../client/follow-answer';
import { RagClient, newRagWorkflowId } from '../client/rag-client';
import { connectTemporal } from '../client/temporal-connection';
import { parseCodecKeyList } from '../core/codec-keys';
import { SpeculationLevel } from '../core/schemas/speculation';
import { REPO_ROOT } from '../runtime/repo-root';
import { parseArgs, positiveInt, temporalAddress, temporalSecurity } from './support/args';
import { LATENCY_FLAGS, LATENCY_FLAGS_HELP, latencyFromFlags } from './support/latency';
import { listeningPid, loadAverage, ownCpuMs, processCpuMs, processTreeCpuMs, sourceInfo } from './support/machine';
import { countRun, meanCounts, type RunCounts } from './support/run-counts';
import { SCENARIOS, type ScenarioName } from './support/scenarios';
import { ms, table } from './support/stats';
import { startBenchWorker } from './support/worker-host';
import type { WorkerUsage } from './support/worker-process';
import { writeSection } from './support/markdown-section';

/*
 * Where a run's CPU goes, per process, and what it costs in Temporal and the stores (issue 36 §1): for each scenario
 * (fast, planner, complex) and payload codec (off, on), N runs one at a time, each started with RagClient.ask and
 * followed by a listener (followAnswer: pushed to, by PostgreSQL or over the SQLite file's socket) as a user watching it. The
 * worker runs in its own process with the real activity code, the bench adapters (support/scenarios.ts) and the
 * deployment's stores (answer stream, audit, session turns) on PostgreSQL or one SQLite file.
 * CPU per run, by process: the worker, the Temporal server, this process (client and listener) and the stores'
 * database server (PostgreSQL's processes; SQLite runs inside the worker and the listener). Counts per run, from the
 * histories (the run and its children) and the stores: workflow tasks, activity tasks, local activities, search
 * attribute and memo upserts, history events and bytes, payload bytes through the worker's codec, audit rows, answer
 * stream rows written, and the listener's store reads and answerStream queries.
 *
 *   npx tsx bench/cost-per-run.ts [--runs 20] [--scenarios fast,planner,complex] [--codec off,on]
 *                                 [--database-url URL] [--write docs/PERFORMANCE.md --section NAME]
 */

const HELP = `usage: npx tsx bench/cost-per-run.ts [options]
  --runs N               measured runs per cell (default 20), after --warmup runs (default 5)
  --scenarios LIST       fast,planner,complex (support/scenarios.ts)
  --codec off,on         payloads plain, or encrypted with AES-256-GCM (a fresh key)
  --speculation LEVEL    what the runs speculate (default off)
  --database-url URL     the stores on PostgreSQL (the listener is pushed to); default one SQLite file (its push: a local socket)
${LATENCY_FLAGS_HELP}
  --write FILE           put the tables into FILE between the cost-per-run:SECTION markers
  --section NAME         which markers (default main)
  --json FILE            also write every cell as JSON
  --worker-cpu-prof DIR  run the worker with --cpu-prof (summarize with bench/cpu-profile-summary.ts DIR)
env: TEMPORAL_ADDRESS (default 127.0.0.1:7233)`;

type Cell = {
  scenario: ScenarioName;
  codec: 'off' | 'on';
  runs: number;
  cpu: { worker: number; server: number; client: number; database: number | null };
  counts: RunCounts;
  payloads: { encodedBytes: number; encodedPayloads: number; decodedBytes: number; decodedPayloads: number };
  stores: { auditRows: number; streamRows: number; streamReads: number; queries: number };
};

const countRows = async (db: ReturnType<typeof openSqlDatabase>['db'], tableName: string, ids: string[]): Promise<number> => {
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(tableName)} where workflow_id in (${sql.join(ids)})`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '5' },
      scenarios: { type: 'string', default: 'fast,planner,complex' },
      codec: { type: 'string', default: 'off,on' },
      speculation: { type: 'string', default: 'off' },
      'database-url': { type: 'string' },
      ...LATENCY_FLAGS,
      write: { type: 'string' },
      section: { type: 'string', default: 'main' },
      json: { type: 'string' },
      'worker-cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return console.log(HELP);
  const runs = positiveInt('runs', values.runs);
  const warmup = Number(values.warmup);
  const scenarios = values.scenarios.split(',').map((name) => {
    if (!(name in SCENARIOS) || name === 'hitl' || name === 'rewrite') throw new Error(`--scenarios: ${name} is not one of fast, planner, complex`);
    return name as ScenarioName;
  });
  const codecs = values.codec.split(',').map((mode) => {
    if (mode !== 'off' && mode !== 'on') throw new Error(`--codec: ${mode} is not off or on`);
    return mode as 'off' | 'on';
  });
  const speculation = SpeculationLevel.parse(values.speculation);
  const latency = latencyFromFlags(values);
  const databaseUrl = values['database-url'];
  const started = new Date();
  const command = `npx tsx bench/cost-per-run.ts ${process.argv.slice(2).join(' ')}`.trimEnd();
  const loadBefore = loadAverage();
  console.log(`# bench/cost-per-run — ${started.toISOString()}\ncommand: ${command}\nload average at start: ${loadBefore}`);

  const work = mkdtempSync(path.join(os.tmpdir(), 'ragtime-bench-cost-'));
  const stores = { sqliteFile: path.join(work, 'stores.sqlite'), ...(databaseUrl ? { databaseUrl } : {}) };
  const address = temporalAddress();
  const serverPid = listeningPid(address);
  const databasePid = databaseUrl ? listeningPid(`x:${new URL(databaseUrl).port || '5432'}`) : null;
  const connection = await connectTemporal({ ...temporalSecurity(), address });
  const database = openSqlDatabase(stores);
  const cells: Cell[] = [];
  try {
    for (const codec of codecs) {
      const codecKeys = codec === 'on' ? `bench:${randomBytes(32).toString('base64')}` : undefined;
      const keyring = codecKeys ? parseCodecKeyList(codecKeys).keyring : null;
      const taskQueue = `bench-cost-${process.pid}-${codec}`;
      const profileDir = values['worker-cpu-prof'] ? path.join(values['worker-cpu-prof'], `codec-${codec}`) : undefined;
      const worker = await startBenchWorker('process', { address, taskQueue, tuning: {}, latency, stores, ...(codecKeys ? { codecKeys } : {}) }, { ...(profileDir ? { cpuProfileDir: profileDir } : {}) });
      const rag = await RagClient.connect({ address, taskQueue, connection: temporalSecurity(), codec: keyring });
      const store = createAnswerStreamStore(stores);
      let streamReads = 0;
      let queries = 0;
      const reader: AnswerStreamReader = {
        eventsOf: (...args) => ((streamReads += 1), store.eventsOf(...args)),
        ...(store.onAppend ? { onAppend: store.onAppend } : {}),
      };
      const counted = { getAnswerStream: (id: string) => ((queries += 1), rag.getAnswerStream(id)) } as unknown as RagClient;
      const oneRun = async (scenario: ScenarioName, id: string): Promise<string> => {
        const workflowId = newRagWorkflowId(`bench-cost-${id}`);
        const pending = rag.ask(SCENARIOS[scenario].question, { sessionId: `bench-cost-${id}`, workflowId, speculation });
        const outcome = await followAnswer(pending, counted, workflowId, reader, () => undefined);
        if (outcome.status !== 'completed' || outcome.route !== 'answer') throw new Error(`${scenario} run ${id} ended ${outcome.status}/${outcome.route}`);
        return workflowId;
      };
      try {
        for (const scenario of scenarios) {
          for (let i = 0; i < warmup; i += 1) await oneRun(scenario, `warm-${codec}-${scenario}-${i}`);
          const before = { worker: await worker.usage(), server: processCpuMs(serverPid), client: ownCpuMs(), database: processTreeCpuMs(databasePid), streamReads, queries };
          const ids: string[] = [];
          for (let i = 0; i < runs; i += 1) ids.push(await oneRun(scenario, `${codec}-${scenario}-${i}`));
          const after = { worker: await worker.usage(), server: processCpuMs(serverPid), client: ownCpuMs(), database: processTreeCpuMs(databasePid), streamReads, queries };
          const perRun = (a: number | null, b: number | null) => (a === null || b === null ? null : (b - a) / runs);
          const traffic = (usage: WorkerUsage) => usage.payloads ?? { encoded: { payloads: 0, bytes: 0 }, decoded: { payloads: 0, bytes: 0 } };
          const [t0, t1] = [traffic(before.worker), traffic(after.worker)];
          const counted = await Promise.all(ids.map((id) => countRun(connection, 'default', id)));
          const allIds = counted.flatMap((run) => run.workflowIds);
          cells.push({
            scenario,
            codec,
            runs,
            cpu: {
              worker: (after.worker.cpuMs - before.worker.cpuMs) / runs,
              server: perRun(before.server, after.server) ?? Number.NaN,
              client: (after.client - before.client) / runs,
              database: perRun(before.database, after.database),
            },
            counts: meanCounts(counted.map((run) => run.counts)),
            payloads: {
              encodedBytes: (t1.encoded.bytes - t0.encoded.bytes) / runs,
              encodedPayloads: (t1.encoded.payloads - t0.encoded.payloads) / runs,
              decodedBytes: (t1.decoded.bytes - t0.decoded.bytes) / runs,
              decodedPayloads: (t1.decoded.payloads - t0.decoded.payloads) / runs,
            },
            stores: {
              auditRows: ((await countRows(database.db, 'tool_invocation', allIds)) + (await countRows(database.db, 'diagnosis_event', allIds))) / runs,
              streamRows: (await countRows(database.db, 'answer_stream_event', allIds)) / runs,
              streamReads: (after.streamReads - before.streamReads) / runs,
              queries: (after.queries - before.queries) / runs,
            },
          });
          console.log(`${scenario}, codec ${codec}: ${runs} runs, load ${loadAverage()}`);
        }
      } finally {
        await worker.stop();
        await rag.close();
        await store.close();
      }
    }
  } finally {
    await database.db.destroy();
    await connection.close();
    rmSync(work, { recursive: true, force: true });
  }
  const markdown = render({ started, command, loadBefore, loadAfter: loadAverage(), cells, databaseUrl, runs, warmup, speculation });
  console.log(`\n${markdown}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: started.toISOString(), command, cells }, null, 2)}\n`);
  if (values.write) writeSection(path.resolve(REPO_ROOT, values.write), markersOf(values.section), markdown);
}

const markersOf = (section: string) => ({
  begin: `<!-- cost-per-run:${section}:begin (written by bench/cost-per-run.ts) -->`,
  end: `<!-- cost-per-run:${section}:end -->`,
});

const n1 = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(value < 10 && !Number.isInteger(value) ? 1 : 0));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function render(input: {
  started: Date; command: string; loadBefore: string; loadAfter: string; cells: Cell[]; databaseUrl: string | undefined;
  runs: number; warmup: number; speculation: string;
}): string {
  const name = (cell: Cell) => `${cell.scenario}, codec ${cell.codec}`;
  const cpuRows = input.cells.map((cell) => {
    const { worker, server, client, database } = cell.cpu;
    const total = worker + server + client + (database ?? 0);
    return [name(cell), ms(worker), ms(server), ms(client), database === null ? 'in the worker and client' : ms(database), `**${ms(total)}**`];
  });
  const countRows = input.cells.map((cell) => {
    const c = cell.counts;
    return [
      name(cell), n1(c.workflows), n1(c.workflowTasks), n1(c.activityTasks), n1(c.localActivities), n1(c.searchAttributeUpserts), n1(c.memoUpserts),
      n1(c.events), kb(c.historyBytes), kb(c.payloadBytes),
      `${kb(cell.payloads.encodedBytes)} (${n1(cell.payloads.encodedPayloads)})`, `${kb(cell.payloads.decodedBytes)} (${n1(cell.payloads.decodedPayloads)})`,
      n1(c.byActivity['recordAudit (local)'] ?? c.byActivity.recordAudit ?? 0), n1(cell.stores.auditRows), n1(cell.stores.streamRows), n1(cell.stores.streamReads), n1(cell.stores.queries),
    ];
  });
  const activities = [...new Set(input.cells.flatMap((cell) => Object.keys(cell.counts.byActivity)))].sort();
  const activityRows = input.cells.map((cell) => [name(cell), ...activities.map((activity) => n1(cell.counts.byActivity[activity] ?? 0))]);
  return [
    `Measured ${input.started.toISOString().slice(0, 16).replace('T', ' ')} UTC (${sourceInfo()}) with:`,
    '',
    '```',
    input.command,
    '```',
    '',
    `Machine: ${os.cpus().length} vCPUs, Node ${process.version}, shared. Load ${input.loadBefore} before → ${input.loadAfter} after. ` +
      `${input.runs} runs per cell one at a time after ${input.warmup} warm-up runs, speculation ${input.speculation}; stores on ${input.databaseUrl ? 'PostgreSQL (the listener is pushed to)' : 'one SQLite file (the listener is pushed to over its local socket)'}.`,
    '',
    '**CPU ms per run, by process** (the client process also runs the listener):',
    '',
    table(['scenario, payload codec', 'worker', 'Temporal server', 'client + listener', 'stores (PostgreSQL)', 'all'], cpuRows),
    '',
    '**Counts per run** (the run and its children; payload bytes through the worker\'s codec, payloads in brackets):',
    '',
    table(
      ['scenario, payload codec', 'workflows', 'workflow tasks', 'activity tasks', 'local activities', 'search-attribute upserts', 'memo upserts', 'history events', 'history bytes', 'payload bytes in history', 'worker encoded', 'worker decoded', 'audit writes', 'audit rows', 'stream rows written', 'listener store reads', 'answerStream queries'],
      countRows,
    ),
    '',
    '**Activity calls per run, by type:**',
    '',
    table(['scenario, payload codec', ...activities], activityRows),
  ].join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
