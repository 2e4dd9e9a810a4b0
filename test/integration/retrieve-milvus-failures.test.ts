/**
 * retrieve_documents when things break, and re-ingestion, on the real services (see retrieve-milvus.test.ts for the
 * set-up), for each parent store: embeddings unreachable (U11), a hybrid attempt that fails while dense recall works
 * (U12), Milvus stopped (U12's second half, on a private Milvus Lite stopped and started again on its port and data
 * dir), a changed file ingested again, and bad files over a good version.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createMilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { collectionSchema, DENSE_INDEX, FIELD } from '../../activities/adapters/milvus/schema';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import { RagError } from '../../core/errors';
import { nonNullRetrievalMeta } from '../../core/trace/fragment';
import { LIGHTHOUSE, shortDoc } from '../support/corpus';
import { CountingEmbeddingProxy } from '../support/embedding-proxy';
import { IndexType, MetricType, newMilvusClient } from '../support/milvus';
import { PARENT_BACKENDS, RealKnowledgeBase, RUN_TAG } from '../support/real-knowledge-base';
import { closedPort } from '../support/rerank-server';
import { startPrivateMilvus, type PrivateMilvus } from '../support/private-services';
import { pollUntil, services } from '../support/services';

const PANDA = shortDoc('zh-panda');
const BREAD = shortDoc('en-sourdough');
const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/docs', name));
const ZERO_COUNTS = { recall_count: 0, post_merge_candidate_count: 0, candidate_count: 0, post_rerank_count: 0, post_threshold_count: 0 };

let proxy: CountingEmbeddingProxy;
const kbs: RealKnowledgeBase[] = [];
beforeAll(async () => {
  proxy = await CountingEmbeddingProxy.start(services.embeddingBaseUrl);
});
beforeEach(() => proxy.reset());
afterAll(async () => {
  await proxy.close();
  for (const kb of kbs) await kb.close();
});

describe.each(PARENT_BACKENDS)('failures and re-ingestion with the $name parent store', (backend) => {
  let kb: RealKnowledgeBase;
  const id = (file: string, level: number, n = 0) => `${kb.filename(file)}::p0::l${level}::${n}`;

  beforeAll(async () => {
    kb = await RealKnowledgeBase.open(backend, 'failures');
    kbs.push(kb);
    for (const doc of [PANDA, BREAD]) await kb.ingestFile(doc.file, doc.text);
  }, 120_000);

  test('U11 embeddings unreachable → no docs, failed, embedding_failed, every count 0, Milvus never asked', async () => {
    const port = await closedPort();
    const result = await kb.build({ EMBEDDING_BASE_URL: `http://127.0.0.1:${port}/v1` }).retriever.retrieve(PANDA.query);
    expect(result.docs).toEqual([]);
    expect(result.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'embedding_failed', auto_merge_applied: false, auto_merge_replaced_chunks: 0, auto_merge_steps: 0, retrieval_empty: true, ...ZERO_COUNTS });
    expect(Object.keys(nonNullRetrievalMeta(result.meta))).toHaveLength(24);
    expect(result.diagnostics?.embedding_error).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(result.diagnostics?.legs).toEqual({ dense: null, bm25: null, dense_fallback: null });
    expect(result.diagnostics?.attempts).toEqual([]);
  });

  test('U12 the BM25 leg refuses an empty query, the dense leg takes its embedding → dense_fallback, one embedding', async () => {
    const result = await kb.build({ EMBEDDING_BASE_URL: proxy.baseUrl }).retriever.retrieve('');
    expect(proxy.embeddingRequests).toEqual([expect.objectContaining({ input: [''] })]);
    expect(result.meta).toMatchObject({ retrieval_mode: 'dense_fallback', recall_count: 2, post_threshold_count: 2, rerank_error: null });
    expect(result.docs.map((d) => d.rrf_rank)).toEqual([1, 2]);
    for (const doc of result.docs) expect(doc.score).toBeGreaterThan(0); // inner products, not RRF scores
    expect(result.docs[0]!.score!).toBeGreaterThan(2 / 61);
    const attempts = result.diagnostics?.attempts ?? [];
    expect(attempts.map((a) => [a.name, a.candidate_count, a.usable])).toEqual([['hybrid', 0, false], ['dense_fallback', 2, true]]);
    expect(attempts[0]?.error).toMatch(/^Milvus BM25 search on collection ".*" at .* failed: Search data is required$/);
    expect(result.diagnostics?.legs.bm25).toBeNull();
  });

  test('re-ingesting a changed file: no stale leaves in Milvus, no orphan parents; retrieval sees only the new text', async () => {
    const filename = kb.filename(LIGHTHOUSE.file);
    const v1 = await kb.ingestFile(LIGHTHOUSE.file, LIGHTHOUSE.v1);
    expect([v1.l1, v1.l2, v1.l3]).toEqual([1, 2, 3]);
    const before = await kb.adapters.retriever.retrieve(LIGHTHOUSE.v1Query);
    expect(before.docs[0]?.filename).toBe(filename);
    expect(before.docs.some((d) => d.text?.includes(LIGHTHOUSE.v1Phrase))).toBe(true);

    const v2 = await kb.ingestFile(LIGHTHOUSE.file, LIGHTHOUSE.v2);
    await kb.ingestFile(LIGHTHOUSE.file, LIGHTHOUSE.v2); // the same content again: still no duplicates
    expect([v2.l1, v2.l2, v2.l3]).toEqual([1, 1, 1]);
    const onlyLeaf = { chunk_id: id(LIGHTHOUSE.file, 3), text: LIGHTHOUSE.v2, parent_chunk_id: id(LIGHTHOUSE.file, 2) };
    expect(await kb.leavesOf(filename)).toEqual([onlyLeaf]);
    expect(await kb.adapters.parentStore.countByDocument(filename)).toBe(2);
    const parents = await kb.adapters.parentStore.getByIds([id(LIGHTHOUSE.file, 1), id(LIGHTHOUSE.file, 2, 0), id(LIGHTHOUSE.file, 2, 1)]);
    expect(parents.map((p) => [p.chunk_level, p.text])).toEqual([[1, LIGHTHOUSE.v2], [2, LIGHTHOUSE.v2]]); // l2::1 is gone

    for (const query of [LIGHTHOUSE.v1Query, LIGHTHOUSE.v2Query]) {
      const after = await kb.adapters.retriever.retrieve(query);
      expect(after.docs.filter((d) => d.filename === filename).map((d) => [d.chunk_id, d.text])).toEqual([[onlyLeaf.chunk_id, LIGHTHOUSE.v2]]);
      expect(after.docs.some((d) => d.text?.includes(LIGHTHOUSE.v1Phrase))).toBe(false);
    }
    expect((await kb.adapters.retriever.retrieve(LIGHTHOUSE.v2Query)).docs[0]?.chunk_id).toBe(onlyLeaf.chunk_id);
  });

  const guide = fixture('guide.md').toString('utf8');
  test.each([
    { what: 'a corrupt .docx', file: 'notes.docx', good: fixture('notes.docx'), bad: fixture('corrupt.docx'), type: 'CORRUPT_FILE', query: 'How are Word documents loaded?' },
    { what: 'an empty .md', file: 'guide.md', good: guide, bad: ' \n\n\u200b \n', type: 'EMPTY_DOCUMENT', query: 'Each file becomes three levels of chunks' },
    { what: 'a binary .md', file: 'guide.md', good: guide, bad: Buffer.from([0x23, 0x20, 0x00, 0x01, 0xff, 0x00]), type: 'CORRUPT_FILE', query: 'Each file becomes three levels of chunks' },
  ])('$what over a good version fails with $type and changes neither store', async ({ file, good, bad, type, query }) => {
    const filename = kb.filename(file);
    await kb.ingestFile(file, good);
    const leaves = await kb.leavesOf(filename);
    const parents = await kb.adapters.parentStore.getByIds([id(file, 1), id(file, 2)]);
    expect([leaves.length, parents.length]).toEqual([1, 2]);

    const error = await kb.ingestFile(file, bad).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ type, nonRetryable: true });
    expect((error as Error).message.startsWith(`${filename}: `)).toBe(true);
    expect(await kb.leavesOf(filename)).toEqual(leaves);
    expect(await kb.adapters.parentStore.getByIds([id(file, 1), id(file, 2)])).toEqual(parents);
    expect((await kb.adapters.retriever.retrieve(query)).docs[0]).toMatchObject({ chunk_id: leaves[0]?.chunk_id, text: leaves[0]?.text });
  });
});

describe('failures of the shared Milvus server and collection (once, not per parent store)', () => {
  test('U12 a collection whose BM25 leg cannot run (no BM25 function) → dense_fallback; ensureCollection refuses it', async () => {
    const [kb] = kbs;
    const collection = `no_bm25_${RUN_TAG}`;
    const client = newMilvusClient();
    try {
      await client.createCollection({ ...collectionSchema(collection, services.embeddingDim, 'plain'), functions: [] });
      await client.createIndex({ collection_name: collection, ...DENSE_INDEX });
      await client.createIndex({ collection_name: collection, field_name: FIELD.sparse, index_type: IndexType.SPARSE_INVERTED_INDEX, metric_type: MetricType.IP, params: { drop_ratio_build: 0 } });
      const embedder = createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim });
      const [dense] = await embedder.embedPassages([PANDA.text]);
      const row = { text: PANDA.text, filename: 'panda.md', file_type: 'Markdown', file_path: '/panda.md', page_number: 0, chunk_idx: 2, chunk_id: 'panda.md::p0::l3::0', parent_chunk_id: 'panda.md::p0::l2::0', root_chunk_id: 'panda.md::p0::l1::0', chunk_level: 3 };
      await client.insert({ collection_name: collection, data: [{ ...row, [FIELD.dense]: dense, [FIELD.sparse]: { 0: 1 } }] });
      await client.loadCollection({ collection_name: collection });

      const result = await kb!.build({ MILVUS_COLLECTION: collection, EMBEDDING_BASE_URL: proxy.baseUrl }).retriever.retrieve(PANDA.query);
      expect(proxy.embeddingRequests).toHaveLength(1);
      expect(result.meta).toMatchObject({ retrieval_mode: 'dense_fallback', recall_count: 1 });
      expect(result.docs.map((d) => d.chunk_id)).toEqual(['panda.md::p0::l3::0']);
      expect(result.diagnostics?.attempts[0]?.error).toMatch(/^Milvus BM25 search on collection/);

      const store = createMilvusLeafStore({ address: services.milvusAddress, collection, dim: services.embeddingDim, timeoutSeconds: 30 });
      const refused = await store.ensureCollection().then(() => null, (e: unknown) => e).finally(() => store.close());
      expect(refused).toBeInstanceOf(RagError);
      expect(refused).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('not the output of a BM25 function over text') });
    } finally {
      await client.dropCollection({ collection_name: collection }).finally(() => client.closeConnection());
    }
  });
});

/*
 * A Milvus of the test's own, stopped and started again: stopping the shared server would fail every suite running
 * beside this one (the shared jest tier, docs/TESTING.md).
 */
