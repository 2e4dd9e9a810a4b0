/**
 * retrieve_documents (spec §6.1–§6.9) end to end on the real services, for each parent store (SQLite file and
 * PostgreSQL): the retriever and stores come from workers/build-adapters.ts with a configuration parsed like a
 * worker's, the corpus (test/support/corpus.ts) is ingested by the real ingest activity into a fresh Milvus Lite
 * collection, queries are embedded by the embeddings server, rerank goes to a loopback Jina-compatible server.
 * Covers the known winners of a Chinese + English corpus, the R group of §6.9 through configuration (U01, U02),
 * and auto-merge against the real parent store (U13, U14 on real data). Rerank: retrieve-milvus-rerank.test.ts;
 * failures and re-ingestion: retrieve-milvus-failures.test.ts.
 */
import Database from 'better-sqlite3';
import * as path from 'node:path';
import { retrievalActivities } from '../../activities/retrieval-activities';
import { RETRIEVAL_META_FIELDS } from '../../core/schemas/rag-trace';
import { RetrievalDiagnostics } from '../../core/schemas/retrieval-diagnostics';
import { BEES, SHORT_DOCS } from '../support/corpus';
import { PARENT_BACKENDS, RealKnowledgeBase } from '../support/real-knowledge-base';
import { closedPort, jsonReply, LoopbackRerankServer, type RerankScript } from '../support/rerank-server';

let rerank: LoopbackRerankServer;
beforeAll(async () => {
  rerank = await LoopbackRerankServer.start();
});
afterAll(async () => rerank.close());
afterEach(() => rerank.reset());

const WITHOUT = (...fields: string[]) => RETRIEVAL_META_FIELDS.filter((f) => !fields.includes(f)).sort();

