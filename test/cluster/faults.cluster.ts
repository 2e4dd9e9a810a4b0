/**
 * Faults on the Temporal cluster (issue 27 §3): during a burst of runs — answers, comparisons (child workflows) and
 * parked clarifications being answered — the history service is killed with SIGKILL and brought back; then the
 * matching service; then the cluster's PostgreSQL is stopped for 20 s. Each run must complete once, with the outcome
 * and trace of the same run undisturbed, and the audit must hold no row twice. The stall each fault caused (the
 * burst's time over the undisturbed burst's) is printed, for docs/DEPLOYMENT.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { RagClient } from '../../client/rag-client';
import type { RagOutcome } from '../../core/schemas/run-io';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { newMilvusClient } from '../support/milvus';
import { comparableOutcome as comparable } from '../support/outcomes';
import { assertReachable, services } from '../support/services';
import { ingestSampleKnowledge, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { CLUSTER_ADDRESS, CLUSTER_NAMESPACE, clusterScript, clusterUp, killService, type ClusterService } from './cluster';

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `cluster_faults_${RUN}`;
const QUEUE = `cluster-faults-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-cluster-faults-'));
const env: NodeJS.ProcessEnv = {
  ...serviceEnvironment({ collection: COLLECTION, dataDir }),
  TEMPORAL_ADDRESS: CLUSTER_ADDRESS,
  TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
  TEMPORAL_TASK_QUEUE: QUEUE,
  MODEL_PROVIDER: 'offline',
};
/** The three kinds of run in a burst (docs/offline-policy.md says why each question takes its route). */
const QUESTIONS = {
  answer: 'Aurora X2 路由器的保修期是多久？', // the fast path: retrieve, grade, answer
  complex: '比较 Aurora X2 与 Nimbus C1 的保修政策', // the planner's comparison: two sub-question child workflows
  parked: '怎么重置管理密码？', // scope_select: parked awaiting a choice, answered with "1" during the burst
} as const;
type Kind = keyof typeof QUESTIONS;
/** Runs of each kind in a burst (parked ones are asked, and park, before it starts). */
const BURST: Record<Kind, number> = { answer: 3, complex: 2, parked: 2 };
/** How long a killed service stays down before `scripts/cluster.sh up` brings it back. */
const DOWN_MS = 5_000;
const POSTGRES_DOWN_MS = 20_000;

let worker: WorkerProcess;
let connection: Connection;
let rag: RagClient;
const baseline = new Map<Kind, ReturnType<typeof comparable>>();
let undisturbedMs = 0;

type Burst = { sessions: Array<{ kind: Kind; session: string }>; done: Promise<Array<{ kind: Kind; session: string; outcome: RagOutcome }>>; startedAt: number };

/** Parks the clarifications, then starts every run of a burst at once (the answers of the parked ones among them). */
async function startBurst(tag: string): Promise<Burst> {
  const parked = await Promise.all(
    Array.from({ length: BURST.parked }, async (_, i) => {
      const session = `${tag}-parked-${i}-${RUN}`;
      const asked = await rag.ask(QUESTIONS.parked, { sessionId: session });
      expect(asked).toMatchObject({ status: 'awaiting_input', route: 'scope_select' });
      return { session, workflowId: asked.workflowId };
    }),
  );
  const startedAt = Date.now();
  const runs: Array<{ kind: Kind; session: string; outcome: Promise<RagOutcome> }> = [];
  for (const kind of ['answer', 'complex'] as const) {
    for (let i = 0; i < BURST[kind]; i += 1) {
      const session = `${tag}-${kind}-${i}-${RUN}`;
      runs.push({ kind, session, outcome: rag.ask(QUESTIONS[kind], { sessionId: session }) });
    }
  }
  for (const { session, workflowId } of parked) runs.push({ kind: 'parked', session, outcome: rag.answer(workflowId, '1') });
  const done = Promise.all(runs.map(async ({ kind, session, outcome }) => ({ kind, session, outcome: await outcome })));
  return { sessions: runs.map(({ kind, session }) => ({ kind, session })), done, startedAt };
}

