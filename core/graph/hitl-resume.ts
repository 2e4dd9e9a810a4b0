import { RagError, describeZodError } from '../errors';
import { pythonStrip } from '../python-text';
import { HITL_ROUTES, HITL_STATUSES } from '../schemas/graph-values';
import { HitlResumeState } from '../schemas/hitl-resume-state';
import type { RawRagTrace } from '../trace/raw-trace';

/** The run-level values the HITL helpers read, next to the trace (spec §4.1). */
export type RunResult = {
  question?: string | null;
  route?: string | null;
  retrieval_status?: string | null;
  rewrite_count?: number | null;
  complexity?: string | null;
  complexity_reason?: string | null;
  sub_questions?: string[] | null;
  rag_trace?: RawRagTrace | null;
};

/** `_is_hitl_result` (spec §4.1): the run waits for a person. Result values win over the trace's. */
export function isHitlResult(result: RunResult): boolean {
  const trace = result.rag_trace ?? {};
  const status = result.retrieval_status || trace.retrieval_status;
  const route = result.route || trace.route;
  return (typeof status === 'string' && HITL_STATUSES.has(status)) || (typeof route === 'string' && HITL_ROUTES.has(route));
}

/** Validates a resume snapshot strictly (spec §4.11.2 step 1, T32); the error says which rule broke. */
export function parseHitlResumeState(snapshot: unknown): HitlResumeState {
  const parsed = HitlResumeState.safeParse(snapshot);
  if (!parsed.success) {
    throw new RagError('INVALID_RESUME_STATE', describeZodError('invalid HITL resume snapshot', parsed.error));
  }
  return parsed.data;
}

/**
 * `_build_hitl_resume_state` (spec §4.1): each value is the result's when truthy, else the trace's; validated and
 * returned with all 7 keys.
 */
export function buildHitlResumeState(result: RunResult): HitlResumeState {
  const trace = result.rag_trace ?? {};
  const subQuestions = result.sub_questions?.length ? result.sub_questions : trace.sub_questions;
  return parseHitlResumeState({
    question: result.question || trace.query || '',
    route: result.route || trace.route,
    retrieval_status: result.retrieval_status || trace.retrieval_status,
    rewrite_count: Math.trunc(result.rewrite_count ?? 0),
    // Python's `a or b` returns b even when b is falsy (e.g. ""), which JS `||` reproduces.
    complexity: (result.complexity || trace.complexity) ?? null,
    complexity_reason: (result.complexity_reason || trace.complexity_reason) ?? null,
    sub_questions: subQuestions?.length ? [...subQuestions] : [],
  });
}

/**
 * `_refined_question_for_hitl` (spec §4.11.1): the person's answer is prepended with a full-width colon, unless it
 * is already part of the question.
 */
export function refinedQuestionForHitl(snapshot: Pick<HitlResumeState, 'question'>, userAnswer: string): string {
  const question = snapshot.question || '';
  const answer = pythonStrip(userAnswer);
  if (!question) return answer;
  if (!answer || question.includes(answer)) return question;
  return `${answer}：${question}`;
}
