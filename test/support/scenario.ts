import { composeRewrite } from '../../core/graph/compose-rewrite';
import { formatDocs } from '../../core/graph/format-docs';
import { simpleQuestionFastPathReason } from '../../core/graph/fast-path';
import { gradeStep, type GradeStepResult } from '../../core/graph/grade-step';
import { gradeForNoDocs } from '../../core/graph/grade-update';
import {
  buildHitlResumeState,
  isHitlResult,
  parseHitlResumeState,
  refinedQuestionForHitl,
} from '../../core/graph/hitl-resume';
import { cleanComplexityResult, cleanSubQuestions } from '../../core/graph/plan-complexity';
import { synthesize, type SubResult } from '../../core/graph/synthesis';
import type { Complexity, RetrievalStatus, Route } from '../../core/schemas/graph-values';
import type { HitlResumeState } from '../../core/schemas/hitl-resume-state';
import {
  ComplexityResult,
  EvidenceGrade,
  RewritePlan,
} from '../../core/schemas/model-outputs';
import type { RagTrace, RetrievalMetaField } from '../../core/schemas/rag-trace';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { mergeTraceFragments } from '../../core/trace/fragment';
import { normalizeRagTrace } from '../../core/trace/normalize';
import type { RawRagTrace, RetrievalMeta } from '../../core/trace/raw-trace';
import {
  initialRetrievalFragment,
  retrievalMetaFragment,
  resumeStartFragment,
  rewriteBudgetExhaustedFragment,
  rewritePlanFragment,
  rewrittenRetrievalFragment,
  targetedRetrievalFragment,
  type Rewrite,
  type RetrievalResult,
} from '../../core/trace/writers';

/*
 * Fixtures and a small pure "scenario driver" for the graph scenarios of spec §9.
 *
 * The driver is a test double of the future workflow: it composes the pure core functions in the order the graph
 * runs them (spec §3, §4.1–§4.11) against scripted models and a scripted retrieval. It is deliberately plain so
 * that the same scenario table can later be run against the real workflow with scripted activities.
 */

// ---------------------------------------------------------------------------------------------------------------
// Key sets of the normalized trace, written out from the spec text (§5.7, §9 conventions) rather than taken from
// core/, so that they are an independent oracle.

/** spec §4.5.6: the GRADE group, always written together. */
export const GRADE10 = [
  'retrieval_status', 'evidence_relevance', 'evidence_answerability', 'evidence_ambiguity', 'evidence_confidence',
  'evidence_reason', 'missing_slots', 'hitl_prompt', 'hitl_options', 'route',
] as const;

/** spec §9: K18 = the identity/stage/evidence keys of a simple-path trace + GRADE10. */
export const K18 = [
  'tool_used', 'tool_name', 'query', 'retrieval_stage', 'retrieved_chunks', 'initial_retrieved_chunks', 'complexity',
  'complexity_reason', ...GRADE10,
] as const;

/** spec §5.7: a sub-trace has the K18 keys minus complexity and complexity_reason (16). */
export const SUB16 = K18.filter((key) => key !== 'complexity' && key !== 'complexity_reason');

/** spec §6.9: all 26 R fields. */
export const R26 = [
  'rerank_enabled', 'rerank_applied', 'rerank_model', 'rerank_endpoint', 'rerank_error', 'rerank_timeout_seconds',
  'rerank_min_score', 'post_rerank_count', 'post_threshold_count', 'retrieval_empty', 'retrieval_mode',
  'retrieval_pipeline', 'candidate_k', 'candidate_k_source', 'candidate_k_config_error',
  'retrieval_candidate_multiplier', 'retrieval_top_k', 'recall_count', 'post_merge_candidate_count', 'candidate_count',
  'leaf_retrieve_level', 'auto_merge_enabled', 'auto_merge_applied', 'auto_merge_threshold',
  'auto_merge_replaced_chunks', 'auto_merge_steps',
] as const;

/** spec §5.7: R23 = the R keys with default config and no rerank (26 minus the three that are null there). */
export const R23 = R26.filter(
  (key) => key !== 'rerank_model' && key !== 'rerank_error' && key !== 'candidate_k_config_error',
);