/** Every run has the undisturbed outcome and trace of its kind, and the audit holds each of its rows once. */
async function expectUndisturbed(results: Awaited<Burst['done']>): Promise<void> {
  for (const { kind, outcome } of results) expect({ kind, outcome: comparable(outcome) }).toEqual({ kind, outcome: baseline.get(kind) });
  const audit = createAuditStore({ sqliteFile: path.join(dataDir, 'audit.sqlite'), includeContent: false });
  try {
    for (const { session } of results) {
      const trace = await audit.sessionTrace(session);
      const steps = trace.toolInvocations.map((row) => `${row.runId}/${row.step}`);
      const keys = trace.events.map((event) => `${event.runId}/${event.key}`);
      expect({ session, duplicateSteps: steps.length - new Set(steps).size, duplicateEvents: keys.length - new Set(keys).size }).toEqual({ session, duplicateSteps: 0, duplicateEvents: 0 });
      // One completion per run of the session (a parked one: its ask's run, completed once after the answer).
      const runIds = new Set(trace.events.map((event) => event.runId));
      expect(keys.filter((key) => key.endsWith('/completed'))).toHaveLength(runIds.size);
    }
  } finally {
    await audit.close();
  }
}

beforeAll(async () => {
  await assertReachable('the Temporal cluster (scripts/cluster.sh up)', CLUSTER_ADDRESS);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
  worker = await startWorkerProcess(env);
  const ingest = await ingestSampleKnowledge(env);
  expect([ingest.status, ingest.totals]).toEqual([0, expect.objectContaining({ files: 4, ingested: 4, failed: 0 })]);
  connection = await connectTemporal({ address: CLUSTER_ADDRESS });
  rag = RagClient.fromClient(new Client({ connection, namespace: CLUSTER_NAMESPACE }), QUEUE);
  // The undisturbed burst: the outcome of each kind, and how long a burst takes with nothing broken.
  const burst = await startBurst('calm');
  const results = await burst.done;
  undisturbedMs = Date.now() - burst.startedAt;
  for (const { kind, outcome } of results) if (!baseline.has(kind)) baseline.set(kind, comparable(outcome));
  expect(baseline.get('answer')).toMatchObject({ status: 'completed', route: 'answer' });
  expect(baseline.get('complex')).toMatchObject({ status: 'completed' });
  expect(baseline.get('parked')).toMatchObject({ status: 'completed' });
  await expectUndisturbed(results);
  console.log(`cluster faults: undisturbed burst of ${results.length} runs took ${undisturbedMs} ms`);
}, 300_000);

afterAll(async () => {
  await clusterUp().catch(() => undefined); // whatever a failed test left down
  if (worker) await stopWorkerProcess(worker.child);
  await connection?.close();
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: COLLECTION }).catch(() => undefined);
  await milvus.closeConnection();
  rmSync(dataDir, { recursive: true, force: true });
}, 300_000);

async function burstThrough(fault: string, breakIt: () => Promise<void>, downMs: number, mendIt: () => Promise<void>): Promise<void> {
  const burst = await startBurst(fault.replace(/\W+/g, '-'));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the burst's first tasks are in flight
  const brokenAt = Date.now();
  await breakIt();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  const mendAt = Date.now();
  await mendIt();
  const backMs = Date.now() - mendAt;
  const results = await burst.done;
  const tookMs = Date.now() - burst.startedAt;
  console.log(
    `cluster faults: ${fault}: down ${mendAt - brokenAt} ms, back in ${backMs} ms; the burst of ${results.length} runs took ${tookMs} ms ` +
      `(undisturbed ${undisturbedMs} ms): stall ${tookMs - undisturbedMs} ms; last run done ${Date.now() - brokenAt} ms after the fault`,
  );
  await expectUndisturbed(results);
}

describe('faults on the cluster during a burst of runs', () => {
  test.each<ClusterService>(['history', 'matching'])('%s killed with SIGKILL and restarted: every run completes once, as undisturbed', async (service) => {
    await burstThrough(`${service} SIGKILL`, () => killService(service), DOWN_MS, async () => void (await clusterUp()));
  }, 300_000);

  test('PostgreSQL stopped for 20 s: every run completes once, as undisturbed', async () => {
    const pg = async (action: 'up' | 'down') => {
      const { code, output } = await clusterScript(action === 'down' ? ['down', 'postgres'] : ['up']);
      if (code !== 0) throw new Error(`scripts/cluster.sh ${action} failed:\n${output}`);
    };
    await burstThrough('PostgreSQL stopped', () => pg('down'), POSTGRES_DOWN_MS, () => pg('up'));
  }, 300_000);
});
