import { z } from 'zod';
import { type RagConfig } from '../config';
import { pythonInt, pythonStrip } from '../python-text';

// spec §6.2: the trace text when RETRIEVAL_CANDIDATE_K is set but is not an integer.
export const INVALID_CANDIDATE_K = 'invalid RETRIEVAL_CANDIDATE_K';

/** The candidate-pool trace fields (spec §6.9), keyed by their trace names. */
export const CandidateKMeta = z.object({
  candidate_k_source: z.enum(['env', 'multiplier']),
  retrieval_candidate_multiplier: z.number().int().min(1),
  /** Present only when RETRIEVAL_CANDIDATE_K does not parse. */
  candidate_k_config_error: z.literal(INVALID_CANDIDATE_K).optional(),
});
export type CandidateKMeta = z.infer<typeof CandidateKMeta>;

export type CandidateKSettings = Pick<RagConfig['retrieval'], 'candidateMultiplier' | 'candidateKRaw'>;

/**
 * The Milvus candidate pool for a retrieval that keeps `topK` results (spec §6.2, scenarios U01, U02).
 * RETRIEVAL_CANDIDATE_K wins when it is an integer (never below topK); otherwise topK × multiplier.
 * The raw value is parsed here, per call, as the original does, so a bad value shows up in every trace.
 */
export function resolveCandidateK(
  topK: number,
  retrieval: CandidateKSettings,
): { candidateK: number; meta: CandidateKMeta } {
  const multiplier = retrieval.candidateMultiplier;
  const fromMultiplier = Math.max(topK * multiplier, topK);
  const raw = pythonStrip(retrieval.candidateKRaw);
  if (raw === '') {
    return {
      candidateK: fromMultiplier,
      meta: { candidate_k_source: 'multiplier', retrieval_candidate_multiplier: multiplier },
    };
  }
  const fromEnv = pythonInt(raw);
  if (fromEnv === null) {
    return {
      candidateK: fromMultiplier,
      meta: {
        candidate_k_source: 'multiplier',
        retrieval_candidate_multiplier: multiplier,
        candidate_k_config_error: INVALID_CANDIDATE_K,
      },
    };
  }
  return {
    candidateK: Math.max(fromEnv, topK),
    meta: { candidate_k_source: 'env', retrieval_candidate_multiplier: multiplier },
  };
}
