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
  /**
   * The groups of the API token whose run it was (issue 44 §4), applied as a filter the caller could not widen:
   * only documents without an access list or whose list holds one of them were searched. Absent: no limit (the
   * CLI, the SDK, MCP over stdio) or a row written before permissions.
   */
  access_groups: z.array(z.string()).optional(),
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

export const DiagnosisEventType = z.enum(['run_started', 'hitl_requested', 'answer_received', 'answer_written', 'completed', 'failed', 'cancelled']);
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

/*
 * An agent's call of one of ragtime's MCP tools (issue 15 §1, seed 004 §4.2 "其它工具"): a `tool_invocation` row
 * of its own, tool_name the MCP tool, retrieval_layer MCP_LAYER and generic status metadata (`mcp_tool_v1`) as its
 * retrieval_details. The run's own rows (rag_lookup_v1) stay what the workflow wrote. No raw text unless content is on.
 */
export const MCP_TOOL_SCHEMA = 'mcp_tool_v1';
/** The retrieval_layer of an agent's tool-call row ("HARNESS" in seed 004): it sets those rows apart. */
export const MCP_LAYER = 'MCP';
export const McpToolName = z.enum(['ask_knowledge', 'search_knowledge', 'answer_clarification', 'get_run', 'cancel_run']);
export type McpToolName = z.infer<typeof McpToolName>;

/** `retrieval_details` of an agent's tool call: how it ended and what it returned, in counts, ids and scores. */
export const McpToolDetails = z.object({
  audit_schema: z.literal(MCP_TOOL_SCHEMA),
  /** The MCP transport the call came over. */
  transport: z.enum(['stdio', 'http']),
  /** The run's status after the call (running, awaiting_input, completed, failed), null for a search or a refused call. */
  run_status: z.string().nullable(),
  route: z.string().nullable(),
  retrieval_status: z.string().nullable(),
  kb: z.string().nullable(),
  /** Source file names of the evidence returned (bounded, no text). */
  sources: z.array(z.string()),
  /** The best score among the evidence returned (the reranker's when it ran). */
  top_score: z.number().nullable(),
  /** Answers the person gave through MCP elicitation during the call. */
  elicited_answers: z.number().int().min(0),
  /** The call was cancelled by the client (the run, if any, was cancelled with it). */
  cancelled: z.boolean(),
  /** The closed error code of a failed call (the message may quote the input, so it is not kept). */
  error_code: z.string().nullable(),
});
export type McpToolDetails = z.infer<typeof McpToolDetails>;

/** One agent tool call, as the MCP server records it. */
export const McpToolCallRecord = z.object({
  session_id: z.string(),
  /** The run's workflow id; "" for a call that has none (search_knowledge, a refused call). */
  workflow_id: z.string(),
  run_id: z.string(),
  /** "mcp:<tool>:<call id>": unique, so a call is recorded once. */
  step: z.string(),
  tool_name: McpToolName,
  /** search_knowledge's relevance_level; null for the run tools. */
  relevance_level: z.string().nullable(),
  /** Evidence items returned to the agent, and how many there were before the projection's bound. */
  evidence_count: z.number().int().min(0),
  candidate_count: z.number().int().min(0),
  is_truncated: z.boolean(),
  details: McpToolDetails,
  output_preview: z.string().max(300),
  duration_ms: z.number().int().min(0),
  success: z.boolean(),
  created_at: z.string(),
  /** The question or query, kept only when AUDIT_INCLUDE_CONTENT=true (evidence_previews: the returned texts). */
  content: AuditContent.nullable(),
});
export type McpToolCallRecord = z.infer<typeof McpToolCallRecord>;

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
  /** Agents' calls of the MCP tools in this session, oldest first; absent when there are none. */
  agentToolCalls: z.array(z.object({
    workflowId: z.string(), runId: z.string(), step: z.string(), toolName: z.string(), relevanceLevel: z.string().nullable(),
    evidenceCount: z.number(), candidateCount: z.number(), truncated: z.boolean(), details: McpToolDetails,
    outputPreview: z.string(), durationMs: z.number(), success: z.boolean(), errorCode: z.string().nullable(), createdAt: z.string(),
    content: AuditContent.nullable(),
  })).optional(),
});
export type SessionTrace = z.infer<typeof SessionTrace>;
