/**
 * retrieve_documents beyond U05–U12: auto-merge through the parent-store port inside the pipeline (U13, U14 as the
 * retriever runs them), parent-store failures (spec §6.1 step 4 names them), the §6.9 key counts on every path, and
 * the retrieval diagnostics (issue 4 §3). Same harness as retrieve.test.ts.
 */
import { createParentStore } from '../../activities/adapters/sql-parent-store';
import type { HierarchyChunk } from '../../activities/ports';
import { RETRIEVAL_META_FIELDS } from '../../core/schemas/rag-trace';
import { RetrievalDiagnostics } from '../../core/schemas/retrieval-diagnostics';
import { nonNullRetrievalMeta } from '../../core/trace/fragment';
import type { RetrievalResult } from '../../core/trace/writers';
import { FakeLeafStore, FakeParentStore, fakeLeaf } from '../support/fake-knowledge-store';
import { jsonReply, LoopbackRerankServer } from '../support/rerank-server';
import { QUERY, retrieverHarness, T1_T2 } from '../support/retriever-harness';

let server: LoopbackRerankServer;
beforeAll(async () => {
  server = await LoopbackRerankServer.start();
});
afterAll(async () => server.close());
afterEach(() => server.reset());

const setup = (options: Parameters<typeof retrieverHarness>[1] = {}) => retrieverHarness(server, options);
const keyCount = (result: RetrievalResult) => Object.keys(nonNullRetrievalMeta(result.meta)).length;

// U13's hierarchy (spec §9): c1, c2 → L2a; c3, c4 → L2b; L2a, L2b → L1x; c9 → L2z (single).
const L1X = 'doc.md::p0::l1::0';
const parent = (chunkId: string, parentId: string, level: 1 | 2): HierarchyChunk => ({
  chunk_id: chunkId,
  text: `text of ${chunkId}`,
  filename: 'doc.md',
  file_type: 'md',
  file_path: '/data/doc.md',
  page_number: 0,
  parent_chunk_id: parentId,
  root_chunk_id: L1X,
  chunk_level: level,
  chunk_idx: 0,
});
const PARENTS = [parent(L1X, '', 1), parent('L2a', L1X, 2), parent('L2b', L1X, 2), parent('L2z', L1X, 2)];
// Dense order c1, c2, c3, c4, c9 (no BM25 terms): fused scores 1/61 … 1/65.
const axis = (x: number) => [x, Math.sqrt(1 - x * x), 0, 0];
const U13_LEAVES = [
  fakeLeaf(1, { text: 'c1', dense: axis(0.9), parent: 'L2a' }),
  fakeLeaf(2, { text: 'c2', dense: axis(0.8), parent: 'L2a' }),
  fakeLeaf(3, { text: 'c3', dense: axis(0.7), parent: 'L2b' }),
  fakeLeaf(4, { text: 'c4', dense: axis(0.6), parent: 'L2b' }),
  fakeLeaf(9, { text: 'c9', dense: axis(0.5), parent: 'L2z' }),
];

test('U13 in the pipeline: two passes through the parent store → [L1x (max child score, 2 children), c9]', async () => {
  const parents = new FakeParentStore(PARENTS);
  const { retriever } = setup({ env: { RETRIEVAL_TOP_K: '8' }, leaves: new FakeLeafStore(U13_LEAVES), parents });
  const result = await retriever.retrieve(QUERY);
  expect(parents.lookups).toEqual([['L2a', 'L2b'], [L1X]]);
  expect(result.docs.map((d) => [d.chunk_id, d.score, d.rrf_rank, d.merged_from_children, d.merged_child_count])).toEqual([
    [L1X, 1 / 61, 1, true, 2],
    ['doc.md::p0::l3::9', 1 / 65, 2, undefined, undefined],
  ]);
  expect(result.meta).toMatchObject({
    recall_count: 5,
    auto_merge_applied: true,
    auto_merge_replaced_chunks: 6,
    auto_merge_steps: 2,
    post_merge_candidate_count: 2,
    candidate_count: 2,
    post_rerank_count: 2,
  });
  expect(result.diagnostics?.merge_groups).toEqual([
    { parent_chunk_id: 'L2a', level: 2, child_count: 2, child_chunk_ids: ['doc.md::p0::l3::1', 'doc.md::p0::l3::2'] },
    { parent_chunk_id: 'L2b', level: 2, child_count: 2, child_chunk_ids: ['doc.md::p0::l3::3', 'doc.md::p0::l3::4'] },
    { parent_chunk_id: L1X, level: 1, child_count: 2, child_chunk_ids: ['L2a', 'L2b'] },
  ]);
});

