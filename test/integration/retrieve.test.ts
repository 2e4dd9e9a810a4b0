/**
 * retrieve_documents (spec §6.1–§6.9, U05–U12) through createRetriever: the real Jina rerank transport against a
 * loopback /v1/rerank server, in-memory doubles of ragtime's own LeafStore/ParentStore ports (exact scores and
 * failure injection), and a scripted embedder. Expected values come from spec §9 (U05–U12) and §6.9 (key counts).
 * The corpus and why the candidates are [t1, t2, t3] (rrf_rank 1, 2, 3) are in test/support/retriever-harness.ts.
 */
import type { RetrievalResult } from '../../core/trace/writers';
import { nonNullRetrievalMeta } from '../../core/trace/fragment';
import { FakeLeafStore } from '../support/fake-knowledge-store';
import { closedPort, jsonReply, LoopbackRerankServer } from '../support/rerank-server';
import { LEAVES, QUERY, retrieverHarness, T1_T2 } from '../support/retriever-harness';

let server: LoopbackRerankServer;
beforeAll(async () => {
  server = await LoopbackRerankServer.start();
});
afterAll(async () => server.close());
afterEach(() => server.reset());

const setup = (options: Parameters<typeof retrieverHarness>[1] = {}) => retrieverHarness(server, options);
const keyCount = (result: RetrievalResult) => Object.keys(nonNullRetrievalMeta(result.meta)).length;
const texts = (result: RetrievalResult) => result.docs.map((d) => d.text);

test('U05 rerank: request body, Bearer header, timeout 5.0; result [t3 (rrf 3, 0.9), t1 (rrf 1, 0.1)]', async () => {
  const { retriever, sent } = setup({ rerank: true });
  server.reply(jsonReply({ results: [{ index: 2, relevance_score: 0.9 }, { index: 7, relevance_score: 0.8 }, { index: 0, relevance_score: 0.1 }] }));
  const result = await retriever.retrieve(QUERY);

  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  expect(request?.path).toBe('/v1/rerank');
  expect(request?.body).toEqual({
    model: 'jina-reranker-v2-base-multilingual',
    query: QUERY,
    documents: ['t1', 't2', 't3'],
    top_n: 2,
    return_documents: false,
  });
  expect(request?.headers.authorization).toBe('Bearer test-key');
  expect(request?.headers['content-type']).toBe('application/json');
  expect(sent[0]?.timeoutSeconds).toBe(5);

  expect(result.docs.map((d) => [d.text, d.rrf_rank, d.rerank_score])).toEqual([['t3', 3, 0.9], ['t1', 1, 0.1]]);
  expect(result.meta).toMatchObject({
    rerank_enabled: true,
    rerank_applied: true,
    rerank_error: null,
    rerank_endpoint: `${server.host}/v1/rerank`,
    rerank_timeout_seconds: 5,
    candidate_count: 3,
    recall_count: 3,
    post_rerank_count: 2,
    post_threshold_count: 2,
    retrieval_mode: 'hybrid',
  });
  expect(keyCount(result)).toBe(24);
  expect(result.diagnostics?.reranked.map((r) => [r.chunk_id, r.before_rank, r.rank])).toEqual([
    ['doc.md::p0::l3::3', 3, 1],
    ['doc.md::p0::l3::1', 1, 2],
  ]);
});

test('U06 rerank HTTP 500 "boom" → rerank_error "HTTP 500: boom"; score-sorted top 2; mode hybrid', async () => {
  const { retriever } = setup({ rerank: true });
  server.reply({ status: 500, body: 'boom' });
  const result = await retriever.retrieve(QUERY);
  expect(result.meta).toMatchObject({ rerank_error: 'HTTP 500: boom', rerank_applied: true, retrieval_mode: 'hybrid' });
  expect(result.docs.map((d) => [d.text, d.score, d.rrf_rank])).toEqual([['t1', T1_T2, 1], ['t2', T1_T2, 2]]);
  expect(keyCount(result)).toBe(25);
  expect(result.diagnostics?.reranked).toEqual([]);
});

test('U07 rerank 200 {"results": []} → rerank_error "empty_rerank_results"', async () => {
  const { retriever } = setup({ rerank: true });
  server.reply(jsonReply({ results: [] }));
  const result = await retriever.retrieve(QUERY);
  expect(result.meta).toMatchObject({ rerank_error: 'empty_rerank_results', rerank_applied: true, post_rerank_count: 2 });
  expect(texts(result)).toEqual(['t1', 't2']);
});

test('U08 rerank 200 with a JSON array body → post-processing fails → dense_fallback (second rerank request)', async () => {
  const { retriever, embedder } = setup({ rerank: true });
  server.reply(jsonReply([{ index: 0, relevance_score: 0.9 }]), jsonReply({ results: [{ index: 1, relevance_score: 0.5 }] }));
  const result = await retriever.retrieve(QUERY);
  expect(server.requests).toHaveLength(2);
  expect(embedder.calls).toHaveLength(1);
  // Dense fallback recall: t1 (1.0), t2 (0.8), t3 (0.6) by inner product; the reranker picks index 1.
  expect(result.docs.map((d) => [d.text, d.score, d.rrf_rank, d.rerank_score])).toEqual([['t2', 0.8, 2, 0.5]]);
  expect(result.meta).toMatchObject({ retrieval_mode: 'dense_fallback', rerank_applied: true, rerank_error: null, recall_count: 3 });
  expect(result.diagnostics?.attempts.map((a) => [a.name, a.error])).toEqual([
    ['hybrid', 'rerank reply is a JSON array, not an object'],
    ['dense_fallback', null],
  ]);
});

