/**
 * Smoke test: Milvus Lite (started by scripts/services.sh) serves @zilliz/milvus2-sdk-node for everything the
 * retrieval layer needs: a collection with a dense float vector, a jieba-analyzed VarChar with a BM25 function
 * into a sparse vector, indexes (one at a time, metric and index type always explicit), inserts of Chinese and
 * English text, the dense leg (IP) and the BM25 leg searched separately, filters on chunk_level, delete by
 * filter, and data that survives a restart of the server (SIGINT via scripts/services.sh) after a new load.
 *
 * Traps of Milvus Lite 3.2.x handled here (see docs/OPERATIONS.md): the pk is returned only when listed in
 * output_fields; int64 fields come back as strings; BM25 scores may be negative (rank by order); the SDK's
 * 10 s keepalive pings are raised (test/support/milvus.ts).
 *
 * @solo it restarts the shared Milvus Lite (scripts/services.sh restart milvus), which every other suite uses.
 */
import { randomBytes } from 'node:crypto';
import { DataType, FunctionType, IndexType, MetricType, type MilvusClient, newMilvusClient } from '../support/milvus';
import { assertReachable, runServicesScript, services } from '../support/services';

const DIM = 8;

interface Doc {
  key: string;
  text: string;
  chunkLevel: number;
  vector: number[];
}

/** Deterministic vectors: doc i points mostly along axis i, so the dense leg's order is known. */
function axisVector(axis: number, spill = 0.1): number[] {
  const v = Array.from({ length: DIM }, (_, i) => (i === axis ? 1 : spill));
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}

const DOCS: Doc[] = [
  { key: 'zh-beijing', text: '北京是中华人民共和国的首都，也是全国的政治和文化中心。', chunkLevel: 3, vector: axisVector(0) },
  { key: 'zh-shanghai', text: '上海是中国最大的经济中心城市，位于长江入海口。', chunkLevel: 3, vector: axisVector(1) },
  { key: 'zh-parent', text: '中国城市概览：北京与上海。', chunkLevel: 1, vector: axisVector(2) },
  { key: 'en-milvus', text: 'Milvus is a vector database built for similarity search.', chunkLevel: 3, vector: axisVector(3) },
  { key: 'en-temporal', text: 'Temporal runs durable workflows that survive restarts.', chunkLevel: 2, vector: axisVector(4) },
];

const COLLECTION = `smoke_${Date.now()}_${randomBytes(3).toString('hex')}`;
const OUTPUT_FIELDS = ['id', 'doc_key', 'text', 'chunk_level'];

interface Hit {
  id: string;
  key: string;
  chunkLevel: number;
  score: number;
}

/** Rows of a single-vector search (the SDK types results as one list, or one list per query vector). */
function hits(results: unknown): Hit[] {
  const list = Array.isArray(results) && Array.isArray(results[0]) ? (results[0] as unknown[]) : (results as unknown[]);
  return (list as Array<Record<string, unknown>>).map((r) => ({
    id: String(r.id),
    key: String(r.doc_key),
    chunkLevel: Number(r.chunk_level),
    score: Number(r.score),
  }));
}

function expectOk(status: { error_code?: string | number; reason?: string }, what: string): void {
  if (status.error_code !== 'Success' && status.error_code !== 0) {
    throw new Error(`${what} failed: ${String(status.error_code)} ${status.reason ?? ''}`);
  }
}

let client: MilvusClient;

async function searchDense(vector: number[], filter?: string, limit = 5): Promise<Hit[]> {
  const res = await client.search({
    collection_name: COLLECTION,
    anns_field: 'dense',
    data: [vector],
    limit,
    metric_type: MetricType.IP,
    output_fields: OUTPUT_FIELDS,
    ...(filter !== undefined ? { filter } : {}),
  });
  expectOk(res.status, 'dense search');
  return hits(res.results);
}

async function searchBm25(text: string, filter?: string, limit = 5): Promise<Hit[]> {
  const res = await client.search({
    collection_name: COLLECTION,
    anns_field: 'sparse',
    data: [text],
    limit,
    metric_type: MetricType.BM25,
    output_fields: OUTPUT_FIELDS,
    ...(filter !== undefined ? { filter } : {}),
  });
  expectOk(res.status, 'BM25 search');
  return hits(res.results);
}

async function countRows(filter = 'chunk_level >= 0'): Promise<number> {
  const res = await client.query({ collection_name: COLLECTION, filter, output_fields: ['id'] });
  expectOk(res.status, 'query');
  return res.data.length;
}

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  client = newMilvusClient();
});

afterAll(async () => {
  if (client) {
    try {
      await client.dropCollection({ collection_name: COLLECTION });
    } finally {
      await client.closeConnection();
    }
  }
});

test('creates a collection with a dense vector and a BM25 function over a jieba-analyzed text field', async () => {
  const res = await client.createCollection({
    collection_name: COLLECTION,
    fields: [
      { name: 'id', data_type: DataType.Int64, is_primary_key: true, autoID: true },
      { name: 'doc_key', data_type: DataType.VarChar, max_length: 64 },
      { name: 'dense', data_type: DataType.FloatVector, dim: DIM },
      {
        name: 'text',
        data_type: DataType.VarChar,
        max_length: 4096,
        enable_analyzer: true,
        analyzer_params: { tokenizer: 'jieba', filter: ['cnalphanumonly'] },
      },
      { name: 'chunk_level', data_type: DataType.Int64 },
      { name: 'sparse', data_type: DataType.SparseFloatVector },
    ],
    functions: [
      {
        name: 'text_bm25',
        type: FunctionType.BM25,
        input_field_names: ['text'],
        output_field_names: ['sparse'],
        params: {},
      },
    ],
  });
  expectOk(res, 'createCollection');

  const described = await client.describeCollection({ collection_name: COLLECTION });
  expectOk(described.status, 'describeCollection');
  expect(described.schema.fields.map((f) => f.name)).toEqual(['id', 'doc_key', 'dense', 'text', 'chunk_level', 'sparse']);
  expect(described.schema.functions.map((f) => f.name)).toEqual(['text_bm25']);
});