test('U13 with the real SQL parent store (SQLite in memory): the same two passes and result', async () => {
  const sql = createParentStore({ sqliteFile: ':memory:' });
  const parents = sql.forKb('u13');
  try {
    await parents.replaceDocument('/data/doc.md', PARENTS);
    const { retriever } = setup({ env: { RETRIEVAL_TOP_K: '8' }, leaves: new FakeLeafStore(U13_LEAVES), parents });
    const result = await retriever.retrieve(QUERY);
    expect(result.docs.map((d) => [d.chunk_id, d.text, d.file_path, d.merged_child_count])).toEqual([
      [L1X, `text of ${L1X}`, '/data/doc.md', 2],
      ['doc.md::p0::l3::9', 'c9', '/data/doc.md', undefined],
    ]);
    expect(result.meta).toMatchObject({ retrieval_mode: 'hybrid', auto_merge_replaced_chunks: 6, auto_merge_steps: 2 });
  } finally {
    await sql.close();
  }
});

test('U14 in the pipeline: leaves whose parent is missing from the store stay; applied false, replaced 0', async () => {
  const parents = new FakeParentStore([]);
  const { retriever } = setup({ env: { RETRIEVAL_TOP_K: '8' }, leaves: new FakeLeafStore(U13_LEAVES.slice(0, 2)), parents });
  const result = await retriever.retrieve(QUERY);
  // Pass 2 sees the same unmerged leaves, so L2a qualifies again and is looked up again, as in the original.
  expect(parents.lookups).toEqual([['L2a'], ['L2a']]);
  expect(result.docs.map((d) => d.text)).toEqual(['c1', 'c2']);
  expect(result.meta).toMatchObject({ auto_merge_applied: false, auto_merge_replaced_chunks: 0, auto_merge_steps: 0 });
});

test('AUTO_MERGE_ENABLED=false: no parent lookup, enabled false in the meta', async () => {
  const parents = new FakeParentStore(PARENTS);
  const env = { RETRIEVAL_TOP_K: '8', AUTO_MERGE_ENABLED: 'FALSE' };
  const { retriever } = setup({ env, leaves: new FakeLeafStore(U13_LEAVES), parents });
  const result = await retriever.retrieve(QUERY);
  expect(parents.lookups).toEqual([]);
  expect(result.meta).toMatchObject({ auto_merge_enabled: false, auto_merge_applied: false, post_merge_candidate_count: 5 });
});

