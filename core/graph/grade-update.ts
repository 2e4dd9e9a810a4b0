import type { EvidenceGrade } from '../schemas/model-outputs';
import type { RetrievalStatus, Route } from '../schemas/graph-values';

/** spec §4.5.1: the grade used when retrieval found nothing; the grader is not called. */
export const NO_DOCS_GRADE: EvidenceGrade = Object.freeze({
  relevance: 'none',
  answerability: 'none',
  ambiguity: 'none',
  route: 'no_knowledge',
  confidence: 1.0,
  reason: 'no_retrieved_documents',
  missing_slots: [],
  hitl_prompt: '',
  hitl_options: [],
}) as EvidenceGrade;

/** A fresh copy of the no-docs grade (spec §4.5.1), safe to hand to callers that may keep it. */
export function gradeForNoDocs(): EvidenceGrade {
  return { ...NO_DOCS_GRADE, missing_slots: [], hitl_options: [] };
}

/** `_retrieval_status_for_route` (spec §4.5.4). */
export function retrievalStatusForRoute(route: Route, grade: Pick<EvidenceGrade, 'answerability'>): RetrievalStatus {
  switch (route) {
    case 'answer':
      return grade.answerability === 'partial' ? 'partial' : 'answerable';
    case 'rewrite':
      return 'needs_rewrite';
    case 'clarify':
      return 'needs_clarification';
    case 'scope_select':
      return 'needs_scope_selection';
    default:
      return 'no_knowledge';
  }
}

/** spec §4.5.5 default prompts, exact texts. */
export const SCOPE_SELECT_PROMPT = '我在知识库中找到了多个可能相关的方向。你想问的是哪一个？';
export const MISSING_SLOTS_PROMPT_PREFIX = '我找到了相关内容，但还缺少关键信息：';
export const GENERIC_CLARIFY_PROMPT = '我找到了相关内容，但证据不足以确定答案。请补充一下你具体想问的条件。';

/** The prompt shown to the person; "" for every route that does not ask one (spec §4.5.5). */
export function resolveHitlPrompt(route: Route, grade: EvidenceGrade): string {
  if (route !== 'clarify' && route !== 'scope_select') return '';
  if (grade.hitl_prompt) return grade.hitl_prompt;
  if (route === 'scope_select') return SCOPE_SELECT_PROMPT;
  if (grade.missing_slots.length > 0) return MISSING_SLOTS_PROMPT_PREFIX + grade.missing_slots.join('、');
  return GENERIC_CLARIFY_PROMPT;
}

/** The GRADE group written into the trace after every grade: all 10 keys, always (spec §4.5.6). */
export type GradeUpdate = {
  retrieval_status: RetrievalStatus;
  evidence_relevance: EvidenceGrade['relevance'];
  evidence_answerability: EvidenceGrade['answerability'];
  evidence_ambiguity: EvidenceGrade['ambiguity'];
  evidence_confidence: number;
  evidence_reason: string;
  missing_slots: string[];
  hitl_prompt: string;
  hitl_options: string[];
  route: Route;
};

/** `_grade_update` (spec §4.5.6). hitl_options are the grade's for every route, not cleared for non-HITL routes. */
export function gradeUpdate(grade: EvidenceGrade, route: Route): GradeUpdate {
  return {
    retrieval_status: retrievalStatusForRoute(route, grade),
    evidence_relevance: grade.relevance,
    evidence_answerability: grade.answerability,
    evidence_ambiguity: grade.ambiguity,
    evidence_confidence: grade.confidence,
    evidence_reason: grade.reason,
    missing_slots: [...grade.missing_slots],
    hitl_prompt: resolveHitlPrompt(route, grade),
    hitl_options: [...grade.hitl_options],
    route,
  };
}