describe.each(PARENT_BACKENDS)('retrieval on Milvus Lite with the $name parent store', (backend) => {
  let kb: RealKnowledgeBase;
  let leafTotal = 0;
  const id = (file: string, level: number, n = 0) => `${kb.filename(file)}::p0::l${level}::${n}`;
  const retrieve = (query: string) => kb.adapters.retriever.retrieve(query);
  const beeIds = () => ({ l1: id(BEES.file, 1), l2: [id(BEES.file, 2, 0), id(BEES.file, 2, 1)] });
  const isBee = (chunkId: string | undefined) => chunkId?.startsWith(kb.filename(BEES.file)) ?? false;

  beforeAll(async () => {
    kb = await RealKnowledgeBase.open(backend, 'retrieve');
    for (const doc of SHORT_DOCS) leafTotal += (await kb.ingestFile(doc.file, doc.text)).l3;
    const bees = await kb.ingestFile(BEES.file, BEES.text);
    expect([bees.l1, bees.l2, bees.l3]).toEqual([1, 2, 5]); // the hierarchy the merge tests rely on
    leafTotal += bees.l3;
  }, 180_000);
  afterAll(async () => kb?.close());

  test.each(SHORT_DOCS.map((doc) => [doc.query, doc] as const))('known winner: %s', async (_query, doc) => {
    const result = await retrieve(doc.query);
    const winner = id(doc.file, 3);
    expect(result.meta.retrieval_mode).toBe('hybrid');
    expect(result.docs[0]).toMatchObject({ chunk_id: winner, text: doc.text, filename: kb.filename(doc.file), page_number: 0, rrf_rank: 1 });
    const diagnostics = RetrievalDiagnostics.parse(result.diagnostics);
    const denseRank = diagnostics.legs.dense?.find((c) => c.chunk_id === winner)?.rank;
    const bm25Rank = diagnostics.legs.bm25?.find((c) => c.chunk_id === winner)?.rank;
    expect([denseRank, bm25Rank]).toEqual([1, 1]);
    expect(diagnostics.fused[0]).toMatchObject({ chunk_id: winner, rank: 1, dense_rank: 1, bm25_rank: 1, rrf_score: 2 / 61 });
    expect(result.docs[0]?.score).toBeCloseTo(2 / 61, 12);
  });

  // The bee leaves are always recalled (the corpus is smaller than candidate_k) and always merge: 5 + 2 replaced.
  const hybridDefaults = () => ({
    retrieval_pipeline: 'recall_merge_rerank',
    retrieval_mode: 'hybrid',
    candidate_k: 24,
    candidate_k_source: 'multiplier',
    retrieval_candidate_multiplier: 3,
    retrieval_top_k: 8,
    leaf_retrieve_level: 3,
    recall_count: leafTotal,
    post_merge_candidate_count: leafTotal - 4,
    candidate_count: leafTotal - 4,
    auto_merge_enabled: true,
    auto_merge_applied: true,
    auto_merge_threshold: 2,
    auto_merge_replaced_chunks: 7,
    auto_merge_steps: 2,
    rerank_enabled: false,
    rerank_applied: false,
    rerank_endpoint: '',
    rerank_timeout_seconds: 5,
    rerank_min_score: 0,
    post_rerank_count: Math.min(8, leafTotal - 4),
    post_threshold_count: Math.min(8, leafTotal - 4),
    retrieval_empty: false,
  });

  test('U01 through the retrieve activity: the R group with rerank unset is exactly these 23 keys and values', async () => {
    const { data, traceFragment } = await retrievalActivities(kb.adapters.retriever).retrieve({ query: SHORT_DOCS[0]!.query, purpose: 'initial' });
    expect(traceFragment).toEqual({ replacesRetrievalMeta: true, fields: hybridDefaults() });
    expect(Object.keys(traceFragment.fields).sort()).toEqual(WITHOUT('rerank_model', 'rerank_error', 'candidate_k_config_error'));
    expect(Object.keys(data.meta).sort()).toEqual([...RETRIEVAL_META_FIELDS].sort()); // all 26, nulls included
  });

  type MetaCase = [string, Record<string, string>, RerankScript | null, number, Record<string, unknown>];
  const RERANK_OK = jsonReply({ results: [{ index: 1, relevance_score: 0.7 }, { index: 0, relevance_score: 0.2 }] });
  const metaCases: MetaCase[] = [
    ['U02 RETRIEVAL_CANDIDATE_K=30 → 30 from env', { RETRIEVAL_CANDIDATE_K: '30' }, null, 23, { candidate_k: 30, candidate_k_source: 'env' }],
    ['U02 RETRIEVAL_CANDIDATE_K=5 → 8 from env; Milvus recalls 8', { RETRIEVAL_CANDIDATE_K: '5' }, null, 23, { candidate_k: 8, candidate_k_source: 'env', recall_count: 8 }],
    [
      'U02 RETRIEVAL_CANDIDATE_K=abc → 24 from the multiplier and the config error (24 keys)',
      { RETRIEVAL_CANDIDATE_K: 'abc' },
      null,
      24,
      { candidate_k: 24, candidate_k_source: 'multiplier', candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K' },
    ],
    ['rerank configured and successful → 24 keys', {}, RERANK_OK, 24, { rerank_applied: true, rerank_model: 'jina-reranker-v2-base-multilingual', post_rerank_count: 2 }],
    ['rerank error → 25 keys', {}, { status: 503, body: 'busy' }, 25, { rerank_applied: true, rerank_error: 'HTTP 503: busy' }],
    ['rerank error and RETRIEVAL_CANDIDATE_K=abc → 26 keys', { RETRIEVAL_CANDIDATE_K: 'abc' }, { status: 503, body: 'busy' }, 26, { candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K' }],
  ];
  test.each(metaCases)('%s', async (_name, env, reply, keys, expected) => {
    const rerankEnv = reply ? { RERANK_MODEL: 'jina-reranker-v2-base-multilingual', RERANK_BINDING_HOST: rerank.host, RERANK_API_KEY: 'k' } : {};
    if (reply) rerank.reply(reply);
    const { retriever } = kb.build({ ...rerankEnv, ...env });
    const { traceFragment } = await retrievalActivities(retriever).retrieve({ query: SHORT_DOCS[1]!.query, purpose: 'initial' });
    expect(traceFragment.fields).toMatchObject({ retrieval_mode: 'hybrid', ...expected });
    expect(Object.keys(traceFragment.fields)).toHaveLength(keys);
    if (reply === RERANK_OK) expect(traceFragment.fields).not.toHaveProperty('rerank_error');
    expect(rerank.requests).toHaveLength(reply ? 1 : 0);
  });

  test('U13 on real data: the bee leaves merge L3 → L2 → L1; the L1 comes from the parent store with the best child score', async () => {
    const { l1, l2 } = beeIds();
    const result = await retrieve(BEES.query);
    const [top] = result.docs;
    const [stored] = await kb.adapters.parentStore.getByIds([l1]);
    expect(stored?.text).toBe(BEES.text); // one L1 holds the whole file
    expect(top).toMatchObject({ chunk_id: l1, chunk_level: 1, text: stored?.text, merged_from_children: true, merged_child_count: 2, rrf_rank: 1 });
    // file_path is the document id (DESIGN §4b): here the run-tagged file name (test/support/real-knowledge-base.ts).
    expect(top).toHaveProperty('file_path', kb.filename(BEES.file));
    const diagnostics = RetrievalDiagnostics.parse(result.diagnostics);
    const beeScores = diagnostics.fused.filter((c) => isBee(c.chunk_id)).map((c) => c.rrf_score);
    expect(beeScores).toHaveLength(5);
    expect(top?.score).toBe(Math.max(...beeScores));
    expect(result.docs.filter((d) => isBee(d.chunk_id)).map((d) => d.chunk_id)).toEqual([l1]);
    expect(result.meta).toMatchObject({ auto_merge_applied: true, auto_merge_replaced_chunks: 7, auto_merge_steps: 2, recall_count: leafTotal, post_merge_candidate_count: leafTotal - 4 });
    const groups = diagnostics.merge_groups.map((g) => [g.parent_chunk_id, g.level, g.child_count]).sort();
    expect(groups).toEqual([[l1, 1, 2], [l2[0], 2, 3], [l2[1], 2, 2]].sort());

    // The text is read from the parent store at retrieval time: edit it there and the merged parent follows.
    const rows = await kb.adapters.parentStore.getByIds([l1, ...l2]);
    const filename = kb.filename(BEES.file);
    await kb.adapters.parentStore.replaceDocument(filename, rows.map((r) => (r.chunk_id === l1 ? { ...r, text: `[edited] ${r.text}` } : r)));
    try {
      expect((await retrieve(BEES.query)).docs[0]?.text).toBe(`[edited] ${BEES.text}`);
    } finally {
      await kb.adapters.parentStore.replaceDocument(filename, rows);
    }
  });

  test('AUTO_MERGE_THRESHOLD=3 on real data: only the L2 with 3 recalled leaves merges; one pass, 3 replaced', async () => {
    const { l2 } = beeIds();
    const { retriever } = kb.build({ AUTO_MERGE_THRESHOLD: '3' });
    const result = await retriever.retrieve(BEES.query);
    const bees = result.docs.filter((d) => isBee(d.chunk_id));
    expect(bees.map((d) => [d.chunk_id, d.merged_child_count]).sort()).toEqual(
      [[l2[0], 3], [id(BEES.file, 3, 3), undefined], [id(BEES.file, 3, 4), undefined]].sort(),
    );
    expect(result.meta).toMatchObject({ auto_merge_applied: true, auto_merge_replaced_chunks: 3, auto_merge_steps: 1, auto_merge_threshold: 3 });
  });

  test('U14 on real data: parents missing from the parent store → the leaves stay; applied false, replaced 0', async () => {
    const { l1, l2 } = beeIds();
    const filename = kb.filename(BEES.file);
    const rows = await kb.adapters.parentStore.getByIds([l1, ...l2]);
    await kb.adapters.parentStore.deleteDocument(filename);
    try {
      const result = await retrieve(BEES.leafQuery);
      expect(result.docs[0]).toMatchObject({ filename, chunk_level: 3, rrf_rank: 1 });
      expect(result.docs[0]?.text).toContain('waggle dance');
      expect(result.docs.filter((d) => isBee(d.chunk_id)).every((d) => d.chunk_level === 3 && d.merged_from_children === undefined)).toBe(true);
      expect(result.meta).toMatchObject({ retrieval_mode: 'hybrid', auto_merge_applied: false, auto_merge_replaced_chunks: 0, auto_merge_steps: 0, post_merge_candidate_count: leafTotal });
      expect(result.diagnostics?.merge_groups).toEqual([]);
    } finally {
      await kb.adapters.parentStore.replaceDocument(filename, rows);
    }
  });

  test('a parent store failing during the merge fails both attempts → failed, retrieve_failed; no merge needed → hybrid', async () => {
    let env: Record<string, string> = {};
    let restore = async () => undefined;
    if (backend.name === 'PostgreSQL') {
      env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/ragtime_test` };
    } else {
      // The table gone from the SQLite file (e.g. another tool dropped it); the store's migrations have already run.
      const sqlite = new Database(path.join(kb.dir, 'ragtime.sqlite'));
      sqlite.exec('ALTER TABLE parent_chunks RENAME TO parent_chunks_away');
      restore = async () => {
        sqlite.exec('ALTER TABLE parent_chunks_away RENAME TO parent_chunks');
        sqlite.close();
      };
    }
    try {
      const failed = await kb.build(env).retriever.retrieve(BEES.query);
      expect(failed.docs).toEqual([]);
      expect(failed.meta).toMatchObject({ retrieval_mode: 'failed', rerank_error: 'retrieve_failed', recall_count: 0, candidate_count: 0, post_merge_candidate_count: 0, auto_merge_applied: false });
      const attempts = failed.diagnostics?.attempts ?? [];
      expect(attempts.map((a) => [a.name, a.candidate_count])).toEqual([['hybrid', leafTotal], ['dense_fallback', leafTotal]]);
      // PostgreSQL down: the store's first operation (its migrations) cannot connect; SQLite: the lookup itself fails.
      const why = backend.name === 'PostgreSQL' ? /^parent store migration failed \(postgres:.*ECONNREFUSED/ : /^parent store getByIds failed .*no such table: parent_chunks/;
      for (const a of attempts) expect(a.error).toMatch(why);
      // One leaf recalled: nothing to merge, so the parent store is never asked.
      const single = await kb.build({ ...env, RETRIEVAL_TOP_K: '1', RETRIEVAL_CANDIDATE_K: '1' }).retriever.retrieve(SHORT_DOCS[0]!.query);
      expect(single.meta).toMatchObject({ retrieval_mode: 'hybrid', recall_count: 1, post_threshold_count: 1 });
    } finally {
      await restore();
    }
  });
});
