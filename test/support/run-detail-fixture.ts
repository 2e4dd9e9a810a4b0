import type { RagTrace } from '../../core/schemas/rag-trace';
import type { RetrievalDiagnostics } from '../../core/schemas/retrieval-diagnostics';
import type { RunDetail, RunGrade, RunRetrieval, Stage } from '../../core/schemas/run-detail';
import { RagOutcome, type HitlRound } from '../../core/schemas/run-io';
import { routePathOf } from '../../core/trace/route-path';

/*
 * Hand-built outcomes and run details for the pure tests of route paths and run comparisons: a simple run that
 * answered from one retrieval unless told otherwise. Every value here is made up; only the shapes are real.
 */

export function outcomeOf(overrides: Partial<RagOutcome> & { trace?: RagTrace | null } = {}): RagOutcome {
  const { trace, ...rest } = overrides;
  return RagOutcome.parse({
    workflowId: 'rag-s-1',
    runId: '00000000-0000-0000-0000-000000000001',
    sessionId: 's',
    kb: 'docs',
    status: 'completed',
    route: 'answer',
    retrieval_status: 'answerable',
    rag_trace: trace === undefined ? { query: '保修期多久？', complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker', route: 'answer' } : trace,
    docs: [],
    hitl: null,
    hitl_resume_state: null,
    rounds: [],
    error: null,
    answer: null,
    answer_null_reason: 'not_generated',
    answer_error: null,
    ...rest,
  });
}

export const round = (overrides: Partial<HitlRound> & Pick<HitlRound, 'round'>): HitlRound => ({
  route: 'clarify',
  retrieval_status: 'needs_clarification',
  prompt: '您指的是哪款产品？',
  options: [],
  answer: null,
  answered_via: null,
  outcome: 'waiting',
  ...overrides,
});

export const diagnosticsOf = (fused: Array<[string, number]>, dense: Array<[string, number]> = fused): RetrievalDiagnostics => ({
  embedding_error: null,
  legs: {
    dense: dense.map(([chunk_id, rank]) => ({ chunk_id, filename: `${chunk_id}.md`, rank, score: 1 / rank, text_preview: '' })),
    bm25: [],
    dense_fallback: null,
  },
  fused: fused.map(([chunk_id, rank]) => ({ chunk_id, filename: `${chunk_id}.md`, rank, rrf_score: 1 / (60 + rank), dense_rank: rank, bm25_rank: null, text_preview: '' })),
  merge_groups: [],
  reranked: [],
  attempts: [{ name: 'hybrid', candidate_count: fused.length, usable: fused.length > 0, top_score: null, duration_ms: 5, error: null }],
  timing_ms: { embed: 1, dense: 1, bm25: 1, fuse: 0, merge: 0, rerank: null, total: 3 },
});

export const retrievalOf = (overrides: Partial<RunRetrieval> = {}): RunRetrieval => ({
  workflowId: 'rag-s-1',
  purpose: 'initial',
  query: '保修期多久？',
  docs: [],
  meta: { retrieval_mode: 'hybrid', candidate_count: 1 },
  diagnostics: diagnosticsOf([['c1', 1]]),
  ...overrides,
});

export const gradeOf = (overrides: Partial<RunGrade> = {}): RunGrade => ({
  workflowId: 'rag-s-1',
  question: '保修期多久？',
  relevance: 'strong',
  answerability: 'sufficient',
  ambiguity: 'none',
  confidence: 0.9,
  reason: 'the evidence states it',
  route: 'answer',
  retrievalStatus: 'answerable',
  ...overrides,
});

export const stageOf = (type: string, scheduledAtMs: number, closedAtMs: number, workflowId = 'rag-s-1'): Stage => ({
  kind: 'activity',
  type,
  workflowId,
  scheduledAtMs,
  startedAtMs: scheduledAtMs,
  closedAtMs,
  attempt: 1,
  status: 'completed',
});

export function detailOf(outcome: RagOutcome, parts: Partial<Omit<RunDetail, 'outcome' | 'path'>> = {}): RunDetail {
  const question = parts.question === undefined ? '保修期多久？' : parts.question;
  return {
    question,
    outcome,
    trace: outcome.rag_trace,
    path: routePathOf(outcome, question),
    retrievals: [retrievalOf({ workflowId: outcome.workflowId })],
    timings: [stageOf('retrieve', 2, 40, outcome.workflowId)],
    grades: [gradeOf({ workflowId: outcome.workflowId })],
    modelCalls: [],
    hitl: outcome.rounds,
    durationMs: 50,
    temporalUiUrl: null,
    ...parts,
  };
}
