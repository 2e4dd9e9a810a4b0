/**
 * ragtime on the Temporal cluster of scripts/cluster.sh (issue 27 §2): the same commands as on the dev server, with
 * TEMPORAL_ADDRESS the only difference — a worker, `ingest`, `ask` (answer, a complex run with child workflows, a
 * clarification answered with `answer`), `runs` (visibility on PostgreSQL, with ragtime's search attributes),
 * `eval samples/golden/products`, and a history exported from the cluster replayed against this checkout's workflows.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { DefaultLogger, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { RagOutcome } from '../../core/schemas/run-io';
import { runRagtime } from '../support/cli-run';
import { newMilvusClient } from '../support/milvus';
import { assertReachable, services } from '../support/services';
import { serviceEnvironment, startWorkerProcess, stopWorkerProcess, tail, type WorkerProcess } from '../support/worker-process';
import { CLUSTER_ADDRESS, CLUSTER_NAMESPACE } from './cluster';

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `cluster_runs_${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-cluster-runs-'));
const env: NodeJS.ProcessEnv = {
  ...serviceEnvironment({ collection: COLLECTION, dataDir }),
  TEMPORAL_ADDRESS: CLUSTER_ADDRESS,
  TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
  TEMPORAL_TASK_QUEUE: `cluster-runs-${RUN}`,
  MODEL_PROVIDER: 'offline',
};
let worker: WorkerProcess;

async function ragtimeJson<T>(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; json: T }> {
  const run = await runRagtime([...args, '--json'], env, timeoutMs);
  try {
    return { code: run.code, json: JSON.parse(run.stdout) as T };
  } catch {
    throw new Error(`ragtime ${args.join(' ')} printed no JSON (exit ${run.code}):\n${tail(run.stdout)}\n${tail(run.stderr)}\nthe worker (exit ${worker.child.exitCode}):\n${tail(worker.output())}`);
  }
}

beforeAll(async () => {
  await assertReachable('the Temporal cluster (scripts/cluster.sh up)', CLUSTER_ADDRESS);
  await assertReachable('Milvus', services.milvusAddress);
  await assertReachable('embeddings server', services.embeddingBaseUrl);
  worker = await startWorkerProcess(env);
}, 120_000);

afterAll(async () => {
  if (worker) await stopWorkerProcess(worker.child);
  const milvus = newMilvusClient();
  for (const name of [COLLECTION, `eval_products_${RUN}`]) await milvus.dropCollection({ collection_name: name }).catch(() => undefined);
  await milvus.closeConnection();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('ragtime on the Temporal cluster, unchanged but for TEMPORAL_ADDRESS', () => {
  test('the worker says where it is connected', () => {
    expect(worker.output()).toMatch(/^ragtime worker: task queue/m);
  });

  test('ingest samples/knowledge: an ingest workflow on the cluster', async () => {
    const { code, json } = await ragtimeJson<{ totals: Record<string, number> }>(['ingest', 'samples/knowledge'], 180_000);
    expect([code, json.totals]).toEqual([0, expect.objectContaining({ files: 4, ingested: 4, failed: 0 })]);
  }, 200_000);

  test('ask: an answer', async () => {
    const { code, json } = await ragtimeJson<RagOutcome>(['ask', 'Aurora X2 路由器的保修期是多久？', '--session', `cluster-answer-${RUN}`]);
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer', degraded: null });
    expect(json.docs[0]?.filename).toBe('Aurora X2 路由器.md');
  });

  test('ask: a comparison, planned into two sub-questions run as child workflows', async () => {
    const { code, json } = await ragtimeJson<RagOutcome>(['ask', '比较 Aurora X2 与 Nimbus C1 的保修政策', '--session', `cluster-complex-${RUN}`]);
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: 'completed', route: 'answer' });
    const trace = await runRagtime(['trace', json.workflowId], env, 60_000);
    expect(trace.code).toBe(0);
    expect(trace.stdout).toContain('path complex: 2 sub-question(s)');
    expect(trace.stdout).toContain('sub-question 2: Nimbus C1的保修政策');
  });

  test('ask → awaiting an answer (HITL), then `answer`: completed', async () => {
    const asked = await ragtimeJson<RagOutcome>(['ask', '这款产品的价格是多少？', '--session', `cluster-hitl-${RUN}`]);
    expect(asked.code).toBe(3);
    expect(asked.json).toMatchObject({ status: 'awaiting_input', route: 'clarify' });
    const answered = await ragtimeJson<RagOutcome>(['answer', asked.json.workflowId, 'Aurora X2']);
    expect(answered.code).toBe(0);
    expect(answered.json).toMatchObject({ workflowId: asked.json.workflowId, status: 'completed', route: 'answer', hitl: null });
  });

  test('runs: visibility on PostgreSQL filters by ragtime\'s search attributes', async () => {
    const { code, json } = await ragtimeJson<Array<{ sessionId?: string; status?: string }>>(['runs', '--session', `cluster-hitl-${RUN}`]);
    expect(code).toBe(0);
    expect(JSON.stringify(json)).toContain(`cluster-hitl-${RUN}`);
  });

  test('eval samples/golden/products: the golden set through the cluster', async () => {
    const run = await runRagtime(['eval', 'samples/golden/products', '--kb', `eval_products_${RUN}`, '--out', path.join(dataDir, 'eval')], env, 600_000);
    console.log(`cluster: ragtime eval samples/golden/products → exit ${run.code}\n${tail(run.stdout, 8)}`);
    expect(run.code).toBe(0);
  }, 620_000);

  test('a history exported from the cluster replays against this checkout\'s workflows', async () => {
    const connection = await connectTemporal({ address: CLUSTER_ADDRESS });
    try {
      const client = new Client({ connection, namespace: CLUSTER_NAMESPACE });
      const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query: `RagSessionId = "cluster-hitl-${RUN}" OR RagSessionId = "cluster-complex-${RUN}"` })) ids.push(execution.workflowId);
      expect(ids.length).toBeGreaterThanOrEqual(2);
      for (const workflowId of ids) {
        const history = await client.workflow.getHandle(workflowId).fetchHistory();
        await Worker.runReplayHistory({ workflowBundle }, history, workflowId);
      }
    } finally {
      await connection.close();
    }
  }, 120_000);
});

describe('erasure on the cluster (issue 35 §2)', () => {
  test('ragtime sessions rm: the waiting run cancelled, every run (sub-questions with their parent) gone from the cluster\'s histories and visibility, the rows gone; another session untouched; a second rm erases nothing', async () => {
    const session = `cluster-erase-${RUN}`;
    // First a question that waits for a person (no earlier turn to read "这款产品" by), then an answer and a comparison.
    const waiting = await ragtimeJson<RagOutcome>(['ask', '这款产品的价格是多少？', '--session', session, '--no-interactive']);
    const answered = await ragtimeJson<RagOutcome>(['ask', 'Aurora X2 路由器的保修期是多久？', '--session', session]);
    const complex = await ragtimeJson<RagOutcome>(['ask', '比较 Aurora X2 与 Nimbus C1 的保修政策', '--session', session]);
    const kept = await ragtimeJson<RagOutcome>(['ask', '这款产品的价格是多少？', '--session', `${session}-kept`, '--no-interactive']);
    expect([waiting.json.status, answered.json.status, complex.json.status, kept.json.status]).toEqual(['awaiting_input', 'completed', 'completed', 'awaiting_input']);
    const connection = await connectTemporal({ address: CLUSTER_ADDRESS });
    try {
      const client = new Client({ connection, namespace: CLUSTER_NAMESPACE });
      const erasedIds = [answered.json.workflowId, complex.json.workflowId, `${complex.json.workflowId}/sub-1`, `${complex.json.workflowId}/sub-2`];
      for (const workflowId of erasedIds) expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');

      const removed = await ragtimeJson<{ cancelledRuns: string[]; temporalRuns: number; temporalPending: string[]; sessionTurns: number; auditInvocations: number; auditEvents: number }>(['sessions', 'rm', session], 150_000);
      expect(removed.code).toBe(0);
      expect(removed.json).toMatchObject({ cancelledRuns: [waiting.json.workflowId], temporalPending: [], sessionTurns: 2 });
      expect(removed.json.temporalRuns).toBeGreaterThanOrEqual(3);
      expect(removed.json.auditInvocations).toBeGreaterThan(0);
      for (const workflowId of [...erasedIds, waiting.json.workflowId]) {
        const found = await client.workflow.getHandle(workflowId).describe().then(() => 'found', (error: Error) => error.name);
        expect([workflowId, found]).toEqual([workflowId, 'WorkflowNotFoundError']);
      }
      // Visibility (SQL on PostgreSQL) forgets them too, asynchronously.
      let listed: string[] = ['…'];
      for (let i = 0; i < 60 && listed.length > 0; i += 1) {
        listed = [];
        for await (const run of client.workflow.list({ query: `RagSessionId = "${session}"` })) listed.push(run.workflowId);
        if (listed.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(listed).toEqual([]);
      // The session beside it keeps its waiting run.
      expect((await client.workflow.getHandle(kept.json.workflowId).describe()).status.name).toBe('RUNNING');
      const again = await ragtimeJson<{ temporalRuns: number; sessionTurns: number; auditInvocations: number }>(['sessions', 'rm', session]);
      expect(again.json).toMatchObject({ temporalRuns: 0, sessionTurns: 0, auditInvocations: 0 });
    } finally {
      await connection.close();
    }
  }, 300_000);
});
