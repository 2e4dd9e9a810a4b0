import { z } from 'zod';

/*
 * What answered a run (issue 43 §5): the provider and the models that graded its evidence and wrote its answer, read
 * from what the run already records — the provider's description each model activity returns (`producedBy`, the run
 * memo's `models`) and the answer's `model`. A worker of another provider answering a question is then visible in
 * the outcome, not only in the Temporal UI's memo.
 */
export const AnsweredBy = z.object({
  /** `openai` (any OpenAI-compatible endpoint: a hosted API or the local model server) or `offline` (the rules). */
  provider: z.enum(['openai', 'offline']),
  /** host[:port] of the OpenAI-compatible endpoint; null for the offline policy. */
  endpoint: z.string().nullable(),
  /** The model (or policy version) that grades evidence: GRADE_MODEL, or the offline policy's version. */
  grader: z.string(),
  /** The model that wrote the answer (the answer's `model`); null when the run wrote none. */
  writer: z.string().nullable(),
  /** The provider's description as the run memo records it, each model's rung and temperature included. */
  models: z.string(),
});
export type AnsweredBy = z.infer<typeof AnsweredBy>;
