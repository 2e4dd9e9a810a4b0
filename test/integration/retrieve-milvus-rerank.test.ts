/**
 * Rerank (spec §6.6, U03 and U05–U10) on real Milvus results, for each parent store: the retriever from
 * workers/build-adapters.ts over a Milvus Lite collection holding the six short files of test/support/corpus.ts,
 * the real Jina rerank transport against a loopback /v1/rerank server (test/support/rerank-server.ts), and query
 * embeddings from the embeddings server through a counting proxy (spec §6.1: one embedding per retrieval).
 * RETRIEVAL_TOP_K = 2, so candidate_k = 6: every leaf is recalled, in fused (RRF) order, and none merges.
 */
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { nonNullRetrievalMeta } from '../../core/trace/fragment';
import type { RetrievalResult } from '../../core/trace/writers';
import { SHORT_DOCS, shortDoc } from '../support/corpus';
import { CountingEmbeddingProxy } from '../support/embedding-proxy';
import { PARENT_BACKENDS, RealKnowledgeBase } from '../support/real-knowledge-base';
import { jsonReply, LoopbackRerankServer } from '../support/rerank-server';
import { services } from '../support/services';

const MODEL = 'jina-reranker-v2-base-multilingual';
const DOC = shortDoc('en-chess');

let server: LoopbackRerankServer;
let proxy: CountingEmbeddingProxy;
beforeAll(async () => {
  server = await LoopbackRerankServer.start();
  proxy = await CountingEmbeddingProxy.start(services.embeddingBaseUrl);
});
afterAll(async () => Promise.all([server.close(), proxy.close()]));
beforeEach(() => {
  server.reset();
  proxy.reset();
});

const keyCount = (result: RetrievalResult) => Object.keys(nonNullRetrievalMeta(result.meta)).length;
const ranked = (docs: Chunk[]) => docs.map((d) => [d.chunk_id, d.score, d.rrf_rank]);
const sentDocuments = (n: number) => (server.requests[n]?.body as { documents: string[] }).documents;

