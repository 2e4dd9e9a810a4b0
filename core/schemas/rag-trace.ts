import { z } from 'zod';
import { IntentRecord } from './intent';
import { LaxBool, LaxFloat, LaxInt } from './lax';
import { RetrievedChunk } from './retrieved-chunk';

/*
 * The trace protocol (spec §5.1–§5.2). Every field is optional; a null value means "written as None" in the
 * original and disappears on normalization. Only `rewrite_method` is an enum; routes, statuses and levels are
 * free strings in the protocol (the graph's own values are typed in core/schemas/graph-values.ts).
 */

const str = z.string().nullish();
const bool = LaxBool.nullish();
const int = LaxInt.nullish();
const float = LaxFloat.nullish();
const strList = z.array(z.string()).nullish();
const chunkList = z.array(RetrievedChunk).nullish();

/** Fields 1–58, shared by RagTrace and RagSubTrace, in declaration order. */
const SHARED_FIELDS = {
  tool_used: bool,
  tool_name: str,
  query: str,
  rewrite_method: z.enum(['step_back', 'hyde']).nullish(),
  rewritten_query: str,
  step_back_question: str,
  hyde_document: str,
  retrieval_stage: str,
  route: str,
  retrieval_status: str,
  evidence_relevance: str,
  evidence_answerability: str,
  evidence_ambiguity: str,
  evidence_confidence: float,
  evidence_reason: str,
  missing_slots: strList,
  hitl_prompt: str,
  hitl_options: strList,
  hitl_resumed: bool,
  hitl_answer: str,
  hitl_resume_strategy: str,
  hitl_resume_from_status: str,
  hitl_resume_from_route: str,
  hitl_targeted_retrieved_chunks: chunkList,
  rerank_enabled: bool,
  rerank_applied: bool,
  rerank_model: str,
  rerank_endpoint: str,
  rerank_error: str,
  rerank_timeout_seconds: float,
  rerank_min_score: float,
  post_rerank_count: int,
  post_threshold_count: int,
  retrieval_empty: bool,
  retrieval_mode: str,
  retrieval_pipeline: str,
  candidate_k: int,
  candidate_k_source: str,
  candidate_k_config_error: str,
  retrieval_candidate_multiplier: int,
  retrieval_top_k: int,
  recall_count: int,
  post_merge_candidate_count: int,
  candidate_count: int,
  leaf_retrieve_level: int,
  auto_merge_enabled: bool,
  auto_merge_applied: bool,
  auto_merge_threshold: int,
  auto_merge_replaced_chunks: int,
  auto_merge_steps: int,
  retrieved_chunks: chunkList,
  initial_retrieved_chunks: chunkList,
  rewrite_retrieved_chunks: chunkList,
  complexity: str,
  complexity_reason: str,
  sub_questions: strList,
  sub_agent_count: int,
  synthesis_merged_count: int,
};

/** RagSubTrace: 58 fields, no nested sub-traces (spec §5.2). */
export const RagSubTrace = z.strictObject(SHARED_FIELDS);
export type RagSubTrace = z.infer<typeof RagSubTrace>;

/** The spec's 59 fields of RagTrace (spec §5.1). */
const SPEC_TRACE_FIELDS = { ...SHARED_FIELDS, sub_traces: z.array(RagSubTrace).nullish() };

/**
 * ragtime's fields beyond the spec's 59, under NexaRAG's names (issue 44 §5). Written only by a run answered without
 * retrieval (a greeting, thanks, a question about the conversation), so a run that retrieves keeps the spec's trace
 * exactly; their absence means the question was a knowledge query that needed retrieval.
 */
const INTENT_TRACE_FIELDS = { intent: IntentRecord.nullish(), needs_retrieval: bool };

/**
 * The metadata filter of the run's last retrieval and the recall that served it (issue 44 §2–§3, NexaRAG's `filters`
 * and `effective_mode`): written only by a filtered retrieval (the run's filters, or a person's scope pick as
 * `doc_id`), so an unfiltered run keeps the spec's trace exactly. `effective_mode` equals the R group's
 * `retrieval_mode` (hybrid, dense_fallback, failed).
 */
const FILTER_TRACE_FIELDS = { filters: z.record(z.string(), z.array(z.string())).nullish(), effective_mode: str };

/** RagTrace: the spec's 59 fields (spec §5.1) and ragtime's extensions. */
export const RagTrace = z.strictObject({ ...SPEC_TRACE_FIELDS, ...INTENT_TRACE_FIELDS, ...FILTER_TRACE_FIELDS });
export type RagTrace = z.infer<typeof RagTrace>;

export type RagTraceField = keyof RagTrace;
export type RagSubTraceField = keyof RagSubTrace;

/** The spec's 59 fields, in declaration order. */
export const RAG_TRACE_FIELDS = Object.keys(SPEC_TRACE_FIELDS) as RagTraceField[];
/** ragtime's extensions of the top-level trace (issue 44 §5); normalization keeps them beside the 59. */
export const EXTENSION_TRACE_FIELDS = Object.keys({ ...INTENT_TRACE_FIELDS, ...FILTER_TRACE_FIELDS }) as RagTraceField[];
export const RAG_SUB_TRACE_FIELDS = Object.keys(RagSubTrace.shape) as RagSubTraceField[];

/** The four chunk-list fields; normalization treats them specially (spec §5.6 step 3). */
export const CHUNK_LIST_FIELDS = [
  'hitl_targeted_retrieved_chunks',
  'retrieved_chunks',
  'initial_retrieved_chunks',
  'rewrite_retrieved_chunks',
] as const satisfies readonly RagSubTraceField[];

/** The 26 retrieval-meta fields, the "R group" (spec §6.9). */
export const RETRIEVAL_META_FIELDS = [
  'rerank_enabled',
  'rerank_applied',
  'rerank_model',
  'rerank_endpoint',
  'rerank_error',
  'rerank_timeout_seconds',
  'rerank_min_score',
  'post_rerank_count',
  'post_threshold_count',
  'retrieval_empty',
  'retrieval_mode',
  'retrieval_pipeline',
  'candidate_k',
  'candidate_k_source',
  'candidate_k_config_error',
  'retrieval_candidate_multiplier',
  'retrieval_top_k',
  'recall_count',
  'post_merge_candidate_count',
  'candidate_count',
  'leaf_retrieve_level',
  'auto_merge_enabled',
  'auto_merge_applied',
  'auto_merge_threshold',
  'auto_merge_replaced_chunks',
  'auto_merge_steps',
] as const satisfies readonly RagSubTraceField[];
export type RetrievalMetaField = (typeof RETRIEVAL_META_FIELDS)[number];

/** The 10 grading fields, the "GRADE group", always written together (spec §4.5.6). */
export const GRADE_FIELDS = [
  'retrieval_status',
  'evidence_relevance',
  'evidence_answerability',
  'evidence_ambiguity',
  'evidence_confidence',
  'evidence_reason',
  'missing_slots',
  'hitl_prompt',
  'hitl_options',
  'route',
] as const satisfies readonly RagSubTraceField[];
