/**
 * Many workers (issue 18 §2): two `ragtime worker` processes on one task queue, sharing PostgreSQL (parents and the
 * audit) as a multi-machine deployment does, with the real Temporal dev server, Milvus and embeddings server. A
 * burst of runs — answers, complex runs with child workflows, runs parked awaiting a person — is shared by both
 * (the histories name each activity's worker); one worker is killed with SIGKILL mid-burst. Every run completes
 * exactly once with its fault-free outcome, and the audit holds no duplicate rows.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { RagClient } from '../../client/rag-client';
import { comparableOutcome as comparable } from '../support/outcomes';
import { createAuditStore } from '../../activities/adapters/sql-audit-store';
import { dropTestCollection } from '../support/milvus';
import { assertReachable, services } from '../support/services';
import { assertServicesReachable, ingestSampleKnowledge, killWorkerProcess, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(240_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_many_${RUN}`;
const TASK_QUEUE = `e2e-many-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-many-'));
/** One question per shape: the fast path, a comparison (3 workflows), a scope_select that parks for a person. */
const SHAPES = [
  { kind: 'answer', question: 'Aurora X2 路由器的保修期是多久？' },
  { kind: 'complex', question: '比较 Aurora X2 与 Nimbus C1 的保修期' },
  { kind: 'parked', question: '怎么重置管理密码？' },
] as const;
const BURST = 4; // runs of each shape: 12 runs, 4 of them complex (8 child workflows), 4 parked

let env: NodeJS.ProcessEnv;
let connection: Connection;
let rag: RagClient;
const workers: WorkerProcess[] = [];


/** Which worker identities ran the activities of a run and its children. */
async function identitiesOf(workflowId: string): Promise<string[]> {
  const ids = [workflowId, ...(await childrenOf(workflowId))];
  const identities: string[] = [];
  for (const id of ids) {
    const events = (await rag.temporal.workflow.getHandle(id).fetchHistory()).events ?? [];
    for (const event of events) {
      const identity = event.activityTaskStartedEventAttributes?.identity ?? event.workflowTaskStartedEventAttributes?.identity;
      if (identity) identities.push(identity);
    }
  }
  return identities;
}

async function childrenOf(workflowId: string): Promise<string[]> {
  const events = (await rag.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.flatMap((event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
}

beforeAll(async () => {
  await assertServicesReachable();
  await assertReachable('PostgreSQL', `${new URL(services.testDatabaseUrl).hostname}:${new URL(services.testDatabaseUrl).port || '5432'}`);
  env = { ...serviceEnvironment({ collection: COLLECTION, dataDir }), TEMPORAL_TASK_QUEUE: TASK_QUEUE, MODEL_PROVIDER: 'offline', DATABASE_URL: services.testDatabaseUrl };
  connection = await connectTemporal({ address: services.temporalAddress });
  rag = RagClient.fromClient(new Client({ connection }), TASK_QUEUE);
  const ingesting = await startWorkerProcess(env);
  workers.push(ingesting);
  const ingest = await ingestSampleKnowledge(env);
  expect([ingest.status, ingest.totals]).toEqual([0, expect.objectContaining({ files: 4, ingested: 4, failed: 0 })]);
  await stopWorkerProcess(ingesting.child);
}, 240_000);

afterAll(async () => {
  await Promise.all(workers.map(({ child }) => stopWorkerProcess(child)));
  await connection?.close();
  await dropTestCollection(COLLECTION);
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

test('a burst shared by two workers, one killed mid-burst: every run completes once, as without the kill; no duplicate audit rows', async () => {
  // The fault-free outcome of each shape, on one worker.
  const solo = await startWorkerProcess(env);
  const baseline = new Map<string, ReturnType<typeof comparable>>();
  for (const shape of SHAPES) {
    let outcome = await rag.ask(shape.question, { sessionId: `many-base-${RUN}` });
    if (outcome.status === 'awaiting_input') outcome = await rag.answer(outcome.workflowId, '1');
    baseline.set(shape.kind, comparable(outcome));
  }
  await stopWorkerProcess(solo.child);
  expect(baseline.get('complex')?.trace).toMatchObject({ complexity: 'complex' });

  const [first, second] = [await startWorkerProcess(env), await startWorkerProcess(env)];
  workers.push(first, second);
  const identity = (worker: WorkerProcess) => /identity: +(\S+);/.exec(worker.output())?.[1] ?? '?';
  const session = `many-${RUN}`;
  const asks = Array.from({ length: BURST }, () => SHAPES).flat().map(async (shape) => ({ shape, asked: await rag.ask(shape.question, { sessionId: session }) }));
  // Mid-burst: once a quarter of the runs have a first outcome, the first worker dies without a goodbye.
  let settled = 0;
  const killed = new Promise<void>((resolve) => {
    for (const ask of asks) {
      void ask.then(() => {
        if (++settled === Math.ceil(asks.length / 4)) void killWorkerProcess(first.child).then(resolve);
      });
    }
  });
  const asked = await Promise.all(asks);
  await killed;
  expect(first.child.signalCode).toBe('SIGKILL');
  const outcomes = await Promise.all(
    asked.map(async ({ shape, asked: outcome }) => ({ shape, outcome: outcome.status === 'awaiting_input' ? await rag.answer(outcome.workflowId, '1') : outcome })),
  );

  for (const { shape, outcome } of outcomes) expect({ kind: shape.kind, ...comparable(outcome) }).toEqual({ kind: shape.kind, ...baseline.get(shape.kind) });
  const workflowIds = outcomes.map(({ outcome }) => outcome.workflowId);
  expect(new Set(workflowIds).size).toBe(SHAPES.length * BURST);
  // Shared: both workers' identities appear in the burst's histories.
  const ran = new Set((await Promise.all(workflowIds.map(identitiesOf))).flat());
  expect(ran).toEqual(new Set([identity(first), identity(second)]));
  // Exactly once: each run closed once (a workflow id completes once), and its audit has one row per step.
  for (const workflowId of workflowIds) expect((await rag.temporal.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
  const audit = createAuditStore({ databaseUrl: services.testDatabaseUrl, sqliteFile: ':memory:', includeContent: false });
  try {
    const trace = await audit.sessionTrace(session);
    const steps = trace.toolInvocations.map((row) => `${row.runId}/${row.step}`);
    const keys = trace.events.map((event) => `${event.runId}/${event.key}`);
    expect(new Set(steps).size).toBe(steps.length);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((key) => key.endsWith('/completed'))).toHaveLength(SHAPES.length * BURST);
  } finally {
    await audit.close();
  }
  console.log(`many workers: ${workflowIds.length} runs over ${identity(first)} (SIGKILLed after ${Math.ceil(asks.length / 4)} first outcomes) and ${identity(second)}`);
});