describe('a Milvus server stopped mid-run (once, both parent stores)', () => {
  let milvusDir: string;
  let milvus: PrivateMilvus;
  const stopped: RealKnowledgeBase[] = [];
  beforeAll(async () => {
    milvusDir = mkdtempSync(path.join(tmpdir(), 'ragtime-milvus-stopped-'));
    milvus = await startPrivateMilvus(milvusDir);
    for (const backend of PARENT_BACKENDS) {
      const kb = await RealKnowledgeBase.open(backend, 'stopped', { milvusAddress: milvus.address });
      stopped.push(kb);
      await kb.ingestFile(BREAD.file, BREAD.text);
    }
  }, 120_000);
  afterAll(async () => {
    for (const kb of stopped) await kb.close();
    await milvus?.stop();
    rmSync(milvusDir, { recursive: true, force: true });
  });

  test('Milvus stopped → failed, retrieve_failed, every count 0 (both parent stores); hybrid again once it is back', async () => {
    const retrievers = stopped.map((kb) => kb.build({ MILVUS_TIMEOUT: '5' }).retriever);
    for (const retriever of retrievers) expect((await retriever.retrieve(BREAD.query)).meta.retrieval_mode).toBe('hybrid');

    await milvus.stop();
    const results = await Promise.all(retrievers.map((r) => r.retrieve(BREAD.query)));
    milvus = await startPrivateMilvus(milvusDir, { port: milvus.port });
    for (const result of results) {
      expect(result.docs).toEqual([]);
      expect(result.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed', auto_merge_applied: false, retrieval_empty: true, ...ZERO_COUNTS });
      const attempts = result.diagnostics?.attempts ?? [];
      expect(attempts.map((a) => [a.name, a.candidate_count])).toEqual([['hybrid', 0], ['dense_fallback', 0]]);
      for (const a of attempts) expect(a.error).toMatch(/^Milvus (dense|BM25) search on collection .* failed: 14 UNAVAILABLE/);
    }

    // The same clients reconnect, and the stores load their collections again (Milvus Lite forgets the load state).
    for (const retriever of retrievers) {
      const back = await pollUntil('hybrid retrieval after Milvus restarted', async () => {
        const result = await retriever.retrieve(BREAD.query);
        return result.meta.retrieval_mode === 'hybrid' ? result : undefined;
      }, { timeoutMs: 90_000, intervalMs: 1_000 });
      expect(back.docs[0]?.text).toBe(BREAD.text);
    }
  }, 300_000);
});