test('U08 both rerank replies are JSON arrays → failed with retrieve_failed', async () => {
  const { retriever } = setup({ rerank: true });
  server.always(jsonReply([]));
  const result = await retriever.retrieve(QUERY);
  expect(server.requests).toHaveLength(2);
  expect(result.docs).toEqual([]);
  expect(result.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed', rerank_applied: false });
});

test('U09 rerank timeout → rerank_error = the exception text; applied true', async () => {
  const { retriever } = setup({ rerank: true, env: { RERANK_TIMEOUT_SECONDS: '0.2' } });
  server.reply('hang');
  const result = await retriever.retrieve(QUERY);
  expect(result.meta).toMatchObject({
    rerank_error: 'rerank request timed out after 0.2 s',
    rerank_applied: true,
    rerank_timeout_seconds: 0.2,
    retrieval_mode: 'hybrid',
  });
  expect(texts(result)).toEqual(['t1', 't2']);
});

test('rerank endpoint not listening → rerank_error names the socket error; retrieval still succeeds', async () => {
  const port = await closedPort();
  const { retriever } = setup({ rerank: true, env: { RERANK_BINDING_HOST: `http://127.0.0.1:${port}` } });
  const result = await retriever.retrieve(QUERY);
  expect(result.meta.rerank_error).toBe(`rerank request failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  expect(result.meta).toMatchObject({ rerank_applied: true, retrieval_mode: 'hybrid', post_threshold_count: 2 });
});

test('U10 rerank off, RERANK_MIN_SCORE 0.1, hybrid RRF scores ≈ 0.03 → post_rerank 2, post_threshold 0, empty', async () => {
  const { retriever } = setup({ env: { RERANK_MIN_SCORE: '0.1' } });
  const result = await retriever.retrieve(QUERY);
  expect(server.requests).toHaveLength(0);
  expect(result.docs).toEqual([]);
  expect(result.meta).toMatchObject({
    post_rerank_count: 2,
    post_threshold_count: 0,
    retrieval_empty: true,
    retrieval_mode: 'hybrid',
    rerank_enabled: false,
    rerank_applied: false,
  });
  expect(keyCount(result)).toBe(23);
});

test('U11 embedding raises → docs []; mode failed; embedding_failed; all counts 0; auto_merge_applied false', async () => {
  const { retriever, embedder, leafStore } = setup();
  embedder.fail = new Error('connect ECONNREFUSED 127.0.0.1:8765');
  const result = await retriever.retrieve(QUERY);
  expect(result.docs).toEqual([]);
  expect(result.meta).toMatchObject({
    retrieval_mode: 'failed',
    rerank_error: 'embedding_failed',
    recall_count: 0,
    post_merge_candidate_count: 0,
    candidate_count: 0,
    post_rerank_count: 0,
    post_threshold_count: 0,
    auto_merge_applied: false,
    auto_merge_replaced_chunks: 0,
    auto_merge_steps: 0,
    retrieval_empty: true,
  });
  expect(keyCount(result)).toBe(24);
  expect(leafStore.denseCalls).toHaveLength(0);
  expect(result.diagnostics?.embedding_error).toBe('connect ECONNREFUSED 127.0.0.1:8765');
});

test('U12 hybrid raises, dense ok → dense_fallback, embedding computed once, score = inner product', async () => {
  const { retriever, embedder, leafStore } = setup();
  leafStore.failBm25 = true;
  const result = await retriever.retrieve(QUERY);
  expect(embedder.calls).toEqual([[QUERY]]);
  expect(leafStore.denseCalls).toEqual([{ limit: 12, leafLevel: 3 }, { limit: 6, leafLevel: 3 }]);
  expect(result.docs.map((d) => [d.text, d.score, d.rrf_rank])).toEqual([['t1', 1, 1], ['t2', 0.8, 2]]);
  expect(result.meta).toMatchObject({ retrieval_mode: 'dense_fallback', recall_count: 3, rerank_error: null });
  expect(keyCount(result)).toBe(23);
});

test('U12 both raise → failed + retrieve_failed', async () => {
  const leaves = new FakeLeafStore(LEAVES);
  leaves.failDense = true;
  const { retriever, embedder } = setup({ leaves });
  const result = await retriever.retrieve(QUERY);
  expect(embedder.calls).toHaveLength(1);
  expect(result.docs).toEqual([]);
  expect(result.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed', recall_count: 0 });
  expect(keyCount(result)).toBe(24);
  expect(result.diagnostics?.attempts.map((a) => [a.name, a.candidate_count, a.usable])).toEqual([
    ['hybrid', 0, false],
    ['dense_fallback', 0, false],
  ]);
});
