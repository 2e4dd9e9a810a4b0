/**
 * Chaos (issue 14): a ragtime worker subprocess killed with SIGKILL at a chosen point of a run, with the real
 * Temporal dev server, Milvus and embeddings server, and the scripted OpenAI-compatible model server of test/support
 * (the one fake: a paid remote API). After the kill another worker carries the run to its end; the test checks the
 * outcome is the fault-free one, what ran twice, and how long the recovery took (recorded in docs/OPERATIONS.md).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { RagClient } from '../../client/rag-client';
import type { RagOutcome } from '../../core/schemas/run-io';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server';
import { newMilvusClient } from '../support/milvus';
import { pollUntil, services } from '../support/services';
import { assertServicesReachable, killWorkerProcess, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(120_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_chaos_${RUN}`;
const TASK_QUEUE = `e2e-chaos-${RUN}`;
const API_KEY = `sk-chaos-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-chaos-'));
/** "比较" is a complex marker, so the fast path does not take it: the planner (a model call) decides. */
const QUESTION = '比较 Aurora X2 与 Nimbus C1 的保修政策';
const SIMPLE_PLAN = { json: { complexity: 'simple', reason: '单一问题', sub_questions: [] } };

let workerEnv: NodeJS.ProcessEnv;
let models: FakeOpenAiServer;
let connection: Connection;
let rag: RagClient;
const started: WorkerProcess[] = [];

beforeAll(async () => {
  await assertServicesReachable();
  models = await startFakeOpenAiServer({ apiKey: API_KEY });
  workerEnv = {
    ...serviceEnvironment({ collection: COLLECTION, dataDir }),
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: models.baseUrl,
    OPENAI_API_KEY: API_KEY,
    FAST_MODEL: 'chaos-fast',
    GRADE_MODEL: 'chaos-grade',
  };
  connection = await Connection.connect({ address: services.temporalAddress });
  // No codec keys in the workers' environment: payloads are plain, as this client reads them.
  rag = RagClient.fromClient(new Client({ connection }), TASK_QUEUE);
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map(({ child }) => stopWorkerProcess(child)));
  await connection?.close();
  await models?.close();
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: COLLECTION }).catch(() => undefined);
  await milvus.closeConnection();
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

async function startWorker(): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(workerEnv);
  started.push(worker);
  return worker;
}

/** Each activity attempt of a run: type, attempt number, and which worker ran it. */
async function attemptsOf(workflowId: string): Promise<Array<[string, number, string]>> {
  const events = (await rag.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const typeById = new Map<string, string>();
  const attempts: Array<[string, number, string]> = [];
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) typeById.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const start = event.activityTaskStartedEventAttributes;
    if (start) attempts.push([typeById.get(String(start.scheduledEventId)) ?? '?', start.attempt ?? 0, start.identity ?? '']);
  }
  return attempts.filter(([type]) => type !== 'recordAudit');
}

/** The outcome without what differs between any two runs (ids, timings). */
const comparable = (outcome: RagOutcome) => ({
  status: outcome.status,
  route: outcome.route,
  retrieval_status: outcome.retrieval_status,
  docs: outcome.docs,
  trace: outcome.rag_trace,
  degraded: outcome.degraded,
  answer: outcome.answer?.text ?? null,
});

describe('a worker killed with SIGKILL', () => {
  test('inside a model call (the planner): another worker retries it within seconds, the outcome is the fault-free one', async () => {
    const first = await startWorker();
    // The fault-free run, for comparison: the planner answers at once.
    models.setDefault('complexity_result', SIMPLE_PLAN);
    const baseline = await rag.ask(QUESTION, { sessionId: `chaos-base-${RUN}` });

    // The planner's reply never comes for the first worker: it is killed while it waits.
    models.enqueue('complexity_result', { delayMs: 600_000, then: SIMPLE_PLAN });
    const planned = models.requests.filter((request) => request.schemaName === 'complexity_result').length;
    const workflowId = `rag-chaos-model-${RUN}`;
    const asked = rag.ask(QUESTION, { sessionId: `chaos-${RUN}`, workflowId });
    await pollUntil('the planner call to reach the model server', async () =>
      models.requests.filter((request) => request.schemaName === 'complexity_result').length > planned ? true : undefined,
    { timeoutMs: 30_000, intervalMs: 50 });
    const second = await startWorker();
    const killedAt = Date.now();
    await killWorkerProcess(first.child);
    const outcome = await asked;
    const recoveryMs = Date.now() - killedAt;
    // The recovery time, for docs/OPERATIONS.md (jest prints console output of passing tests too).
    console.log(`chaos: worker SIGKILL inside a model call → run completed ${recoveryMs} ms later`);

    expect(comparable(outcome)).toEqual(comparable(baseline));
    // The planner ran twice (the first attempt died with its worker); nothing else ran twice.
    const attempts = await attemptsOf(workflowId);
    const planner = attempts.filter(([type]) => type === 'planComplexity');
    expect(planner.map(([, attempt]) => attempt)).toEqual([2]); // attempt 1 never completed: no started event is written for it
    expect(attempts.filter(([type]) => type !== 'planComplexity').every(([, attempt]) => attempt === 1)).toBe(true);
    expect(new Set(attempts.map(([, , identity]) => identity)).size).toBe(1); // all on the second worker
    expect(second.child.exitCode).toBeNull();
    // The heartbeat timeout (10 s) plus the retry's first interval (1 s) and the worker's pickup; it was the
    // start-to-close timeout (60 s) before model calls heartbeated.
    expect(recoveryMs).toBeLessThan(30_000);
  });
});
