import { z } from 'zod';
import { OutputMode } from '../model-output/output-mode';

/*
 * How a model was called (issue 24 §1): the structured-output rung and the temperature a model call used, what the
 * ladder changed on the way and why. Model activities return one record per model call beside their data; the
 * 59-field trace is not touched (a provider that needs a lower rung leaves the same trace as a json_schema one). The
 * offline policy provider calls no model and so has no records.
 */

/** One change during a call: a rung refused (output_mode), the temperature refused, or an invalid reply re-asked. */
export const ModelCallStep = z.object({
  kind: z.enum(['output_mode', 'temperature', 'reask']),
  from: z.string(),
  to: z.string(),
  reason: z.string(),
});
export type ModelCallStep = z.infer<typeof ModelCallStep>;

export const ModelCallRecord = z.object({
  /** The structured output asked for: complexity_result, evidence_grade, rewrite_plan, answer_draft. */
  schema: z.string(),
  model: z.string(),
  /** host[:port] of the endpoint. */
  endpoint: z.string(),
  /** The rung of the last request (the one that produced the reply, when there is one). */
  outputMode: OutputMode,
  /** The temperature of that request; null when none was sent. */
  temperature: z.number().nullable(),
  /** HTTP requests the call made (refusals and the re-ask included). */
  requests: z.number().int().min(0),
  steps: z.array(ModelCallStep),
});
export type ModelCallRecord = z.infer<typeof ModelCallRecord>;

/** What a model will be sent next, and why: the worker's start-up line, `ragtime doctor`, the run memo. */
export const ModelPlan = z.object({
  model: z.string(),
  endpoint: z.string(),
  /** The model variables that name it (FAST_MODEL, GRADE_MODEL, ANSWER_MODEL). */
  variables: z.array(z.string()),
  outputMode: OutputMode,
  outputReason: z.string(),
  temperature: z.number().nullable(),
  temperatureReason: z.string(),
  /** Issue 43 §1: whether the endpoint returns token log-probabilities for this model (the grade by probability). */
  logprobs: z.enum(['untried', 'supported', 'unsupported']).optional(),
  logprobsReason: z.string().optional(),
});
export type ModelPlan = z.infer<typeof ModelPlan>;

/** A plan on one line: "gpt-5-mini: tools (json_schema refused: …), temperature omitted (…)". */
export function describeModelPlan(plan: ModelPlan): string {
  const temperature = plan.temperature === null ? 'temperature omitted' : `temperature ${plan.temperature}`;
  const logprobs = plan.logprobs === undefined ? '' : `, logprobs ${plan.logprobs}${plan.logprobsReason ? ` (${plan.logprobsReason})` : ''}`;
  return `${plan.model}: ${plan.outputMode} (${plan.outputReason}), ${temperature} (${plan.temperatureReason})${logprobs}`;
}

/** The provider's description with each model's rung and temperature now: what a run's memo shows as its models. */
export function describeWithPlans(describe: string, plans: ModelPlan[] | undefined): string {
  if (!plans || plans.length === 0) return describe;
  const how = plans.map((plan) => `${plan.model}: ${plan.outputMode}, ${plan.temperature === null ? 'no temperature' : `temperature ${plan.temperature}`}`);
  return `${describe} [${how.join('; ')}]`;
}
