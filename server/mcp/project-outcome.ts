import { CITATION_CHECK_LABEL, verificationReason } from '../../core/answer/citation-check-text';
import { withoutRetrievalText } from '../../core/intent/without-retrieval-text';
import type { EvidenceGrade } from '../../core/schemas/model-outputs';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { RagOutcome } from '../../core/schemas/run-io';
import type { RetrievalResult } from '../../core/trace/writers';
import { MCP_EVIDENCE_CHARS, MCP_MAX_EVIDENCE, type Evidence, type RunResult, type SearchResult } from './tool-schemas';
import { shownPage } from '../../core/schemas/page-number';

/*
 * What an agent sees of a run or a retrieval (seed 004: "Agent 看到的不是完整 Trace"): the verdict and bounded
 * evidence. The trace stays behind the trace_uri resource.
 */

export const traceUri = (runId: string) => `ragtime://runs/${encodeURIComponent(runId)}/trace`;

const cut = (text: string, max: number): string => {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
};

export function evidenceOf(chunk: Chunk): Evidence {
  const score = chunk.rerank_score ?? chunk.score;
  return {
    text: cut(chunk.text ?? '', MCP_EVIDENCE_CHARS),
    source: chunk.filename ?? null,
    page: shownPage(chunk.page_number),
    score: typeof score === 'number' && Number.isFinite(score) ? score : null,
  };
}

/** A run's outcome as a tool result; `elicited` counts the answers the person gave through MCP during the call. */
export function projectOutcome(outcome: RagOutcome, elicited = 0): RunResult {
  const waiting = outcome.status === 'awaiting_input' && outcome.hitl !== null;
  return {
    run_id: outcome.workflowId,
    session_id: outcome.sessionId,
    status: outcome.status,
    kb: outcome.kb,
    route: outcome.route,
    retrieval_status: outcome.retrieval_status,
    answer: outcome.answer && {
      text: outcome.answer.text,
      citations: outcome.answer.citations.map((c) => ({ marker: c.marker, source: c.filename, page: shownPage(c.page_number), quote: cut(c.quote, MCP_EVIDENCE_CHARS) })),
      citation_check: CITATION_CHECK_LABEL[outcome.answer.verification.status],
      // Issue 44 §5: a reply given without retrieval has nothing to verify; the reason says why.
      citation_check_reason: outcome.rag_trace?.needs_retrieval === false ? withoutRetrievalText(outcome.rag_trace.intent) : verificationReason(outcome.answer.verification),
      grade_confidence: outcome.rag_trace?.evidence_confidence ?? null,
    },
    answer_null_reason: outcome.answer_null_reason,
    evidence: outcome.docs.slice(0, MCP_MAX_EVIDENCE).map(evidenceOf),
    evidence_total: outcome.docs.length,
    clarification:
      waiting && outcome.hitl
        ? {
            prompt: outcome.hitl.prompt,
            options: outcome.hitl.options,
            round: outcome.hitl.round,
            how_to_answer: `ask the person, then call answer_clarification with run_id "${outcome.workflowId}" and their answer (free text, or an option's number)`,
          }
        : null,
    elicited_answers: elicited,
    degraded: outcome.degraded && { component: outcome.degraded.component, reason: cut(outcome.degraded.reason, 300) },
    error: outcome.error,
    trace_uri: traceUri(outcome.workflowId),
    answered_by: outcome.answered_by ? { provider: outcome.answered_by.provider, endpoint: outcome.answered_by.endpoint, grader: outcome.answered_by.grader, writer: outcome.answered_by.writer } : null,
  };
}

// Reranker scores (cross-encoder relevance, 0–1) at or above these read as high / medium relevance; below, low.
const HIGH_RERANK = 0.5;
const MEDIUM_RERANK = 0.1;

/**
 * The grader's verdict as a relevance level (spec §4.5's fields): strong and sufficient evidence is high, strong but
 * partial is medium, weak is low, none is none.
 */
function gradedLevel(grade: EvidenceGrade): SearchResult['relevance_level'] {
  if (grade.relevance === 'none') return 'none';
  if (grade.relevance === 'weak') return 'low';
  return grade.answerability === 'sufficient' ? 'high' : 'medium';
}

/** The reranker's best score as a relevance level, or "unranked" when no reranker scored the evidence. */
function scoredLevel(docs: readonly Chunk[]): SearchResult['relevance_level'] {
  const rerank = docs.map((doc) => doc.rerank_score).filter((score): score is number => typeof score === 'number');
  if (rerank.length === 0) return 'unranked';
  const best = Math.max(...rerank);
  return best >= HIGH_RERANK ? 'high' : best >= MEDIUM_RERANK ? 'medium' : 'low';
}

/**
 * One retrieval as search_knowledge's result: at most `topK` evidence items and a relevance level — the grader's
 * when it graded them (`grade`), else the reranker's.
 */
export function projectRetrieval(result: RetrievalResult, kb: string, topK: number, grade: EvidenceGrade | null = null): SearchResult {
  const docs = result.docs.slice(0, Math.min(topK, MCP_MAX_EVIDENCE));
  const failed = result.meta.retrieval_mode === 'failed';
  const relevance_level = failed ? 'unavailable' : docs.length === 0 ? 'none' : grade ? gradedLevel(grade) : scoredLevel(docs);
  return { kb, evidence: docs.map(evidenceOf), relevance_level, retrieval_mode: typeof result.meta.retrieval_mode === 'string' ? result.meta.retrieval_mode : null };
}
