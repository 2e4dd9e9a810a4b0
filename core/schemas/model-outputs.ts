import { z } from 'zod';
import { Ambiguity, Answerability, Complexity, Relevance, RewriteMethod, Route } from './graph-values';

/** The grader's structured output (spec §7.1). */
export const EvidenceGrade = z.object({
  relevance: Relevance,
  answerability: Answerability,
  ambiguity: Ambiguity.default('none'),
  route: Route,
  confidence: z.number().min(0).max(1).default(0),
  missing_slots: z.array(z.string()).default([]),
  hitl_prompt: z.string().default(''),
  hitl_options: z.array(z.string()).default([]),
  reason: z.string().default(''),
});
export type EvidenceGrade = z.infer<typeof EvidenceGrade>;

/** spec §7.2: more than 4 sub-questions fails validation; the prompt asks for 2–4 but 1 is accepted (T26). */
export const MAX_SUB_QUESTIONS = 4;

/** The complexity planner's structured output (spec §7.2). */
export const ComplexityResult = z.object({
  complexity: Complexity,
  reason: z.string().default(''),
  sub_questions: z.array(z.string()).max(MAX_SUB_QUESTIONS).default([]),
});
export type ComplexityResult = z.infer<typeof ComplexityResult>;

/** spec §7.3 length limits of the rewrite texts. */
export const STEP_BACK_QUESTION_MAX = 300;
export const HYDE_DOCUMENT_MAX = 1200;

/** The rewrite planner's structured output (spec §7.3). */
export const RewritePlan = z.object({
  method: RewriteMethod,
  step_back_question: z.string().max(STEP_BACK_QUESTION_MAX).default(''),
  hyde_document: z.string().max(HYDE_DOCUMENT_MAX).default(''),
});
export type RewritePlan = z.infer<typeof RewritePlan>;
