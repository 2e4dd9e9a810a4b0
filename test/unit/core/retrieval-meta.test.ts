import { autoMergeMeta } from '../../../core/retrieval/auto-merge';
import { resolveCandidateK } from '../../../core/retrieval/candidate-k';
import { resolveRerankSettings } from '../../../core/retrieval/rerank-config';
import {
  EMBEDDING_FAILED,
  failedRetrievalMeta,
  RETRIEVAL_PIPELINE,
  RETRIEVE_FAILED,
  type RetrievalBasis,
  rerankMeta,
  successRetrievalMeta,
} from '../../../core/retrieval/retrieval-meta';
import { RETRIEVAL_META_FIELDS } from '../../../core/schemas/rag-trace';
import { nonNullRetrievalMeta } from '../../../core/trace/fragment';

/*
 * The R group of spec §6.9: all 26 keys on every path (null where not produced), and the verified typical counts of
 * non-null keys: 23 rerank unset, 24 rerank ok, 25 rerank error, +1 with a candidate-K config error; failure paths
 * 24 with rerank unset (rerank_error set, rerank_model and candidate_k_config_error null).
 */

const RERANK_ON = { model: 'jina-reranker-v2', host: 'https://h/', apiKey: 'k', timeoutSeconds: 5, minScore: 0 };

function basis(options: { rerank?: boolean; candidateKRaw?: string } = {}): RetrievalBasis {
  const { candidateK, meta } = resolveCandidateK(8, { candidateMultiplier: 3, candidateKRaw: options.candidateKRaw ?? '' });
  return {
    topK: 8,
    candidateK,
    candidateMeta: meta,
    leafRetrieveLevel: 3,
    autoMerge: { enabled: true, threshold: 2 },
    rerank: resolveRerankSettings(options.rerank ? RERANK_ON : { timeoutSeconds: 5, minScore: 0 }),
  };
}

function success(b: RetrievalBasis, outcome: { applied: boolean; error: string | null }, n = 3) {
  return successRetrievalMeta(b, {
    mode: 'hybrid',
    recallCount: n,
    merge: autoMergeMeta({ enabled: true, threshold: 2, replacedPerPass: [0, 0], resultCount: n }),
    rerank: rerankMeta(b.rerank, n, outcome),
    postRerankCount: n,
    postThresholdCount: n,
  });
}

const nonNullCount = (meta: object) => Object.keys(nonNullRetrievalMeta(meta)).length;

test('M0: the success meta with default config and rerank unset, exactly (spec §9 conventions)', () => {
  const meta = success(basis(), { applied: false, error: null });
  expect(meta).toEqual({
    retrieval_pipeline: 'recall_merge_rerank',
    retrieval_mode: 'hybrid',
    candidate_k: 24,
    candidate_k_source: 'multiplier',
    candidate_k_config_error: null,
    retrieval_candidate_multiplier: 3,
    retrieval_top_k: 8,
    leaf_retrieve_level: 3,
    recall_count: 3,
    post_merge_candidate_count: 3,
    candidate_count: 3,
    auto_merge_enabled: true,
    auto_merge_applied: false,
    auto_merge_threshold: 2,
    auto_merge_replaced_chunks: 0,
    auto_merge_steps: 0,
    rerank_enabled: false,
    rerank_applied: false,
    rerank_model: null,
    rerank_endpoint: '',
    rerank_error: null,
    rerank_timeout_seconds: 5,
    rerank_min_score: 0,
    post_rerank_count: 3,
    post_threshold_count: 3,
    retrieval_empty: false,
  });
  expect(RETRIEVAL_PIPELINE).toBe('recall_merge_rerank');
});

test('every path writes exactly the 26 R keys', () => {
  const metas = [
    success(basis(), { applied: false, error: null }),
    success(basis({ rerank: true }), { applied: true, error: 'HTTP 500: boom' }),
    failedRetrievalMeta(basis(), EMBEDDING_FAILED),
    failedRetrievalMeta(basis({ candidateKRaw: 'abc' }), RETRIEVE_FAILED),
  ];
  for (const meta of metas) expect(Object.keys(meta).sort()).toEqual([...RETRIEVAL_META_FIELDS].sort());
  expect(RETRIEVAL_META_FIELDS).toHaveLength(26);
});

test('§6.9 typical counts: 23 rerank unset, 24 rerank ok, 25 rerank error, 26 with a candidate-K error too', () => {
  expect(nonNullCount(success(basis(), { applied: false, error: null }))).toBe(23);
  expect(nonNullCount(success(basis({ rerank: true }), { applied: true, error: null }))).toBe(24);
  expect(nonNullCount(success(basis({ rerank: true }), { applied: true, error: 'empty_rerank_results' }))).toBe(25);
  expect(nonNullCount(success(basis({ rerank: true, candidateKRaw: 'abc' }), { applied: true, error: 'x' }))).toBe(26);
  expect(nonNullCount(success(basis({ candidateKRaw: 'abc' }), { applied: false, error: null }))).toBe(24);
});

test('U11 embedding_failed: mode failed, all counts 0, nothing merged or applied, retrieval_empty, config kept', () => {
  const meta = failedRetrievalMeta(basis(), EMBEDDING_FAILED);
  expect(meta).toEqual({
    retrieval_pipeline: 'recall_merge_rerank',
    retrieval_mode: 'failed',
    candidate_k: 24,
    candidate_k_source: 'multiplier',
    candidate_k_config_error: null,
    retrieval_candidate_multiplier: 3,
    retrieval_top_k: 8,
    leaf_retrieve_level: 3,
    recall_count: 0,
    post_merge_candidate_count: 0,
    candidate_count: 0,
    auto_merge_enabled: true,
    auto_merge_applied: false,
    auto_merge_threshold: 2,
    auto_merge_replaced_chunks: 0,
    auto_merge_steps: 0,
    rerank_enabled: false,
    rerank_applied: false,
    rerank_model: null,
    rerank_endpoint: '',
    rerank_error: 'embedding_failed',
    rerank_timeout_seconds: 5,
    rerank_min_score: 0,
    post_rerank_count: 0,
    post_threshold_count: 0,
    retrieval_empty: true,
  });
  expect(nonNullCount(meta)).toBe(24);
});

test('U12 retrieve_failed with rerank configured and a bad candidate K: rerank config shown, applied false', () => {
  const meta = failedRetrievalMeta(basis({ rerank: true, candidateKRaw: 'abc' }), RETRIEVE_FAILED);
  expect(meta).toMatchObject({
    retrieval_mode: 'failed',
    rerank_error: 'retrieve_failed',
    rerank_enabled: true,
    rerank_applied: false,
    rerank_model: 'jina-reranker-v2',
    rerank_endpoint: 'https://h/v1/rerank',
    candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K',
    candidate_count: 0,
  });
  expect(nonNullCount(meta)).toBe(26);
});

test('success with no candidates: retrieval_empty, not a failure (spec §6.1 last line)', () => {
  const meta = success(basis(), { applied: false, error: null }, 0);
  expect(meta).toMatchObject({ retrieval_mode: 'hybrid', retrieval_empty: true, recall_count: 0, rerank_error: null });
});