/** spec §9: keys added by a step-back rewrite. */
export const SB4 = ['rewrite_method', 'rewritten_query', 'step_back_question', 'rewrite_retrieved_chunks'] as const;

/** spec §9: keys added by a HyDE rewrite. */
export const HY4 = ['rewrite_method', 'rewritten_query', 'hyde_document', 'rewrite_retrieved_chunks'] as const;

/** spec §5.7: the 17 keys of a synthesis trace (no R keys). */
export const SYN17 = [
  'tool_used', 'tool_name', 'query', 'retrieval_stage', 'retrieved_chunks', 'complexity', 'complexity_reason',
  'sub_questions', 'sub_agent_count', 'synthesis_merged_count', 'sub_traces', 'retrieval_status', 'evidence_relevance',
  'evidence_answerability', 'route', 'hitl_prompt', 'hitl_options',
] as const;

/** spec §9: the resume keys. */
export const RES = [
  'hitl_resumed', 'hitl_answer', 'hitl_resume_from_status', 'hitl_resume_from_route', 'hitl_resume_strategy',
  'hitl_targeted_retrieved_chunks',
] as const;

/** The sorted union of key groups; compare with `keysOf(trace)`. */
export function keySet(...groups: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(groups.flat())].sort();
}

export function keysOf(value: object): string[] {
  return Object.keys(value).sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures (spec §9 conventions).

/** Stands in for Milvus' auto primary key: a stable number per text. */
const idOf = (text: string): number => [...text].reduce((sum, char) => sum * 31 + (char.codePointAt(0) ?? 0), 7) % 1_000_000;

/**
 * A retrieved leaf chunk as spec §9 writes it — {filename "doc.pdf", page 1, text, chunk_id, score 0.03} — plus the
 * runtime keys of spec §5.3 that normalization strips.
 */
export function chunk(text: string, extra: Partial<Chunk> = {}): Chunk {
  return {
    id: idOf(text),
    filename: 'doc.pdf',
    file_type: 'pdf',
    page_number: 1,
    text,
    chunk_id: `doc.pdf::p1::l3::${text}`,
    parent_chunk_id: 'doc.pdf::p1::l2::0',
    root_chunk_id: 'doc.pdf::p1::l1::0',
    chunk_level: 3,
    chunk_idx: 0,
    score: 0.03,
    ...extra,
  };
}

/** A chunk as it appears in a normalized trace: the 6 protocol keys that are present (spec §5.3, §5.6 step 3). */
export function traced(source: Chunk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['filename', 'page_number', 'text', 'score', 'rrf_rank', 'rerank_score'] as const) {
    if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
  }
  return out;
}

/** Meta with every one of the 26 R fields spelled out (null where the retrieval does not produce it). */
export type FullRetrievalMeta = { [K in RetrievalMetaField]-?: RetrievalMeta[K] };

/** spec §9 M0: default config, rerank unset, n final chunks. */
export function metaM0(n: number): FullRetrievalMeta {
  return {
    retrieval_mode: 'hybrid',
    retrieval_pipeline: 'recall_merge_rerank',
    candidate_k: 24,
    candidate_k_source: 'multiplier',
    candidate_k_config_error: null,
    retrieval_candidate_multiplier: 3,
    retrieval_top_k: 8,
    leaf_retrieve_level: 3,
    recall_count: n,
    post_merge_candidate_count: n,
    candidate_count: n,
    auto_merge_enabled: true,
    auto_merge_applied: false,
    auto_merge_threshold: 2,
    auto_merge_replaced_chunks: 0,
    auto_merge_steps: 0,
    rerank_enabled: false,
    rerank_applied: false,
    rerank_model: null,
    rerank_endpoint: '',
    rerank_error: null,
    rerank_timeout_seconds: 5.0,
    rerank_min_score: 0.0,
    post_rerank_count: n,
    post_threshold_count: n,
    retrieval_empty: n === 0,
  };
}

/** A grader reply, parsed as the activity would parse it (spec §7.1 defaults apply to the extras). */
export function grade(
  relevance: EvidenceGrade['relevance'],
  answerability: EvidenceGrade['answerability'],
  ambiguity: EvidenceGrade['ambiguity'],
  route: EvidenceGrade['route'],
  confidence: number,
  extras: Partial<Omit<EvidenceGrade, 'relevance' | 'answerability' | 'ambiguity' | 'route' | 'confidence'>> = {},
): EvidenceGrade {
  return EvidenceGrade.parse({ relevance, answerability, ambiguity, route, confidence, ...extras });
}

