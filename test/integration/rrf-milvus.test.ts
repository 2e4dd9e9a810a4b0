/**
 * DESIGN §4: ragtime searches the dense and BM25 legs separately and fuses them with RRF in code. This test proves
 * that the fused list equals Milvus' own hybrid search with the RRF ranker (k = 60) on the same collection: same
 * hits, same order (ties included), same scores (Milvus returns float32, hence 6 digits).
 *
 * The corpus forces ties: the dense leg's top 6 and the BM25 leg's top 6 barely overlap, so a dense-only hit and a
 * BM25-only hit at the same rank score exactly the same. The BM25 documents are inserted first and so have the
 * smaller auto ids: Milvus orders such ties by ascending primary key, not by leg (core/retrieval/rrf.ts).
 */
import { randomBytes } from 'node:crypto';
import { fuseRrf } from '../../core/retrieval/rrf';
import { DataType, FunctionType, IndexType, MetricType, type MilvusClient, newMilvusClient } from '../support/milvus';
import { assertReachable, services } from '../support/services';

const DIM = 8;
const COLLECTION = `rrf_${Date.now()}_${randomBytes(3).toString('hex')}`;
const FILTER = 'chunk_level == 3';
const LEG_LIMIT = 6; // 2 × candidate_k
const FINAL_LIMIT = 8;
const QUERY_TEXT = '检索';
const QUERY_VECTOR = [1, 0, 0, 0, 0, 0, 0, 0];

const unit = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
};
// Dense group: decreasing similarity to the query; b-group: orthogonal to it.
const denseVector = (i: number) => unit([Math.cos(i * 0.15), Math.sin(i * 0.15), 0, 0, 0, 0, 0, 0]);
const offAxis = (i: number) => unit([0, 0, 0, 0, 0, 1, 0.1 * i, 0]);

type Row = { key: string; text: string; dense: number[]; chunk_level: number };
const ROWS: Row[] = [
  // BM25 group first (smaller auto ids): the query term with decreasing frequency.
  ...[5, 4, 3, 2, 1].map((tf, j) => ({ key: `b${j}`, text: `${'检索 '.repeat(tf)}文档 编号${j}`, dense: offAxis(j), chunk_level: 3 })),
  // Dense group: no query term, except d0 (so one hit is in both legs).
  ...[0, 1, 2, 3, 4, 5, 6].map((i) => ({
    key: `d${i}`,
    text: i === 0 ? '检索 增强 生成 的 一段 很长 的 说明 文字 内容' : `苹果 香蕉 橙子 第${i}篇`,
    dense: denseVector(i),
    chunk_level: 3,
  })),
  { key: 'parent', text: '检索 检索 检索 检索 检索 检索', dense: denseVector(0), chunk_level: 2 }, // filtered out
];

type Hit = { id: string; key: string; score: number };
const hits = (results: unknown): Hit[] => {
  const list = (Array.isArray(results) && Array.isArray(results[0]) ? results[0] : results) as Array<Record<string, unknown>>;
  return list.map((r) => ({ id: String(r.id), key: String(r.doc_key), score: Number(r.score) }));
};
const expectOk = (status: { error_code?: string | number; reason?: string }, what: string) => {
  if (status.error_code !== 'Success' && status.error_code !== 0) throw new Error(`${what}: ${String(status.error_code)} ${status.reason ?? ''}`);
};

let client: MilvusClient;

beforeAll(async () => {
  await assertReachable('Milvus Lite', services.milvusAddress);
  client = newMilvusClient();
  expectOk(
    await client.createCollection({
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
        { name: 'text_bm25', type: FunctionType.BM25, input_field_names: ['text'], output_field_names: ['sparse'], params: {} },
      ],
    }),
    'createCollection',
  );
  const dense = { collection_name: COLLECTION, field_name: 'dense', index_type: IndexType.HNSW, metric_type: MetricType.IP, params: { M: 16, efConstruction: 256 } };
  expectOk(await client.createIndex(dense), 'createIndex dense');
  const sparse = { collection_name: COLLECTION, field_name: 'sparse', index_type: IndexType.SPARSE_INVERTED_INDEX, metric_type: MetricType.BM25 };
  expectOk(await client.createIndex(sparse), 'createIndex sparse');
  expectOk(await client.loadCollection({ collection_name: COLLECTION }), 'loadCollection');
  const inserted = await client.insert({
    collection_name: COLLECTION,
    data: ROWS.map((r) => ({ doc_key: r.key, dense: r.dense, text: r.text, chunk_level: r.chunk_level })),
  });
  expectOk(inserted.status, 'insert');
});

