import { z } from 'zod';
import { ChunkingVersion } from '../ingest/leaf-context';

/*
 * Retrieval diagnostics beside the 59-field protocol (DESIGN §5 layer A, issue 4 §3), after NexaRAG's retrieval
 * trace (seed 003): what each leg recalled, how RRF fused it, which children auto-merge folded into which parent,
 * how rerank moved the candidates, every recall attempt and per-stage timings. Bounded: at most 10 items per list
 * (NexaRAG's MAX_TRACE_ITEMS), chunk text only as an 80-character preview, error texts cut to 300 characters.
 */

export const DIAGNOSTICS_MAX_ITEMS = 10;
export const DIAGNOSTICS_PREVIEW_CHARS = 80;
export const DIAGNOSTICS_ERROR_CHARS = 300;

const rank = z.number().int().min(1);
const count = z.number().int().min(0);
const preview = z.string().max(DIAGNOSTICS_PREVIEW_CHARS);
const errorText = z.string().max(DIAGNOSTICS_ERROR_CHARS);
const bounded = <T extends z.ZodType>(item: T) => z.array(item).max(DIAGNOSTICS_MAX_ITEMS);

/** One hit of a recall leg, as the store ranked it. `score`: the leg's own score (IP or BM25 relevance). */
export const LegCandidate = z.strictObject({
  chunk_id: z.string(),
  filename: z.string(),
  rank,
  score: z.number().nullable(),
  text_preview: preview,
});
export type LegCandidate = z.infer<typeof LegCandidate>;

/** One hit of the fused list: its RRF score and its rank in each leg (null when that leg did not return it). */
export const FusedCandidate = z.strictObject({
  chunk_id: z.string(),
  filename: z.string(),
  rank,
  rrf_score: z.number(),
  dense_rank: rank.nullable(),
  bm25_rank: rank.nullable(),
  text_preview: preview,
});
export type FusedCandidate = z.infer<typeof FusedCandidate>;

/** A parent that replaced children: `level` is the parent's chunk_level (2 in pass 1, 1 in pass 2). */
export const MergeGroup = z.strictObject({
  parent_chunk_id: z.string(),
  level: z.number().int(),
  child_count: z.number().int().min(1),
  child_chunk_ids: bounded(z.string()),
});
export type MergeGroup = z.infer<typeof MergeGroup>;

/** A candidate in the reranker's order: `before_rank` = its post-merge position (rrf_rank), `rank` = after. */
export const RerankedCandidate = z.strictObject({
  chunk_id: z.string(),
  filename: z.string(),
  rank,
  before_rank: rank.nullable(),
  rerank_score: z.number().nullable(),
  score: z.number().nullable(),
  text_preview: preview,
});
export type RerankedCandidate = z.infer<typeof RerankedCandidate>;

/**
 * One recall attempt (spec §6.1 steps 3–4). `candidate_count`: hits recalled (0 when recall failed); `top_score`:
 * the best recall score (RRF score for hybrid, inner product for dense_fallback); `usable`: the attempt completed
 * and kept at least one document after the threshold; `error`: why the attempt failed, else null.
 */
export const RetrievalAttempt = z.strictObject({
  name: z.enum(['hybrid', 'dense_fallback']),
  candidate_count: count,
  usable: z.boolean(),
  top_score: z.number().nullable(),
  duration_ms: z.number().min(0),
  error: errorText.nullable(),
});
export type RetrievalAttempt = z.infer<typeof RetrievalAttempt>;

const stageMs = z.number().min(0).nullable();

/** Milliseconds per stage, summed over attempts; null for a stage that never ran. */
export const RetrievalTimings = z.strictObject({
  embed: stageMs,
  dense: stageMs,
  bm25: stageMs,
  fuse: stageMs,
  merge: stageMs,
  rerank: stageMs,
  total: z.number().min(0),
});
export type RetrievalTimings = z.infer<typeof RetrievalTimings>;
export type RetrievalStage = Exclude<keyof RetrievalTimings, 'total'>;

/**
 * The diagnostics of one retrieval. Legs are null when not searched (`dense_fallback` is the fallback's single
 * dense search). `fused`, `merge_groups` and `reranked` come from the last attempt that reached that stage;
 * `reranked` is empty unless the reranker's order was used.
 */
export const RetrievalDiagnostics = z.strictObject({
  embedding_error: errorText.nullable(),
  legs: z.strictObject({
    dense: bounded(LegCandidate).nullable(),
    bm25: bounded(LegCandidate).nullable(),
    dense_fallback: bounded(LegCandidate).nullable(),
  }),
  fused: bounded(FusedCandidate),
  merge_groups: bounded(MergeGroup),
  reranked: bounded(RerankedCandidate),
  attempts: z.array(RetrievalAttempt).max(2),
  timing_ms: RetrievalTimings,
  /**
   * How the searched knowledge base's leaves were chunked (issue 42 §1: `plain`, or `contextual-v1` whose leaves
   * carry their title and heading path); null when it could not be read, absent in diagnostics recorded before it.
   */
  chunking_version: ChunkingVersion.nullable().optional(),
  /**
   * NexaRAG's `filters` (seed 003): the metadata filter the retrieval searched with (issue 44 §2), the documents a
   * person chose as `doc_id`; null without one. Absent in diagnostics recorded before filters.
   */
  filters: z.record(z.string(), z.array(z.string())).nullable().optional(),
  /** NexaRAG's `effective_mode`: the recall that produced the result (`hybrid`, `dense_fallback`) or `failed`. */
  effective_mode: z.enum(['hybrid', 'dense_fallback', 'failed']).optional(),
  /**
   * How many documents the filter left (at most 16,384 leaves are read to count them); null without a filter or when
   * the store could not tell. `filter_note` says why a filter left none: `no_metadata` (the knowledge base's leaves
   * carry no metadata: ingested before issue 44) or `no_match`.
   */
  filter_documents: count.nullable().optional(),
  filter_note: z.enum(['no_metadata', 'no_match']).nullable().optional(),
  /** The reader's groups the retrieval was limited to (issue 44 §4, the forced `acl` clause); absent: no limit. */
  access_groups: z.array(z.string()).optional(),
});
export type RetrievalDiagnostics = z.infer<typeof RetrievalDiagnostics>;
