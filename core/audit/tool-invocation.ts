import {
  AUDIT_SCHEMA,
  AUDIT_TOOL_NAME,
  type AuditContent,
  type RetrievalDetails,
  type ToolInvocationRecord,
} from '../schemas/audit';
import type { RetrievalStatus, Route } from '../schemas/graph-values';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { RetrievalResult } from '../trace/writers';
import { cutText, isoTime, oneLine, redactQuery } from './bounded-text';

/*
 * One bounded `tool_invocation` row per knowledge-tool invocation (a retrieval and its grade), after seed 004's
 * rag_lookup_v1 enricher: ids, sources, counts, scores and statuses. Raw text (the query, evidence previews) goes
 * only into `content`, which the store keeps when AUDIT_INCLUDE_CONTENT=true; free texts that may echo the query
 * (error messages) are redacted and bounded.
 */

/** At most this many evidence keys, sources and previews per row. */
export const AUDIT_MAX_KEYS = 20;
/** An evidence preview in `content`: at most 200 characters. */
export const EVIDENCE_PREVIEW_CHARS = 200;
/** Error texts in a row: at most 300 characters. */
export const AUDIT_ERROR_CHARS = 300;
const OUTPUT_PREVIEW_CHARS = 300;

/** The run a row or event belongs to. */
export type AuditIds = { sessionId: string; workflowId: string; runId: string };

/** Which retrieval of the graph an invocation is (the `stage` of retrieval_details). */
export type InvocationStage = 'initial' | 'rewritten' | 'sub_question' | 'hitl_targeted';

/** What the grade of an invocation decided (spec §4.5), and who graded. */
export type InvocationGrade = {
  route: Route;
  retrievalStatus: RetrievalStatus;
  relevance: string;
  answerability: string;
  confidence: number;
  /** Evidence the graph kept after the grade (spec §4.5 step 7: emptied for clarify, scope_select, no_knowledge). */
  keptCount: number;
  /** ChatModels.describe of the grader; null when no model was called (no evidence, spec §4.5.1). */
  gradedBy: string | null;
};

/** What the workflow knows once an invocation has ended (or was cut short by a failure of the run). */
export type InvocationFacts = {
  step: string;
  stage: InvocationStage;
  /** The query that was searched (persisted only as content). */
  query: string;
  /** null: the retrieve activity did not return. */
  retrieval: RetrievalResult | null;
  /** null: not graded (the grade failed). */
  grade: InvocationGrade | null;
  /** Workflow time, ms. */
  startedAt: number;
  endedAt: number;
  /** The closed error code when the run failed during this invocation, else null. */
  errorCode: string | null;
};

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0);

function evidenceKey(chunk: Chunk): string {
  if (chunk.chunk_id) return chunk.chunk_id;
  return chunk.id === undefined ? '' : String(chunk.id);
}

const uniqueBounded = (items: string[]): string[] => [...new Set(items.filter((item) => item !== ''))].slice(0, AUDIT_MAX_KEYS);

/** The attempt the retrieval used: the last one that completed; from the meta when there are no diagnostics. */
function selectedAttempt(retrieval: RetrievalResult | null, attempts: RetrievalDetails['attempts']): string | null {
  const completed = attempts.filter((attempt) => attempt.error === null);
  if (completed.length > 0) return completed[completed.length - 1]?.name ?? null;
  const mode = retrieval?.meta.retrieval_mode;
  return attempts.length === 0 && (mode === 'hybrid' || mode === 'dense_fallback') ? mode : null;
}

/**
 * Why the retrieval did not use its first choice: `hybrid_failed` for the dense fallback (the error is in
 * attempts[0]), the failure reason (embedding_failed, retrieve_failed) when nothing could be recalled.
 */
function fallbackReason(retrieval: RetrievalResult | null, selected: string | null): string | null {
  if (retrieval === null) return 'retrieval_not_returned';
  if (retrieval.meta.retrieval_mode === 'failed') return retrieval.meta.rerank_error ?? 'retrieval_failed';
  return selected === 'dense_fallback' ? 'hybrid_failed' : null;
}

/** The row's error message: the run's error code, or why the retrieval failed; null on success. */
function errorMessage(facts: InvocationFacts, redact: (text: string) => string): string | null {
  if (facts.errorCode !== null) return cutText(facts.errorCode, AUDIT_ERROR_CHARS);
  const retrieval = facts.retrieval;
  if (retrieval === null || retrieval.meta.retrieval_mode !== 'failed') return null;
  const reason = retrieval.meta.rerank_error ?? 'retrieval_failed';
  const detail = retrieval.diagnostics?.embedding_error ?? retrieval.diagnostics?.attempts.at(-1)?.error ?? null;
  return cutText(redact(detail ? `${reason}: ${detail}` : reason), AUDIT_ERROR_CHARS);
}