afterAll(async () => {
  if (!client) return;
  try {
    await client.dropCollection({ collection_name: COLLECTION });
  } finally {
    await client.closeConnection();
  }
});

const OUTPUT = ['id', 'doc_key'];

async function denseLeg(): Promise<Hit[]> {
  const res = await client.search({
    collection_name: COLLECTION, anns_field: 'dense', data: [QUERY_VECTOR], limit: LEG_LIMIT,
    metric_type: MetricType.IP, params: { ef: 64 }, filter: FILTER, output_fields: OUTPUT,
  });
  expectOk(res.status, 'dense search');
  return hits(res.results);
}

async function bm25Leg(): Promise<Hit[]> {
  const res = await client.search({
    collection_name: COLLECTION, anns_field: 'sparse', data: [QUERY_TEXT], limit: LEG_LIMIT,
    metric_type: MetricType.BM25, filter: FILTER, output_fields: OUTPUT,
  });
  expectOk(res.status, 'BM25 search');
  return hits(res.results);
}

async function milvusHybrid(): Promise<Hit[]> {
  // The SDK reads each sub-request's `limit` and `metric_type` (Milvus Lite needs the metric), but its type omits
  // both fields, hence the variables.
  const denseRequest = { anns_field: 'dense', data: QUERY_VECTOR, params: { ef: 64 }, expr: FILTER, limit: LEG_LIMIT, metric_type: MetricType.IP };
  const bm25Request = { anns_field: 'sparse', data: QUERY_TEXT, expr: FILTER, limit: LEG_LIMIT, metric_type: MetricType.BM25 };
  const res = await client.hybridSearch({
    collection_name: COLLECTION,
    data: [denseRequest, bm25Request],
    rerank: { strategy: 'rrf', params: { k: 60 } },
    limit: FINAL_LIMIT,
    output_fields: OUTPUT,
  });
  expectOk(res.status, 'hybrid search');
  return hits(res.results);
}

test('RRF in code over separate legs = Milvus hybrid search with RRFRanker(60): hits, order, scores', async () => {
  const [dense, bm25] = [await denseLeg(), await bm25Leg()];
  expect(dense).toHaveLength(LEG_LIMIT);
  expect(bm25.map((h) => h.key)).not.toContain('parent'); // the leaf filter applies
  const ours = fuseRrf([dense, bm25], FINAL_LIMIT);
  const theirs = await milvusHybrid();
  expect(ours.map((f) => f.hit.key)).toEqual(theirs.map((h) => h.key));
  ours.forEach((f, i) => expect(f.rrfScore).toBeCloseTo(theirs[i]?.score ?? NaN, 6));
});

test('the corpus really has cross-leg ties, and Milvus puts the smaller primary key first in each', async () => {
  const [dense, bm25] = [await denseLeg(), await bm25Leg()];
  const fused = fuseRrf([dense, bm25], FINAL_LIMIT);
  const ties = fused.slice(1).filter((f, i) => f.rrfScore === fused[i]?.rrfScore);
  expect(ties.length).toBeGreaterThanOrEqual(2);
  const theirs = await milvusHybrid();
  let crossLegTies = 0;
  for (let i = 1; i < theirs.length; i += 1) {
    const [a, b] = [fused[i - 1], fused[i]];
    if (!a || !b || a.rrfScore !== b.rrfScore) continue;
    expect(BigInt(theirs[i - 1]?.id ?? 0)).toBeLessThan(BigInt(theirs[i]?.id ?? 0));
    // A BM25-only hit before a dense-only hit: "dense leg first" would have ordered this tie the other way.
    if (a.legRanks[0] === null && b.legRanks[1] === null) crossLegTies += 1;
  }
  expect(crossLegTies).toBeGreaterThanOrEqual(1);
});