describe.each(PARENT_BACKENDS)('rerank on Milvus Lite results with the $name parent store', (backend) => {
  let kb: RealKnowledgeBase;
  /** The same retrieval without rerank: what every score-sorted fallback must give. */
  let baseline: RetrievalResult;
  const winner = () => `${kb.filename(DOC.file)}::p0::l3::0`;
  const retriever = (env: Record<string, string> = {}) =>
    kb.build({
      RETRIEVAL_TOP_K: '2',
      EMBEDDING_BASE_URL: proxy.baseUrl,
      RERANK_MODEL: MODEL,
      RERANK_BINDING_HOST: server.host,
      RERANK_API_KEY: 'test-key',
      ...env,
    }).retriever;

  beforeAll(async () => {
    kb = await RealKnowledgeBase.open(backend, 'rerank');
    for (const doc of SHORT_DOCS) await kb.ingestFile(doc.file, doc.text);
    baseline = await retriever({ RERANK_MODEL: '' }).retrieve(DOC.query);
  }, 180_000);
  afterAll(async () => kb?.close());

  test('the baseline: rerank unset, the known winner first, RRF scores, no request', () => {
    expect(baseline.docs.map((d) => [d.chunk_id, d.rrf_rank])).toEqual([[winner(), 1], [expect.any(String), 2]]);
    expect(baseline.docs[0]?.score).toBeCloseTo(2 / 61, 12);
    expect(baseline.meta).toMatchObject({ retrieval_mode: 'hybrid', recall_count: 6, candidate_count: 6, post_rerank_count: 2, rerank_enabled: false });
    expect(server.requests).toEqual([]);
  });

  test('U05: request body, Bearer header; the API order kept; bad index skipped; rrf_rank and rerank_score', async () => {
    server.reply(jsonReply({ results: [{ index: 2, relevance_score: 0.9 }, { index: 7, relevance_score: 0.8 }, { index: 0, relevance_score: 0.1 }] }));
    const result = await retriever().retrieve(DOC.query);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/rerank' });
    expect(request?.headers).toMatchObject({ authorization: 'Bearer test-key', 'content-type': 'application/json' });
    expect(request?.body).toEqual({ model: MODEL, query: DOC.query, documents: expect.any(Array), top_n: 2, return_documents: false });
    const documents = sentDocuments(0);
    expect(documents[0]).toBe(DOC.text); // the candidates in fused order: the winner first
    expect([...documents].sort()).toEqual(SHORT_DOCS.map((d) => d.text).sort());
    expect(result.docs.map((d) => [d.text, d.rrf_rank, d.rerank_score])).toEqual([[documents[2], 3, 0.9], [DOC.text, 1, 0.1]]);
    expect(result.docs[1]?.score).toBeCloseTo(2 / 61, 12); // the recall score stays beside the rerank score
    expect(result.meta).toMatchObject({
      retrieval_mode: 'hybrid',
      rerank_enabled: true,
      rerank_applied: true,
      rerank_model: MODEL,
      rerank_endpoint: `${server.host}/v1/rerank`,
      rerank_error: null,
      rerank_timeout_seconds: 5,
      candidate_count: 6,
      post_rerank_count: 2,
      post_threshold_count: 2,
    });
    expect(keyCount(result)).toBe(24);
    expect(result.diagnostics?.reranked.map((r) => [r.before_rank, r.rank, r.rerank_score])).toEqual([[3, 1, 0.9], [1, 2, 0.1]]);
    expect(proxy.embeddingRequests).toHaveLength(1);
  });

  test('U06: HTTP 500 "boom" → rerank_error "HTTP 500: boom"; the score-sorted top 2; mode hybrid', async () => {
    server.reply({ status: 500, body: 'boom' });
    const result = await retriever().retrieve(DOC.query);
    expect(result.meta).toMatchObject({ rerank_error: 'HTTP 500: boom', rerank_applied: true, retrieval_mode: 'hybrid', post_threshold_count: 2 });
    expect(ranked(result.docs)).toEqual(ranked(baseline.docs));
    expect(keyCount(result)).toBe(25);
  });

  test('U07: 200 {"results": []} → rerank_error "empty_rerank_results"; the score-sorted top 2', async () => {
    server.reply(jsonReply({ results: [] }));
    const result = await retriever().retrieve(DOC.query);
    expect(result.meta).toMatchObject({ rerank_error: 'empty_rerank_results', rerank_applied: true, retrieval_mode: 'hybrid', post_rerank_count: 2 });
    expect(ranked(result.docs)).toEqual(ranked(baseline.docs));
  });

  test('U08: a JSON array body fails the hybrid attempt → dense_fallback, a second rerank request, one embedding', async () => {
    server.reply(jsonReply([{ index: 0, relevance_score: 0.9 }]), jsonReply({ results: [{ index: 1, relevance_score: 0.5 }] }));
    const result = await retriever().retrieve(DOC.query);
    expect(server.requests).toHaveLength(2);
    expect(proxy.embeddingRequests).toEqual([expect.objectContaining({ input: [DOC.query], input_type: 'query' })]);
    // The dense fallback recalls by inner product (cosine): the candidates of the second request are in that order.
    const denseLeg = result.diagnostics?.legs.dense_fallback ?? [];
    const textOf = new Map(SHORT_DOCS.map((d) => [kb.filename(d.file), d.text]));
    expect(sentDocuments(1)).toEqual(denseLeg.map((c) => textOf.get(c.filename)));
    expect(denseLeg[0]?.chunk_id).toBe(winner());
    expect(result.docs).toHaveLength(1);
    expect(result.docs[0]).toMatchObject({ chunk_id: denseLeg[1]?.chunk_id, rrf_rank: 2, rerank_score: 0.5, score: denseLeg[1]?.score });
    expect(result.docs[0]?.score).toBeGreaterThan(0);
    expect(result.docs[0]?.score).toBeLessThan(1);
    expect(result.meta).toMatchObject({ retrieval_mode: 'dense_fallback', rerank_applied: true, rerank_error: null, recall_count: 6 });
    expect(result.diagnostics?.attempts.map((a) => [a.name, a.error])).toEqual([
      ['hybrid', 'rerank reply is a JSON array, not an object'],
      ['dense_fallback', null],
    ]);
  });

  test('U08: both rerank replies JSON arrays → failed, retrieve_failed, all counts 0', async () => {
    server.always(jsonReply([]));
    const result = await retriever().retrieve(DOC.query);
    expect(server.requests).toHaveLength(2);
    expect(result.docs).toEqual([]);
    expect(result.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed', rerank_applied: false, recall_count: 0, candidate_count: 0 });
  });

  test('U09: a reranker that never answers → rerank_error "rerank request timed out after 0.2 s"; applied true', async () => {
    server.reply('hang');
    const started = Date.now();
    const result = await retriever({ RERANK_TIMEOUT_SECONDS: '0.2' }).retrieve(DOC.query);
    expect(result.meta).toMatchObject({ rerank_error: 'rerank request timed out after 0.2 s', rerank_applied: true, rerank_timeout_seconds: 0.2, retrieval_mode: 'hybrid' });
    expect(ranked(result.docs)).toEqual(ranked(baseline.docs));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test.each([
    ['/', '/v1/rerank', null],
    ['/v1/rerank/', '/v1/rerank', null],
    ['/v1', '/v1/v1/rerank', 'HTTP 404: not found'],
  ])('U04: RERANK_BINDING_HOST <host>%s → POST %s (error: %s)', async (suffix, endpointPath, error) => {
    server.always(jsonReply({ results: [{ index: 0, relevance_score: 0.5 }] }));
    const result = await retriever({ RERANK_BINDING_HOST: `${server.host}${suffix}` }).retrieve(DOC.query);
    expect(server.requests.map((r) => r.path)).toEqual([endpointPath]);
    expect(result.meta).toMatchObject({ rerank_endpoint: `${server.host}${endpointPath}`, rerank_applied: true, rerank_error: error });
  });

  test('U03: the .env.example placeholders → rerank disabled, endpoint "", no request, score order', async () => {
    const result = await retriever({ RERANK_MODEL: 'your_rerank_model', RERANK_BINDING_HOST: 'https://your-rerank-host', RERANK_API_KEY: 'your_rerank_api_key' }).retrieve(DOC.query);
    expect(server.requests).toEqual([]);
    expect(result.meta).toMatchObject({ rerank_enabled: false, rerank_applied: false, rerank_model: null, rerank_endpoint: '', rerank_error: null });
    expect(ranked(result.docs)).toEqual(ranked(baseline.docs));
    expect(keyCount(result)).toBe(23);
  });

  test('U10: rerank off, RERANK_MIN_SCORE 0.1 against RRF scores ≤ 2/61 → post_rerank 2, post_threshold 0, empty', async () => {
    const result = await retriever({ RERANK_MODEL: '', RERANK_MIN_SCORE: '0.1' }).retrieve(DOC.query);
    expect(result.docs).toEqual([]);
    expect(result.meta).toMatchObject({ post_rerank_count: 2, post_threshold_count: 0, retrieval_empty: true, retrieval_mode: 'hybrid', rerank_min_score: 0.1 });
    expect(keyCount(result)).toBe(23);
  });

  test('RERANK_MIN_SCORE 0.1 with rerank on: the threshold applies to rerank_score (0.9 kept, 0.05 dropped)', async () => {
    server.reply(jsonReply({ results: [{ index: 0, relevance_score: 0.9 }, { index: 1, relevance_score: 0.05 }] }));
    const result = await retriever({ RERANK_MIN_SCORE: '0.1' }).retrieve(DOC.query);
    expect(result.docs.map((d) => [d.chunk_id, d.rerank_score])).toEqual([[winner(), 0.9]]);
    expect(result.meta).toMatchObject({ post_rerank_count: 2, post_threshold_count: 1, retrieval_empty: false });
  });
});