function retrievalDetails(facts: InvocationFacts, redact: (text: string) => string): RetrievalDetails {
  const { retrieval, grade } = facts;
  const meta = retrieval?.meta ?? {};
  const docs = retrieval?.docs ?? [];
  const attempts = (retrieval?.diagnostics?.attempts ?? []).map((attempt) => ({
    name: attempt.name,
    candidate_count: count(attempt.candidate_count),
    usable: attempt.usable,
    top_score: attempt.top_score,
    duration_ms: Math.max(0, attempt.duration_ms),
    error: attempt.error === null ? null : cutText(redact(attempt.error), AUDIT_ERROR_CHARS),
  }));
  const selected = selectedAttempt(retrieval, attempts);
  const failed = retrieval === null || meta.retrieval_mode === 'failed';
  return {
    audit_schema: AUDIT_SCHEMA,
    stage: facts.stage,
    // issue 44 §4: the groups of the token whose run this is, applied to the retrieval; absent: no limit applied.
    ...(retrieval?.diagnostics?.access_groups ? { access_groups: retrieval.diagnostics.access_groups } : {}),
    search_mode: meta.retrieval_mode ?? 'unknown',
    selected_attempt: selected,
    fallback_reason: fallbackReason(retrieval, selected),
    attempts,
    evidence_keys: uniqueBounded(docs.map(evidenceKey)),
    sources: uniqueBounded(docs.map((chunk) => chunk.filename ?? '')),
    evidence_candidate_count: count(meta.recall_count),
    evidence_block_count: docs.length,
    returned_count: grade === null ? 0 : count(grade.keptCount),
    evidence_status: failed ? 'RETRIEVAL_FAILED' : docs.length === 0 ? 'NO_EVIDENCE' : 'EVIDENCE_FOUND',
    route: grade?.route ?? null,
    retrieval_status: grade?.retrievalStatus ?? null,
    evidence_relevance: grade?.relevance ?? null,
    evidence_answerability: grade?.answerability ?? null,
    evidence_confidence: grade !== null && Number.isFinite(grade.confidence) ? grade.confidence : null,
    rerank: {
      enabled: meta.rerank_enabled ?? false,
      applied: meta.rerank_applied ?? false,
      error: meta.rerank_error ? cutText(redact(meta.rerank_error), AUDIT_ERROR_CHARS) : null,
    },
    auto_merge: { applied: meta.auto_merge_applied ?? false, replaced_chunks: count(meta.auto_merge_replaced_chunks) },
    graded_by: grade?.gradedBy ?? null,
  };
}

/** A one-line, content-free summary (seed 004 "level/attempt 摘要"). */
function outputPreview(details: RetrievalDetails, success: boolean): string {
  const parts = [
    `status=${details.evidence_status}`,
    `route=${details.route ?? '-'}`,
    `relevance=${details.evidence_relevance ?? '-'}`,
    `evidence=${details.evidence_block_count}/${details.evidence_candidate_count}`,
    `kept=${details.returned_count}`,
    `mode=${details.search_mode}`,
    `attempt=${details.selected_attempt ?? '-'}`,
    ...(success ? [] : ['failed']),
  ];
  return cutText(parts.join(' '), OUTPUT_PREVIEW_CHARS);
}

function content(facts: InvocationFacts): AuditContent {
  return {
    query: facts.query,
    evidence_previews: (facts.retrieval?.docs ?? [])
      .slice(0, AUDIT_MAX_KEYS)
      .map((chunk) => oneLine(typeof chunk.text === 'string' ? chunk.text : '', EVIDENCE_PREVIEW_CHARS)),
  };
}

/**
 * The `tool_invocation` row of one invocation. `content` is always filled: the store drops it unless it was opened
 * with includeContent.
 */
export function buildToolInvocation(ids: AuditIds, facts: InvocationFacts): ToolInvocationRecord {
  const redact = (text: string) => redactQuery(text, facts.query);
  const details = retrievalDetails(facts, redact);
  const error = errorMessage(facts, redact);
  const success = error === null;
  const leafLevel = facts.retrieval?.meta.leaf_retrieve_level;
  return {
    session_id: ids.sessionId,
    workflow_id: ids.workflowId,
    run_id: ids.runId,
    step: facts.step,
    tool_name: AUDIT_TOOL_NAME,
    retrieval_layer: typeof leafLevel === 'number' ? `L${leafLevel}` : 'unknown',
    relevance_level: facts.grade?.relevance ?? null,
    evidence_count: details.evidence_block_count,
    candidate_count: details.evidence_candidate_count,
    // The graph passed on fewer blocks than were retrieved: the grade dropped evidence (seed 004's "truncated").
    is_truncated: facts.grade !== null && details.returned_count < details.evidence_block_count,
    retrieval_details: details,
    output_preview: outputPreview(details, success),
    duration_ms: Math.max(0, Math.round(facts.endedAt - facts.startedAt)),
    success,
    error_message: error,
    created_at: isoTime(facts.endedAt),
    content: content(facts),
  };
}
