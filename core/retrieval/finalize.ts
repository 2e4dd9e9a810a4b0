import type { Chunk } from '../schemas/retrieved-chunk';
import type { AutoMergeMeta } from './auto-merge';
import type { RerankReplyOutcome } from './rerank-response';
import {
  type FullRetrievalMeta,
  type RecallMode,
  type RetrievalBasis,
  rerankMeta,
  successRetrievalMeta,
} from './retrieval-meta';
import { effectiveScore } from './score-merge';

/*
 * The pure steps of `_finalize_retrieval` (spec §6.4) around its two I/O steps (the parent fetch of auto-merge and
 * the rerank request): numbering, the score-sort fallback, the min-score threshold and the meta.
 */

/**
 * spec §6.6.2 step 1: each candidate gets rrf_rank = its 1-based position in the post-merge list, before any
 * sorting and in every mode (the name does not imply that RRF happened). Returns new chunks.
 */
export function numberCandidates(candidates: readonly Chunk[]): Chunk[] {
  return candidates.map((candidate, index) => ({ ...candidate, rrf_rank: index + 1 }));
}

/**
 * The score-sort fallback (spec §6.6.2 steps 3, 5, 7, 8): effective score descending (rerank_score, else score;
 * missing → 0), stable for equal scores, cut to top_k.
 */
export function scoreSortCut(chunks: readonly Chunk[], topK: number): Chunk[] {
  return [...chunks]
    .sort((a, b) => (effectiveScore(b) ?? 0) - (effectiveScore(a) ?? 0))
    .slice(0, Math.max(0, topK));
}

/**
 * spec §6.4 step 4: an item passes when its effective score is ≥ RERANK_MIN_SCORE; an item without any score
 * passes only when RERANK_MIN_SCORE ≤ 0. Applied whether or not rerank ran.
 */
export function passesMinScore(chunk: Chunk, minScore: number): boolean {
  const score = effectiveScore(chunk);
  return score === undefined ? minScore <= 0 : score >= minScore;
}

/** What the rerank step produced: the post-rerank list (already cut to top_k) and how the step went. */
export type RerankStep = { docs: Chunk[]; applied: boolean; error: string | null };

/** spec §6.6.2 step 3: no candidates, or rerank disabled → no request; the score-sort fallback. */
export function rerankSkipped(numbered: readonly Chunk[], topK: number): RerankStep {
  return { docs: scoreSortCut(numbered, topK), applied: false, error: null };
}

/**
 * A rerank request that was sent (applied = true, spec §6.6.2 step 4) and either read (steps 5–7) or failed in
 * transport (step 8: `error` = the exception text). A `malformed` reply is not handled here: it fails the attempt.
 */
export function rerankAttempted(
  numbered: readonly Chunk[],
  topK: number,
  outcome: Exclude<RerankReplyOutcome, { kind: 'malformed' }>,
): RerankStep {
  if (outcome.kind === 'reranked') return { docs: outcome.docs, applied: true, error: null };
  return { docs: scoreSortCut(numbered, topK), applied: true, error: outcome.error };
}

/**
 * spec §6.4 steps 3–6: the threshold over the post-rerank list, then the meta of the attempt.
 * `candidateCount` is the number of candidates given to rerank (= the post-merge count).
 */
export function finalizeRetrieval(
  basis: RetrievalBasis,
  input: { mode: RecallMode; recallCount: number; merge: AutoMergeMeta; candidateCount: number; rerank: RerankStep },
): { docs: Chunk[]; meta: FullRetrievalMeta } {
  const docs = input.rerank.docs.filter((chunk) => passesMinScore(chunk, basis.rerank.minScore));
  const meta = successRetrievalMeta(basis, {
    mode: input.mode,
    recallCount: input.recallCount,
    merge: input.merge,
    rerank: rerankMeta(basis.rerank, input.candidateCount, input.rerank),
    postRerankCount: input.rerank.docs.length,
    postThresholdCount: docs.length,
  });
  return { docs, meta };
}
