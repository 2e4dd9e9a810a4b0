import { z } from 'zod';

/*
 * Layer B of DESIGN §5 (seed 004's three-layer design): one bounded row per knowledge-tool invocation and a thin
 * event timeline, persisted in SQL and read back by the Trace API. By default no raw query text and no chunk text:
 * ids, sources, counts, scores and statuses only. The `content` fields are filled by the workflow and kept by the
 * store only when AUDIT_INCLUDE_CONTENT=true.
 */

export const AUDIT_SCHEMA = 'rag_lookup_v1';
export const AUDIT_TOOL_NAME = 'search_knowledge_base';

export const AuditAttempt = z.object({
  name: z.string(),
  candidate_count: z.number().int().min(0),
  usable: z.boolean(),
  top_score: z.number().nullable(),
  duration_ms: z.number().min(0),
  error: z.string().nullable(),
});

export const EvidenceStatus = z.enum(['EVIDENCE_FOUND', 'NO_EVIDENCE', 'RETRIEVAL_FAILED']);

/** `retrieval_details`, in the spirit of seed 004's rag_lookup_v1. */
export const RetrievalDetails = z.object({
  audit_schema: z.literal(AUDIT_SCHEMA),
  /** Which retrieval of the graph: initial | rewritten | sub_question | hitl_targeted. */
  stage: z.string(),
  search_mode: z.string(),
  selected_attempt: z.string().nullable(),
  fallback_reason: z.string().nullable(),
  attempts: z.array(AuditAttempt),
  evidence_keys: z.array(z.string()),
  sources: z.array(z.string()),
  evidence_candidate_count: z.number().int().min(0),
  evidence_block_count: z.number().int().min(0),
  returned_count: z.number().int().min(0),
  evidence_status: EvidenceStatus,
  route: z.string().nullable(),
  retrieval_status: z.string().nullable(),
  evidence_relevance: z.string().nullable(),
  evidence_answerability: z.string().nullable(),
  evidence_confidence: z.number().nullable(),
  rerank: z.object({ enabled: z.boolean(), applied: z.boolean(), error: z.string().nullable() }),
  auto_merge: z.object({ applied: z.boolean(), replaced_chunks: z.number().int().min(0) }),
  /** Who graded (ChatModels.describe), null when no model was called (e.g. no evidence). */
  graded_by: z.string().nullable(),
});
export type RetrievalDetails = z.infer<typeof RetrievalDetails>;

/** Raw text a row may carry, persisted only when AUDIT_INCLUDE_CONTENT=true. */
export const AuditContent = z.object({
  query: z.string(),
  evidence_previews: z.array(z.string()),
});
export type AuditContent = z.infer<typeof AuditContent>;

/** One knowledge-tool invocation: a retrieval and its grade (main run, sub-question or HITL round). */
export const ToolInvocationRecord = z.object({
  session_id: z.string(),
  workflow_id: z.string(),
  run_id: z.string(),
  /** Unique within a run, e.g. "initial", "rewritten", "sub-1", "hitl-1": the idempotency key with the ids. */
  step: z.string(),
  tool_name: z.literal(AUDIT_TOOL_NAME),
  /** The leaf level searched, e.g. "L3". */
  retrieval_layer: z.string(),
  relevance_level: z.string().nullable(),
  evidence_count: z.number().int().min(0),
  candidate_count: z.number().int().min(0),
  is_truncated: z.boolean(),
  retrieval_details: RetrievalDetails,
  output_preview: z.string().max(300),
  duration_ms: z.number().int().min(0),
  success: z.boolean(),
  error_message: z.string().nullable(),
  /** ISO time, from workflow time. */
  created_at: z.string(),
  content: AuditContent.nullable(),
});
export type ToolInvocationRecord = z.infer<typeof ToolInvocationRecord>;

export const DiagnosisEventType = z.enum(['run_started', 'hitl_requested', 'answer_received', 'answer_written', 'completed', 'failed']);
export type DiagnosisEventType = z.infer<typeof DiagnosisEventType>;

/** A thin timeline event; `key` is unique within a run (e.g. "run_started", "hitl_requested:1"). */
export const DiagnosisEvent = z.object({
  session_id: z.string(),
  workflow_id: z.string(),
  run_id: z.string(),
  key: z.string(),
  event_type: DiagnosisEventType,
  /** Bounded, content-free details: route, status, round, error type, counts. */
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  created_at: z.string(),
});
export type DiagnosisEvent = z.infer<typeof DiagnosisEvent>;

/** What the recordAudit activity receives: rows and events recorded so far (already recorded ones are ignored). */
export const AuditBatch = z.object({
  invocations: z.array(ToolInvocationRecord),
  events: z.array(DiagnosisEvent),
});
export type AuditBatch = z.infer<typeof AuditBatch>;

/** GET /api/diagnosis/{sessionId}/trace (seed 004 §4.4). */
export const SessionTrace = z.object({
  sessionId: z.string(),
  runs: z.array(z.object({ workflowId: z.string(), runId: z.string(), startedAt: z.string().nullable(), status: z.string().nullable(), route: z.string().nullable() })),
  toolInvocations: z.array(z.object({
    workflowId: z.string(), runId: z.string(), step: z.string(), toolName: z.string(), retrievalLayer: z.string(),
    relevanceLevel: z.string().nullable(), evidenceCount: z.number(), candidateCount: z.number(), truncated: z.boolean(),
    retrievalDetails: RetrievalDetails, retrievalDetailsRaw: z.string(), outputPreview: z.string(), durationMs: z.number(),
    success: z.boolean(), errorMessage: z.string().nullable(), createdAt: z.string(), content: AuditContent.nullable(),
  })),
  events: z.array(z.object({
    workflowId: z.string(), runId: z.string(), key: z.string(), eventType: DiagnosisEventType,
    detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])), createdAt: z.string(),
  })),
});
export type SessionTrace = z.infer<typeof SessionTrace>;