test('creates the two indexes one at a time (explicit index and metric types) and loads', async () => {
  expectOk(
    await client.createIndex({
      collection_name: COLLECTION,
      field_name: 'dense',
      index_name: 'dense_hnsw',
      index_type: IndexType.HNSW,
      metric_type: MetricType.IP,
      params: { M: 16, efConstruction: 200 },
    }),
    'createIndex dense',
  );
  expectOk(
    await client.createIndex({
      collection_name: COLLECTION,
      field_name: 'sparse',
      index_name: 'sparse_bm25',
      index_type: IndexType.SPARSE_INVERTED_INDEX,
      metric_type: MetricType.BM25,
    }),
    'createIndex sparse',
  );
  expectOk(await client.loadCollection({ collection_name: COLLECTION }), 'loadCollection');
});

test('inserts Chinese and English rows', async () => {
  // Writes to one collection are serialized (Milvus Lite's engine is single-writer per collection).
  const res = await client.insert({
    collection_name: COLLECTION,
    data: DOCS.map((d) => ({ doc_key: d.key, dense: d.vector, text: d.text, chunk_level: d.chunkLevel })),
  });
  expectOk(res.status, 'insert');
  expect(Number(res.insert_cnt)).toBe(DOCS.length);
  expect(await countRows()).toBe(DOCS.length);
});

test('the dense leg ranks by inner product and honours a chunk_level filter', async () => {
  const all = await searchDense(axisVector(0, 0.05));
  expect(all.map((h) => h.key)[0]).toBe('zh-beijing');
  expect(all).toHaveLength(DOCS.length);
  for (let i = 1; i < all.length; i++) expect(all[i - 1]!.score).toBeGreaterThanOrEqual(all[i]!.score);
  expect(all.every((h) => /^\d+$/.test(h.id))).toBe(true);

  const leaves = await searchDense(axisVector(2, 0.05), 'chunk_level == 3');
  expect(leaves.map((h) => h.key).sort()).toEqual(['en-milvus', 'zh-beijing', 'zh-shanghai']);
  expect(leaves.every((h) => h.chunkLevel === 3)).toBe(true);
});

test('the BM25 leg matches Chinese (jieba) and English text; rank by order, scores may be negative', async () => {
  const zh = await searchBm25('首都北京');
  expect(zh.length).toBeGreaterThan(0);
  expect(zh[0]!.key).toBe('zh-beijing');
  expect(zh.map((h) => h.key)).not.toContain('en-milvus');

  const en = await searchBm25('vector database');
  expect(en[0]!.key).toBe('en-milvus');

  const zhLeaves = await searchBm25('北京 上海', 'chunk_level == 3');
  expect(zhLeaves.map((h) => h.key).sort()).toEqual(['zh-beijing', 'zh-shanghai']);

  const parents = await searchBm25('北京 上海', 'chunk_level == 1');
  expect(parents.map((h) => h.key)).toEqual(['zh-parent']);
});

test('deletes by filter', async () => {
  const res = await client.delete({ collection_name: COLLECTION, filter: 'chunk_level == 1' });
  expectOk(res.status, 'delete');
  expect(await countRows('chunk_level == 1')).toBe(0);
  expect(await countRows()).toBe(DOCS.length - 1);
  expect((await searchBm25('北京 上海')).map((h) => h.key)).not.toContain('zh-parent');
});

test('data survives a restart of Milvus Lite (SIGINT, start, load, search)', async () => {
  const denseBefore = await searchDense(axisVector(1, 0.05));
  const bm25Before = await searchBm25('首都北京');
  await client.closeConnection();

  const output = await runServicesScript(['restart', 'milvus']);
  expect(output).toMatch(/milvus: stopped/);
  expect(output).toMatch(/milvus: started/);

  client = newMilvusClient();
  expectOk(await client.loadCollection({ collection_name: COLLECTION }), 'loadCollection after restart');
  expect(await countRows()).toBe(DOCS.length - 1);
  expect(await countRows('chunk_level == 1')).toBe(0);

  const denseAfter = await searchDense(axisVector(1, 0.05));
  expect(denseAfter.map((h) => [h.id, h.key])).toEqual(denseBefore.map((h) => [h.id, h.key]));
  expect(denseAfter[0]!.key).toBe('zh-shanghai');

  const bm25After = await searchBm25('首都北京');
  expect(bm25After.map((h) => h.key)).toEqual(bm25Before.map((h) => h.key));
  expect(bm25After[0]!.key).toBe('zh-beijing');

  // Writes still work after the restart.
  const res = await client.insert({
    collection_name: COLLECTION,
    data: [{ doc_key: 'zh-after', dense: axisVector(5), text: '重启之后写入的新段落。', chunk_level: 3 }],
  });
  expectOk(res.status, 'insert after restart');
  expect((await searchBm25('重启之后'))[0]!.key).toBe('zh-after');
}, 120_000);
