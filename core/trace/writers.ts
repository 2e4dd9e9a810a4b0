import type { GradeUpdate } from '../graph/grade-update';
import { TOOL_NAME, type RewriteMethod } from '../schemas/graph-values';
import type { HitlResumeState } from '../schemas/hitl-resume-state';
import type { RetrievalDiagnostics } from '../schemas/retrieval-diagnostics';
import type { Chunk } from '../schemas/retrieved-chunk';
import { nonNullRetrievalMeta, type TraceFragment } from './fragment';
import type { RetrievalMeta } from './raw-trace';

/**
 * What a retrieval contributes to the trace: the R group, non-null keys only (spec §6.9), replacing the previous
 * retrieval's group whole (DESIGN §4). The retrieve activity returns it as its trace fragment.
 */
export function retrievalMetaFragment(meta: RetrievalMeta): TraceFragment {
  return { replacesRetrievalMeta: true, fields: nonNullRetrievalMeta(meta) };
}

/*
 * One fragment builder per trace-writing step of the graph (spec §4.4–§4.11). Each says exactly which keys its
 * step writes; the order in which a run folds them is the graph's order.
 */

/**
 * What a retrieval returns: the docs, the R group (spec §6.9), and optionally the retrieval diagnostics that live
 * beside the 59-field protocol (DESIGN §5 layer A); they never enter the trace.
 */
export type RetrievalResult = {
  docs: Chunk[];
  meta: RetrievalMeta;
  diagnostics?: RetrievalDiagnostics;
  /** The knowledge base read, by name (the worker's default when the run named none); absent from older results. */
  kb?: string;
};

/**
 * `retrieve_initial` (spec §4.4 step 5): creates a new trace. Complexity fields are null in sub-agents.
 * The R group comes from the retrieval's own fragment (`retrievalMetaFragment`), merged after this one.
 */
export function initialRetrievalFragment(input: {
  query: string;
  docs: Chunk[];
  complexity: string | null;
  complexityReason: string | null;
}): TraceFragment {
  const { docs } = input;
  return {
    startsTrace: true,
    fields: {
      tool_used: true,
      tool_name: TOOL_NAME,
      query: input.query,
      retrieved_chunks: docs,
      initial_retrieved_chunks: docs,
      retrieval_stage: 'initial',
      complexity: input.complexity,
      complexity_reason: input.complexityReason,
    },
  };
}

/**
 * `grade_documents_node` (spec §4.5 steps 4 and 7): the GRADE group; for clarify/scope_select with non-empty docs
 * the current evidence list is emptied (the initial/rewrite/targeted snapshots keep theirs).
 */
export function gradeFragment(update: GradeUpdate, hadDocs: boolean): TraceFragment {
  const clearsEvidence = hadDocs && (update.route === 'clarify' || update.route === 'scope_select');
  return { fields: { ...update, ...(clearsEvidence ? { retrieved_chunks: [] } : {}) } };
}

export type Rewrite = {
  rewrite_method: RewriteMethod;
  rewritten_query: string;
  step_back_question: string;
  hyde_document: string;
};

/** Only the text of the chosen method is written; the other key stays absent (spec §4.7.1 step 5). */
function rewriteTexts(rewrite: Rewrite): TraceFragment['fields'] {
  return {
    ...(rewrite.step_back_question ? { step_back_question: rewrite.step_back_question } : {}),
    ...(rewrite.hyde_document ? { hyde_document: rewrite.hyde_document } : {}),
  };
}

/** `rewrite_question_node` (spec §4.7.1 step 5): writes the raw-only `rewrite_count`; GRADE fields stay. */
export function rewritePlanFragment(rewrite: Rewrite, rewriteCountBefore: number): TraceFragment {
  return {
    fields: {
      rewrite_method: rewrite.rewrite_method,
      rewritten_query: rewrite.rewritten_query,
      rewrite_count: rewriteCountBefore + 1,
      ...rewriteTexts(rewrite),
    },
  };
}

/** `retrieve_rewritten` (spec §4.8 step 5). The query stays Q; the R group comes from the retrieval's fragment. */
export function rewrittenRetrievalFragment(rewrite: Rewrite, docs: Chunk[]): TraceFragment {
  return {
    fields: {
      rewrite_method: rewrite.rewrite_method,
      rewritten_query: rewrite.rewritten_query,
      retrieved_chunks: docs,
      rewrite_retrieved_chunks: docs,
      retrieval_stage: 'rewritten',
      ...rewriteTexts(rewrite),
    },
  };
}

/** The defensive rewrite branch (spec §4.7.2, T33): a terminal no_knowledge guard, never a normal edge. */
export function rewriteBudgetExhaustedFragment(): TraceFragment {
  return {
    fields: { retrieval_status: 'no_knowledge', route: 'no_knowledge', evidence_reason: 'rewrite_budget_exhausted' },
  };
}

/** `_state_from_resume` (spec §4.11.2 step 3): a new trace for the resumed turn. */
export function resumeStartFragment(snapshot: HitlResumeState, refinedQuestion: string, rawAnswer: string): TraceFragment {
  return {
    startsTrace: true,
    fields: {
      tool_used: true,
      tool_name: TOOL_NAME,
      query: refinedQuestion,
      hitl_resumed: true,
      hitl_answer: rawAnswer,
      hitl_resume_from_status: snapshot.retrieval_status,
      hitl_resume_from_route: snapshot.route,
      ...(snapshot.complexity ? { complexity: snapshot.complexity } : {}),
      ...(snapshot.complexity_reason ? { complexity_reason: snapshot.complexity_reason } : {}),
      ...(snapshot.sub_questions.length > 0 ? { sub_questions: [...snapshot.sub_questions] } : {}),
    },
  };
}

/**
 * `_retrieve_resume_query` (spec §4.11.3 step 3); `initial_retrieved_chunks` is never written in a resume.
 * The R group comes from the retrieval's fragment.
 */
export function targetedRetrievalFragment(refinedQuestion: string, docs: Chunk[]): TraceFragment {
  return {
    fields: {
      tool_used: true,
      tool_name: TOOL_NAME,
      query: refinedQuestion,
      retrieved_chunks: docs,
      hitl_targeted_retrieved_chunks: docs,
      hitl_resumed: true,
      hitl_resume_strategy: 'targeted_retrieval',
      retrieval_stage: 'hitl_targeted_retrieval',
    },
  };
}