export const stepBackPlan = (stepBackQuestion: string): RewritePlan =>
  RewritePlan.parse({ method: 'step_back', step_back_question: stepBackQuestion });

export const hydePlan = (hydeDocument: string): RewritePlan =>
  RewritePlan.parse({ method: 'hyde', hyde_document: hydeDocument });

export const plannerResult = (complexity: 'simple' | 'complex', reason: string, subQuestions: string[]): ComplexityResult =>
  ComplexityResult.parse({ complexity, reason, sub_questions: subQuestions });

// ---------------------------------------------------------------------------------------------------------------
// Scripted models and retrieval.

/** Retrieval scripted as a table from the exact query string to its chunks, with meta M0; other queries throw. */
export function retrievalTable(table: Record<string, Chunk[]>): (query: string) => RetrievalResult {
  return (query) => {
    const docs = table[query];
    if (!docs) throw new Error(`unscripted retrieval query: ${JSON.stringify(query)}`);
    return { docs, meta: metaM0(docs.length) };
  };
}

export type Script = {
  retrieve: (query: string) => RetrievalResult;
  /** Grader replies in call order; not consumed when the evidence is empty (spec §4.5 step 2). */
  grades?: EvidenceGrade[];
  /** Rewrite planner replies in call order. */
  rewritePlans?: RewritePlan[];
  /** The complexity planner's reply, when the fast path misses. */
  planner?: ComplexityResult;
};

/** Every call the driver made to a scripted dependency, in order. */
export type Calls = {
  planner: string[];
  retrieval: string[];
  grader: Array<{ question: string; context: string }>;
  rewriter: string[];
};

export type Models = {
  plan(question: string): ComplexityResult;
  retrieve(query: string): RetrievalResult;
  grade(question: string, context: string): EvidenceGrade;
  rewrite(question: string): RewritePlan;
  calls: Calls;
};

