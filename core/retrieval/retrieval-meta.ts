import type { RagConfig } from '../config';
import type { RetrievalMeta } from '../trace/raw-trace';
import type { AutoMergeMeta } from './auto-merge';
import type { CandidateKMeta } from './candidate-k';
import type { RerankSettings } from './rerank-config';

/*
 * The retrieval meta, the "R group" of spec §6.9: all 26 fields on every path, null where a field is not produced
 * (trace writers drop nulls, spec §6.9 first line). Typical non-null counts: 23 with rerank unset, 24 with a
 * successful rerank, 25 with a rerank error, 24 on the failure paths with rerank unset; +1 with a candidate-K error.
 */

// spec §6.4: the only pipeline name of v0.1.0.
export const RETRIEVAL_PIPELINE = 'recall_merge_rerank';
// spec §6.1 step 2 / step 5: the rerank_error texts of the two failure paths.
export const EMBEDDING_FAILED = 'embedding_failed';
export const RETRIEVE_FAILED = 'retrieve_failed';

export type RecallMode = 'hybrid' | 'dense_fallback';
export type FailureReason = typeof EMBEDDING_FAILED | typeof RETRIEVE_FAILED;

/** Every field of the R group, each written (null where not produced). */
export type FullRetrievalMeta = Required<RetrievalMeta>;

/** What one retrieval is configured with: the settings the meta reports, and the candidate pool of spec §6.2. */
export type RetrievalBasis = {
  topK: number;
  candidateK: number;
  candidateMeta: CandidateKMeta;
  leafRetrieveLevel: number;
  autoMerge: RagConfig['autoMerge'];
  rerank: RerankSettings;
};

/** The rerank part of the meta (spec §6.6.2 step 2), as the rerank step left it. */
export type RerankMeta = Pick<
  FullRetrievalMeta,
  | 'rerank_enabled'
  | 'rerank_applied'
  | 'rerank_model'
  | 'rerank_endpoint'
  | 'rerank_error'
  | 'rerank_timeout_seconds'
  | 'candidate_count'
>;

/** spec §6.6.2 step 2, plus the step's outcome: applied iff a request was attempted, error null on success. */
export function rerankMeta(
  rerank: RerankSettings,
  candidateCount: number,
  outcome: { applied: boolean; error: string | null },
): RerankMeta {
  return {
    rerank_enabled: rerank.enabled,
    rerank_applied: outcome.applied,
    rerank_model: rerank.model,
    rerank_endpoint: rerank.endpoint,
    rerank_error: outcome.error,
    rerank_timeout_seconds: rerank.timeoutSeconds,
    candidate_count: candidateCount,
  };
}

/** The fields every path reports from configuration alone, in the protocol's order (spec §6.9). */
function configured(basis: RetrievalBasis, rerank: RerankMeta, mode: RecallMode | 'failed'): FullRetrievalMeta {
  return {
    ...rerank,
    rerank_min_score: basis.rerank.minScore,
    post_rerank_count: 0,
    post_threshold_count: 0,
    retrieval_empty: true,
    retrieval_mode: mode,
    retrieval_pipeline: RETRIEVAL_PIPELINE,
    candidate_k: basis.candidateK,
    candidate_k_source: basis.candidateMeta.candidate_k_source,
    candidate_k_config_error: basis.candidateMeta.candidate_k_config_error ?? null,
    retrieval_candidate_multiplier: basis.candidateMeta.retrieval_candidate_multiplier,
    retrieval_top_k: basis.topK,
    recall_count: 0,
    post_merge_candidate_count: 0,
    leaf_retrieve_level: basis.leafRetrieveLevel,
    auto_merge_enabled: basis.autoMerge.enabled,
    auto_merge_applied: false,
    auto_merge_threshold: basis.autoMerge.threshold,
    auto_merge_replaced_chunks: 0,
    auto_merge_steps: 0,
  };
}

/**
 * The meta of a successful recall (spec §6.4 step 5): rerank meta ∪ merge meta ∪ candidate config ∪ mode, pipeline,
 * candidate_k, top_k, leaf level, recall count, min score and the three final counts.
 */
export function successRetrievalMeta(
  basis: RetrievalBasis,
  result: {
    mode: RecallMode;
    recallCount: number;
    merge: AutoMergeMeta;
    rerank: RerankMeta;
    postRerankCount: number;
    postThresholdCount: number;
  },
): FullRetrievalMeta {
  return {
    ...configured(basis, result.rerank, result.mode),
    ...result.merge,
    post_rerank_count: result.postRerankCount,
    post_threshold_count: result.postThresholdCount,
    retrieval_empty: result.postThresholdCount === 0,
    recall_count: result.recallCount,
  };
}

/**
 * The failure meta (spec §6.1 steps 2 and 5, §6.9 right column): mode "failed", every count 0, nothing merged or
 * applied, retrieval_empty true, rerank_error = the reason; configuration fields as on success.
 */
export function failedRetrievalMeta(basis: RetrievalBasis, reason: FailureReason): FullRetrievalMeta {
  return configured(basis, rerankMeta(basis.rerank, 0, { applied: false, error: reason }), 'failed');
}
