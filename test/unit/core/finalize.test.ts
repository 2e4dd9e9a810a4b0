import { autoMergeMeta } from '../../../core/retrieval/auto-merge';
import { resolveCandidateK } from '../../../core/retrieval/candidate-k';
import {
  finalizeRetrieval,
  numberCandidates,
  passesMinScore,
  rerankAttempted,
  rerankSkipped,
  scoreSortCut,
} from '../../../core/retrieval/finalize';
import { resolveRerankSettings } from '../../../core/retrieval/rerank-config';
import type { RetrievalBasis } from '../../../core/retrieval/retrieval-meta';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

/* `_finalize_retrieval`'s pure steps (spec §6.4, §6.6.2 steps 1–3): numbering, score-sort fallback, threshold. */

const chunk = (id: string, fields: Partial<Chunk> = {}): Chunk => ({ chunk_id: id, filename: 'doc.pdf', text: id, ...fields });
const ids = (chunks: readonly Chunk[]) => chunks.map((c) => c.chunk_id);

function basis(overrides: { topK?: number; minScore?: number } = {}): RetrievalBasis {
  const topK = overrides.topK ?? 8;
  const { candidateK, meta } = resolveCandidateK(topK, { candidateMultiplier: 3, candidateKRaw: '' });
  return {
    topK,
    candidateK,
    candidateMeta: meta,
    leafRetrieveLevel: 3,
    autoMerge: { enabled: true, threshold: 2 },
    rerank: resolveRerankSettings({ timeoutSeconds: 5, minScore: overrides.minScore ?? 0 }),
  };
}

const noMerge = (count: number) => autoMergeMeta({ enabled: true, threshold: 2, replacedPerPass: [0, 0], resultCount: count });

test('rrf_rank = 1-based post-merge position, set on copies, whatever the mode', () => {
  const input = [chunk('a', { score: 0.1 }), chunk('b', { score: 0.9 })];
  expect(numberCandidates(input).map((c) => [c.chunk_id, c.rrf_rank])).toEqual([['a', 1], ['b', 2]]);
  expect(input[0]).not.toHaveProperty('rrf_rank');
});

test('score-sort fallback: effective score (rerank_score first) descending, missing → 0, stable, cut to top_k', () => {
  const input = [
    chunk('none'),
    chunk('low', { score: 0.1 }),
    chunk('tie1', { score: 0.5 }),
    chunk('reranked', { score: 0.01, rerank_score: 0.7 }),
    chunk('tie2', { score: 0.5 }),
    chunk('negative', { score: -0.2 }),
  ];
  expect(ids(scoreSortCut(input, 10))).toEqual(['reranked', 'tie1', 'tie2', 'low', 'none', 'negative']);
  expect(ids(scoreSortCut(input, 2))).toEqual(['reranked', 'tie1']);
  expect(scoreSortCut(input, 0)).toEqual([]);
});

test('min-score test on the effective score; ≥ passes; no score passes only when the threshold is ≤ 0', () => {
  expect(passesMinScore(chunk('a', { score: 0.1 }), 0.1)).toBe(true);
  expect(passesMinScore(chunk('a', { score: 0.09 }), 0.1)).toBe(false);
  expect(passesMinScore(chunk('a', { score: 0.01, rerank_score: 0.5 }), 0.1)).toBe(true);
  expect(passesMinScore(chunk('a', { score: 0.9, rerank_score: 0.05 }), 0.1)).toBe(false);
  expect(passesMinScore(chunk('a'), 0)).toBe(true);
  expect(passesMinScore(chunk('a'), -1)).toBe(true);
  expect(passesMinScore(chunk('a'), 0.01)).toBe(false);
  expect(passesMinScore(chunk('a', { score: -0.5 }), -1)).toBe(true); // RERANK_MIN_SCORE is not clamped
});

test('rerank skipped (disabled or no candidates) → score sort, applied false, no error', () => {
  const numbered = numberCandidates([chunk('a', { score: 0.01 }), chunk('b', { score: 0.02 })]);
  expect(rerankSkipped(numbered, 1)).toEqual({ docs: [numbered[1]], applied: false, error: null });
  expect(rerankSkipped([], 8)).toEqual({ docs: [], applied: false, error: null });
});

test('rerank attempted: reranked docs as given; a failure keeps applied true, records the error, score-sorts', () => {
  const numbered = numberCandidates([chunk('a', { score: 0.01 }), chunk('b', { score: 0.02 }), chunk('c', { score: 0.03 })]);
  const reranked = [{ ...numbered[0], rerank_score: 0.9 }];
  expect(rerankAttempted(numbered, 2, { kind: 'reranked', docs: reranked })).toEqual({ docs: reranked, applied: true, error: null });
  const failed = rerankAttempted(numbered, 2, { kind: 'failed', error: 'HTTP 500: boom' });
  expect(failed.applied).toBe(true);
  expect(failed.error).toBe('HTTP 500: boom');
  expect(ids(failed.docs)).toEqual(['c', 'b']);
});

test('U10 rerank off, RERANK_MIN_SCORE 0.1, hybrid RRF scores ≈ 0.03 → post_rerank 2, post_threshold 0, empty', () => {
  const numbered = numberCandidates([1, 2, 3].map((n) => chunk(`c${n}`, { score: 1 / (60 + n) + 1 / (60 + n) })));
  const result = finalizeRetrieval(basis({ topK: 2, minScore: 0.1 }), {
    mode: 'hybrid',
    recallCount: 3,
    merge: noMerge(3),
    candidateCount: 3,
    rerank: rerankSkipped(numbered, 2),
  });
  expect(result.docs).toEqual([]);
  expect(result.meta).toMatchObject({
    post_rerank_count: 2,
    post_threshold_count: 0,
    retrieval_empty: true,
    rerank_min_score: 0.1,
    rerank_applied: false,
    candidate_count: 3,
    recall_count: 3,
    retrieval_mode: 'hybrid',
  });
});

test('finalize keeps the post-rerank order and reports the counts of each step (spec §6.4 step 5)', () => {
  const numbered = numberCandidates([chunk('a', { score: 0.5 }), chunk('b', { score: 0.05 }), chunk('c', { score: 0.2 })]);
  const result = finalizeRetrieval(basis({ topK: 3, minScore: 0.1 }), {
    mode: 'dense_fallback',
    recallCount: 4,
    merge: autoMergeMeta({ enabled: true, threshold: 2, replacedPerPass: [2, 0], resultCount: 3 }),
    candidateCount: 3,
    rerank: rerankSkipped(numbered, 3),
  });
  expect(ids(result.docs)).toEqual(['a', 'c']);
  expect(result.docs.map((d) => d.rrf_rank)).toEqual([1, 3]);
  expect(result.meta).toMatchObject({
    retrieval_mode: 'dense_fallback',
    recall_count: 4,
    post_merge_candidate_count: 3,
    auto_merge_applied: true,
    auto_merge_replaced_chunks: 2,
    auto_merge_steps: 1,
    candidate_count: 3,
    post_rerank_count: 3,
    post_threshold_count: 2,
    retrieval_empty: false,
  });
});