test('a parent-store error fails the hybrid attempt → dense_fallback (spec §6.1 step 4); twice → retrieve_failed', async () => {
  const once = new FakeParentStore(PARENTS);
  once.failures.push(new Error('connection to server at "127.0.0.1", port 5432 failed'));
  const first = await setup({ env: { RETRIEVAL_TOP_K: '8' }, leaves: new FakeLeafStore(U13_LEAVES), parents: once }).retriever.retrieve(QUERY);
  expect(first.meta).toMatchObject({ retrieval_mode: 'dense_fallback', auto_merge_applied: true, recall_count: 5 });
  // Dense fallback scores are inner products: L1x inherits c1's 0.9.
  expect(first.docs.map((d) => [d.chunk_id, d.score])).toEqual([[L1X, 0.9], ['doc.md::p0::l3::9', 0.5]]);
  expect(first.diagnostics?.attempts.map((a) => [a.name, a.candidate_count, a.error])).toEqual([
    ['hybrid', 5, 'connection to server at "127.0.0.1", port 5432 failed'],
    ['dense_fallback', 5, null],
  ]);

  const always = new FakeParentStore(PARENTS);
  always.failures.push(new Error('db down'), new Error('db down'));
  const second = await setup({ leaves: new FakeLeafStore(U13_LEAVES), parents: always }).retriever.retrieve(QUERY);
  expect(second.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed' });
});

test('§6.9 counts on real paths: 23 rerank unset, 24 rerank ok, 25 rerank error, 26 with a bad RETRIEVAL_CANDIDATE_K', async () => {
  const run = async (options: Parameters<typeof setup>[0]) => {
    const result = await setup(options).retriever.retrieve(QUERY);
    expect(Object.keys(result.meta).sort()).toEqual([...RETRIEVAL_META_FIELDS].sort());
    return keyCount(result);
  };
  expect(await run({})).toBe(23);
  server.reply(jsonReply({ results: [{ index: 0, relevance_score: 0.4 }] }));
  expect(await run({ rerank: true })).toBe(24);
  server.reply({ status: 503, body: 'busy' });
  expect(await run({ rerank: true })).toBe(25);
  server.reply({ status: 503, body: 'busy' });
  expect(await run({ rerank: true, env: { RETRIEVAL_CANDIDATE_K: 'abc' } })).toBe(26);
});

test('diagnostics of a hybrid run: legs, fused ranks, attempt, timings (1 ms per clock reading)', async () => {
  const result = await setup().retriever.retrieve(QUERY);
  const diagnostics = RetrievalDiagnostics.parse(result.diagnostics);
  expect(diagnostics.legs.dense?.map((c) => [c.chunk_id.slice(-1), c.rank, c.score])).toEqual([['1', 1, 1], ['2', 2, 0.8], ['3', 3, 0.6]]);
  expect(diagnostics.legs.bm25?.map((c) => [c.chunk_id.slice(-1), c.rank, c.score])).toEqual([['2', 1, 2], ['1', 2, 1]]);
  expect(diagnostics.legs.dense_fallback).toBeNull();
  expect(diagnostics.fused.map((c) => [c.chunk_id.slice(-1), c.rank, c.rrf_score, c.dense_rank, c.bm25_rank])).toEqual([
    ['1', 1, T1_T2, 1, 2],
    ['2', 2, T1_T2, 2, 1],
    ['3', 3, 1 / 63, 3, null],
  ]);
  expect(diagnostics.fused[0]?.text_preview).toBe('t1');
  expect(diagnostics.attempts).toEqual([
    { name: 'hybrid', candidate_count: 3, usable: true, top_score: T1_T2, duration_ms: expect.any(Number), error: null },
  ]);
  expect(diagnostics.reranked).toEqual([]);
  expect(diagnostics.embedding_error).toBeNull();
  const { timing_ms: timing } = diagnostics;
  for (const stage of ['embed', 'dense', 'bm25', 'fuse', 'merge', 'rerank'] as const) expect(timing[stage]).toBeGreaterThan(0);
  expect(timing.total).toBeGreaterThanOrEqual((timing.embed ?? 0) + (timing.fuse ?? 0) + (timing.merge ?? 0));
});

test('diagnostics stay bounded: 10 candidates per leg and fused list, however large candidate_k is', async () => {
  const many = Array.from({ length: 40 }, (_, i) => fakeLeaf(i + 1, { text: `leaf ${i + 1} `.repeat(30), dense: axis(1 - i / 100), terms: ['alpha'] }));
  const result = await setup({ env: { RETRIEVAL_TOP_K: '8' }, leaves: new FakeLeafStore(many) }).retriever.retrieve(QUERY);
  const diagnostics = RetrievalDiagnostics.parse(result.diagnostics);
  expect(result.meta.recall_count).toBe(24);
  expect(diagnostics.legs.dense).toHaveLength(10);
  expect(diagnostics.legs.bm25).toHaveLength(10);
  expect(diagnostics.fused).toHaveLength(10);
  expect(diagnostics.legs.dense?.every((c) => c.text_preview.length <= 80)).toBe(true);
  expect(JSON.stringify(diagnostics).length).toBeLessThan(12_000);
});

test('diagnostics of a dense fallback: the failed leg is null, the fallback leg is listed', async () => {
  const leaves = new FakeLeafStore(U13_LEAVES);
  leaves.failBm25 = true;
  const result = await setup({ leaves }).retriever.retrieve(QUERY);
  const diagnostics = RetrievalDiagnostics.parse(result.diagnostics);
  expect(diagnostics.legs.bm25).toBeNull();
  expect(diagnostics.legs.dense).toHaveLength(5);
  expect(diagnostics.legs.dense_fallback?.map((c) => c.score)).toEqual([0.9, 0.8, 0.7, 0.6, 0.5]);
  expect(diagnostics.fused).toEqual([]);
  expect(diagnostics.attempts.map((a) => [a.name, a.usable, a.top_score])).toEqual([
    ['hybrid', false, null],
    ['dense_fallback', true, 0.9],
  ]);
  expect(diagnostics.attempts[0]?.error).toMatch(/^BM25 search failed/);
});
