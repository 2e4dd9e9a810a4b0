import { z } from 'zod';

/*
 * Which steps of a run call the model and which the offline policy's rules do (issue 43 §2): a small local model is
 * slow and weak at planning, rewriting and grading, and good enough at writing the cited answer, so with
 * MODEL_PROVIDER=local only the answer is the model's by default. MODEL_STEPS overrides per step
 * ("grade=model,plan=rules"); with the offline provider every step is rules anyway. `intent` (issue 44 §5): who replies to
 * a greeting, a thanks or a question about the conversation once the intent rules found one. Pure.
 */

export const MODEL_STEP_NAMES = ['plan', 'grade', 'rewrite', 'condense', 'intent'] as const;
export type ModelStepName = (typeof MODEL_STEP_NAMES)[number];
export const StepSource = z.enum(['model', 'rules']);
export type StepSource = z.infer<typeof StepSource>;
/**
 * The grade has a third way (issue 43 §1): `probability`, the model's yes/no per candidate read from its token
 * log-probabilities and combined with the rules' signals (core/grading/probability-decision.ts); a model whose endpoint
 * returns no log-probabilities is graded by the spec's structured grade instead.
 */
export const GradeSource = z.enum(['model', 'rules', 'probability']);
export type GradeSource = z.infer<typeof GradeSource>;
export const ModelSteps = z.object({ plan: StepSource, grade: GradeSource, rewrite: StepSource, condense: StepSource, intent: StepSource });
export type ModelSteps = z.infer<typeof ModelSteps>;

/** A hosted model does every step (the spec's graph). */
export const MODEL_FOR_EVERY_STEP: ModelSteps = { plan: 'model', grade: 'model', rewrite: 'model', condense: 'model', intent: 'model' };
/**
 * The local model writes the answer and grades by probability (its yes/no with the offline-policy v3 signals); rules
 * plan, rewrite, condense and reply to chit-chat.
 */
export const LOCAL_MODEL_STEPS: ModelSteps = { plan: 'rules', grade: 'probability', rewrite: 'rules', condense: 'rules', intent: 'rules' };

/**
 * MODEL_STEPS: comma-separated `step=model|rules` (steps: plan, grade, rewrite, condense, intent); unnamed steps keep the
 * provider's default. A malformed entry is reported (a typed config error) and the default kept.
 */
export function parseModelSteps(value: string | undefined, local: boolean, report: (message: string) => void): ModelSteps {
  const steps: ModelSteps = { ...(local ? LOCAL_MODEL_STEPS : MODEL_FOR_EVERY_STEP) };
  if (value === undefined || value.trim() === '') return steps;
  for (const entry of value.split(',')) {
    const [name = '', source = ''] = entry.split('=').map((part) => part.trim().toLowerCase());
    const step = (MODEL_STEP_NAMES as readonly string[]).includes(name) ? (name as ModelStepName) : null;
    const parsed = (step === 'grade' ? GradeSource : StepSource).safeParse(source);
    if (step === null || !parsed.success) {
      report(`MODEL_STEPS entry "${entry.trim()}" is not step=model|rules (grade=probability too) with a step of ${MODEL_STEP_NAMES.join(', ')}: e.g. MODEL_STEPS=grade=model,plan=rules`);
      continue;
    }
    (steps as Record<ModelStepName, string>)[step] = parsed.data;
  }
  return steps;
}

/** The steps the rules do, in order ("plan,grade,rewrite"): none for a hosted model by default. */
export const ruleSteps = (steps: ModelSteps): ModelStepName[] => MODEL_STEP_NAMES.filter((name) => steps[name] === 'rules');
