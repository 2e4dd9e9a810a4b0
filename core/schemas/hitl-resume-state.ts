import { z } from 'zod';
import { MAX_SUB_QUESTIONS } from './model-outputs';

/**
 * The snapshot a run leaves when it waits for a person (spec §5.4). Strict: extra keys, an empty question,
 * a non-HITL route or status, a negative rewrite_count or more than 4 sub-questions are rejected (T32).
 * Route and status are not cross-checked, as in the original.
 */
export const HitlResumeState = z.strictObject({
  question: z.string().min(1),
  route: z.enum(['clarify', 'scope_select']),
  retrieval_status: z.enum(['needs_clarification', 'needs_scope_selection']),
  rewrite_count: z.number().int().min(0).default(0),
  complexity: z.enum(['simple', 'complex']).nullable().default(null),
  complexity_reason: z.string().nullable().default(null),
  sub_questions: z.array(z.string()).max(MAX_SUB_QUESTIONS).default([]),
});
export type HitlResumeState = z.infer<typeof HitlResumeState>;