export function scriptedModels(script: Script): Models {
  const grades = [...(script.grades ?? [])];
  const rewritePlans = [...(script.rewritePlans ?? [])];
  const calls: Calls = { planner: [], retrieval: [], grader: [], rewriter: [] };
  const next = <T>(queue: T[], what: string): T => {
    const item = queue.shift();
    if (item === undefined) throw new Error(`${what} called more often than scripted`);
    return item;
  };
  return {
    calls,
    plan(question) {
      calls.planner.push(question);
      if (!script.planner) throw new Error('planner called but not scripted');
      return script.planner;
    },
    retrieve(query) {
      calls.retrieval.push(query);
      return script.retrieve(query);
    },
    grade(question, context) {
      calls.grader.push({ question, context });
      return next(grades, 'grader');
    },
    rewrite(question) {
      calls.rewriter.push(question);
      return next(rewritePlans, 'rewriter');
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The driver.

export type RunOutcome = {
  route: Route;
  retrievalStatus: RetrievalStatus;
  docs: Chunk[];
  context: string;
  rewriteCount: number;
  complexity: Complexity | null;
  complexityReason: string | null;
  subQuestions: string[] | null;
  /** The raw trace T, before normalization. */
  rawTrace: RawRagTrace;
  /** N(T). */
  trace: RagTrace;
  /** The resume snapshot when the run waits for a person (spec §4.1 step 2), else null. */
  snapshot: HitlResumeState | null;
  subResults: SubResult[];
};

type Plan = { complexity: Complexity; complexityReason: string; subQuestions: string[] | null };

function normalized(rawTrace: RawRagTrace): RagTrace {
  const trace = normalizeRagTrace(rawTrace);
  if (!trace) throw new Error('a run must leave a non-empty trace');
  return trace;
}

/** `grade_documents_node` (spec §4.5): the grader is called only when there is evidence. */
function gradeDocuments(
  models: Models,
  question: string,
  docs: Chunk[],
  rewriteCount: number,
  isSubAgent: boolean,
): GradeStepResult {
  const grade = docs.length > 0 ? models.grade(question, formatDocs(docs)) : gradeForNoDocs();
  return gradeStep({ grade, docs, rewriteCount, isSubAgent });
}

/** `_build_hitl_resume_state` when `_is_hitl_result` (spec §4.1 steps 2, §4.11.4 step 3), else null. */
function snapshotIfHitl(run: {
  question: string;
  route: Route;
  retrievalStatus: RetrievalStatus;
  rewriteCount: number;
  complexity: Complexity | null;
  complexityReason: string | null;
  subQuestions: string[] | null;
  rawTrace: RawRagTrace;
}): HitlResumeState | null {
  const result = {
    question: run.question,
    route: run.route,
    retrieval_status: run.retrievalStatus,
    rewrite_count: run.rewriteCount,
    complexity: run.complexity,
    complexity_reason: run.complexityReason,
    sub_questions: run.subQuestions,
    rag_trace: run.rawTrace,
  };
  return isHitlResult(result) ? buildHitlResumeState(result) : null;
}

/** `classify_complexity` (spec §4.2): the fast path, else the planner. The fast path leaves sub_questions null. */
export function classify(models: Models, question: string): Plan {
  const fastPath = simpleQuestionFastPathReason(question);
  if (fastPath) return { complexity: 'simple', complexityReason: fastPath, subQuestions: null };
  return cleanComplexityResult(models.plan(question));
}

export type RewriteStepResult =
  | { kind: 'rewritten'; rewrite: Rewrite; rewriteCount: number; rawTrace: RawRagTrace }
  | { kind: 'budget_exhausted'; route: 'no_knowledge'; retrievalStatus: 'no_knowledge'; docs: []; context: ''; rawTrace: RawRagTrace };

/**
 * `rewrite_question_node` (spec §4.7). With the budget used it is the terminal no_knowledge guard of §4.7.2 (T33),
 * which the graph never reaches because resolveRoute does not return rewrite then.
 */
export function rewriteStep(models: Models, question: string, rewriteCount: number, rawTrace: RawRagTrace): RewriteStepResult {
  if (rewriteCount >= 1) {
    return {
      kind: 'budget_exhausted',
      route: 'no_knowledge',
      retrievalStatus: 'no_knowledge',
      docs: [],
      context: '',
      rawTrace: mergeTraceFragments(rawTrace, rewriteBudgetExhaustedFragment()),
    };
  }
  const rewrite = composeRewrite(question, models.rewrite(question));
  return {
    kind: 'rewritten',
    rewrite,
    rewriteCount: rewriteCount + 1,
    rawTrace: mergeTraceFragments(rawTrace, rewritePlanFragment(rewrite, rewriteCount)),
  };
}

/** Simple path (spec §4.4–§4.8): retrieve → grade → [rewrite → retrieve rewritten → grade]. */
function runSimplePath(models: Models, question: string, plan: Plan): RunOutcome {
  const initial = models.retrieve(question);
  let rawTrace = mergeTraceFragments(
    null,
    initialRetrievalFragment({
      query: question,
      docs: initial.docs,
      complexity: plan.complexity,
      complexityReason: plan.complexityReason,
    }),
    retrievalMetaFragment(initial.meta),
  );
  let rewriteCount = 0;
  let graded = gradeDocuments(models, question, initial.docs, rewriteCount, false);
  rawTrace = mergeTraceFragments(rawTrace, graded.traceFragment);

  if (graded.route === 'rewrite') {
    const step = rewriteStep(models, question, rewriteCount, rawTrace);
    if (step.kind === 'budget_exhausted') throw new Error('unreachable: resolveRoute returned rewrite with the budget used');
    rewriteCount = step.rewriteCount;
    const rewritten = models.retrieve(step.rewrite.rewritten_query);
    rawTrace = mergeTraceFragments(
      step.rawTrace,
      rewrittenRetrievalFragment(step.rewrite, rewritten.docs),
      retrievalMetaFragment(rewritten.meta),
    );
    // The grader still sees the original question (spec §4.8, last line).
    graded = gradeDocuments(models, question, rewritten.docs, rewriteCount, false);
    rawTrace = mergeTraceFragments(rawTrace, graded.traceFragment);
  }

  const run = {
    question,
    route: graded.route,
    retrievalStatus: graded.retrievalStatus,
    rewriteCount,
    complexity: plan.complexity,
    complexityReason: plan.complexityReason,
    subQuestions: plan.subQuestions,
    rawTrace,
  };
  return {
    ...run,
    docs: graded.docs,
    context: formatDocs(graded.docs),
    trace: normalized(rawTrace),
    snapshot: snapshotIfHitl(run),
    subResults: [],
  };
}

/** `rag_sub_agent` (spec §4.9): a fresh state — complexity null, budget 0 — retrieve then grade, never rewrite. */
export function runSubAgent(models: Models, subQuestion: string): SubResult {
  const retrieval = models.retrieve(subQuestion);
  let rawTrace = mergeTraceFragments(
    null,
    initialRetrievalFragment({ query: subQuestion, docs: retrieval.docs, complexity: null, complexityReason: null }),
    retrievalMetaFragment(retrieval.meta),
  );
  const graded = gradeDocuments(models, subQuestion, retrieval.docs, 0, true);
  rawTrace = mergeTraceFragments(rawTrace, graded.traceFragment);
  return {
    question: subQuestion,
    docs: graded.docs,
    retrieval_status: graded.retrievalStatus,
    route: graded.route,
    rag_trace: rawTrace,
  };
}

/**
 * Complex path (spec §4.3, §4.9, §4.10). Sub-agents run one after the other here; the scripted grades are therefore
 * consumed in sub-question order, which is also the order results are collected in (spec §10.1).
 */
function runComplexPath(models: Models, question: string, plan: Plan): RunOutcome {
  const subQuestions = cleanSubQuestions(plan.subQuestions ?? []);
  const subResults = subQuestions.map((subQuestion) => runSubAgent(models, subQuestion));
  const synthesis = synthesize({ question, complexityReason: plan.complexityReason, subQuestions, subResults });
  const rawTrace = mergeTraceFragments(null, synthesis.traceFragment);
  const run = {
    question,
    route: synthesis.route,
    retrievalStatus: synthesis.retrievalStatus,
    rewriteCount: 0,
    complexity: plan.complexity,
    complexityReason: plan.complexityReason,
    subQuestions,
    rawTrace,
  };
  return {
    ...run,
    docs: synthesis.docs,
    context: synthesis.context,
    trace: normalized(rawTrace),
    snapshot: snapshotIfHitl(run),
    subResults,
  };
}

/** `run_rag_graph` (spec §4.1): classify, then the simple or the complex path. */
export function runRag(models: Models, question: string): RunOutcome {
  const plan = classify(models, question);
  return plan.complexity === 'complex' ? runComplexPath(models, question, plan) : runSimplePath(models, question, plan);
}

/**
 * `resume_rag_from_hitl` (spec §4.11): validate the snapshot, refine the question, targeted retrieval, grade with the
 * snapshot's budget, stop. Never classifies, fans out, synthesizes or rewrites (a `rewrite` route is returned).
 */
export function resumeRag(models: Models, snapshotInput: unknown, userAnswer: string): RunOutcome {
  const snapshot = parseHitlResumeState(snapshotInput);
  const refined = refinedQuestionForHitl(snapshot, userAnswer);
  let rawTrace = mergeTraceFragments(null, resumeStartFragment(snapshot, refined, userAnswer));
  const retrieval = models.retrieve(refined);
  rawTrace = mergeTraceFragments(
    rawTrace,
    targetedRetrievalFragment(refined, retrieval.docs),
    retrievalMetaFragment(retrieval.meta),
  );
  const graded = gradeDocuments(models, refined, retrieval.docs, snapshot.rewrite_count, false);
  rawTrace = mergeTraceFragments(rawTrace, graded.traceFragment);
  const run = {
    question: refined,
    route: graded.route,
    retrievalStatus: graded.retrievalStatus,
    rewriteCount: snapshot.rewrite_count,
    complexity: snapshot.complexity,
    complexityReason: snapshot.complexity_reason,
    subQuestions: snapshot.sub_questions,
    rawTrace,
  };
  return {
    ...run,
    docs: graded.docs,
    context: formatDocs(graded.docs),
    trace: normalized(rawTrace),
    snapshot: snapshotIfHitl(run),
    subResults: [],
  };
}
