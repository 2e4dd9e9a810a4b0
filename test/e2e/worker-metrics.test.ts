/**
 * Worker metrics (issue 18 §3): a `ragtime worker` with RAGTIME_METRICS_ADDRESS, on the real services, scraped
 * over HTTP as Prometheus would. One endpoint carries the Temporal SDK's metrics (temporal_*: task latencies,
 * slots, sticky cache) and ragtime's (ragtime_*: runs by route and status, waiting runs, model calls by model,
 * retrieval latency per stage, ingestion) after an ingest, an answered question and one left waiting for a person.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { RagClient } from '../../client/rag-client';
import { freePort } from '../support/local-process';
import { dropTestCollection } from '../support/milvus';
import { services } from '../support/services';
import { assertServicesReachable, ingestSampleKnowledge, serviceEnvironment, startWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(180_000);

const RUN = randomUUID().slice(0, 8);
const COLLECTION = `e2e_metrics_${RUN}`;
const TASK_QUEUE = `e2e-metrics-${RUN}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-e2e-metrics-'));

let worker: WorkerProcess;
let metricsUrl: string;
let connection: Connection;
let rag: RagClient;

const scrape = async (url = metricsUrl) => {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

/** The value of the first sample line of `name` whose labels include every pair of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

beforeAll(async () => {
  await assertServicesReachable();
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const env = { ...serviceEnvironment({ collection: COLLECTION, dataDir }), TEMPORAL_TASK_QUEUE: TASK_QUEUE, MODEL_PROVIDER: 'offline', RAGTIME_METRICS_ADDRESS: `127.0.0.1:${port}` };
  worker = await startWorkerProcess(env);
  expect((await ingestSampleKnowledge(env)).status).toBe(0);
  connection = await connectTemporal({ address: services.temporalAddress });
  rag = RagClient.fromClient(new Client({ connection }), TASK_QUEUE);
}, 180_000);

afterAll(async () => {
  if (worker) await stopWorkerProcess(worker.child);
  await connection?.close();
  await dropTestCollection(COLLECTION);
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

test('the start-up line names the endpoint; one scrape carries temporal_* and ragtime_* after real work', async () => {
  expect(worker.output()).toContain(`metrics:     ${metricsUrl} (ragtime_* and temporal_*)`);
  const answered = await rag.ask('Aurora X2 路由器的保修期是多久？', { sessionId: `person-${RUN}` });
  expect(answered).toMatchObject({ status: 'completed', route: 'answer' });
  const parked = await rag.ask('怎么重置管理密码？', { sessionId: `person-${RUN}` });
  expect(parked).toMatchObject({ status: 'awaiting_input', route: 'scope_select' });

  const { status, type, text } = await scrape();
  expect(status).toBe(200);
  expect(type).toContain('text/plain');
  // ragtime's own.
  expect(sample(text, 'ragtime_runs_total', { route: 'answer', status: 'completed' })).toBe(1);
  expect(sample(text, 'ragtime_hitl_waiting', { task_queue: TASK_QUEUE })).toBe(1);
  expect(sample(text, 'ragtime_model_calls_total', { activity: 'gradeEvidence', model: 'offline', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
  expect(sample(text, 'ragtime_retrieval_duration_seconds_count', { stage: 'dense' })).toBeGreaterThanOrEqual(2);
  expect(sample(text, 'ragtime_retrieval_duration_seconds_count', { stage: 'bm25' })).toBeGreaterThanOrEqual(2);
  expect(sample(text, 'ragtime_ingested_files_total', { outcome: 'ingested' })).toBe(4);
  expect(sample(text, 'ragtime_ingested_leaves_total')).toBeGreaterThan(0);
  expect(sample(text, 'ragtime_activity_duration_seconds_count', { activity: 'retrieve', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
  // The SDK's, through the same endpoint.
  expect(text).toMatch(/^temporal_activity_execution_latency_count\{/m);
  expect(text).toMatch(/^temporal_workflow_task_execution_latency_count\{/m);
  expect(text).toMatch(/^temporal_worker_task_slots_available\{/m);
  expect(text).toMatch(/^temporal_sticky_cache_size\{/m);
  // Nothing of a question, a session or a run id in any label.
  expect(text).not.toContain('Aurora');
  expect(text).not.toContain(`person-${RUN}`);
  expect(text).not.toContain(parked.workflowId);

  // Answered, the waiting run leaves the gauge and joins the runs counter.
  await rag.answer(parked.workflowId, '1');
  const after = (await scrape()).text;
  expect(sample(after, 'ragtime_hitl_waiting', { task_queue: TASK_QUEUE })).toBe(0);
  expect(sample(after, 'ragtime_runs_total', { route: 'answer', status: 'completed' })).toBe(2);
});

test('only /metrics is served', async () => {
  expect((await scrape(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
});
