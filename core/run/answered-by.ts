import type { AnsweredBy } from '../schemas/answered-by';

/*
 * The provider's description (ChatModels.describe) is written here and read back here, so its form is defined once:
 * the OpenAI-compatible adapter's "openai fast=… grade=… answer=… @ host", with " [model: rung, temperature; …]"
 * after it once describeWithPlans adds the plans; anything else is the offline policy's version
 * ("offline-policy v3 (…)"). Pure.
 */

export type OpenAiModelNames = { fast: string | undefined; grade: string | undefined; answer: string | undefined; host: string };

const UNSET = '(unset)';

/** "openai fast=gpt-5-mini grade=gpt-5-mini answer=gpt-5 @ api.openai.com": the adapter's description. */
export function describeOpenAiModels({ fast, grade, answer, host }: OpenAiModelNames): string {
  return `openai fast=${fast || UNSET} grade=${grade || UNSET} answer=${answer || UNSET} @ ${host}`;
}

const OPENAI = /^openai fast=(\S+) grade=(\S+) answer=(\S+) @ (\S+)/;
const RULES = / rules=([a-z,]+) by (.+?)(?= \[| grade=probability|$)/;
const PROBABILITY = / grade=probability\((\S+)\) by (.+?)(?= \[|$)/;

/** The grade by probability (issue 43 §1, activities/adapters/probability-grade.ts): the model's yes/no and the rules. */
export function describeProbabilityGrade(models: string, yesModel: string, rules: string): string {
  return `${models} grade=probability(${yesModel}) by ${rules}`;
}

/**
 * What answered a run, from its recorded provider description (`models`, null when no model activity reported one:
 * the run is recorded before it, or failed before a model call) and the answer's writer (null: no answer).
 */
export function answeredBy(models: string | null, writer: string | null): AnsweredBy | null {
  if (models === null) return null;
  const openai = OPENAI.exec(models);
  // " rules=plan,grade,… by offline-policy v3 (…)" (activities/adapters/rule-steps.ts): the rules graded, not the model.
  const rules = RULES.exec(models);
  const probability = PROBABILITY.exec(models);
  const grader = probability
    ? `${probability[1] as string} P(yes) with ${probability[2] as string}`
    : rules && (rules[1] as string).split(',').includes('grade') ? (rules[2] as string) : null;
  if (openai) return { provider: 'openai', endpoint: openai[4] as string, grader: grader ?? (openai[2] as string), writer, models };
  return { provider: 'offline', endpoint: null, grader: models, writer, models };
}

/** One line: "offline-policy v3 (…) (grader) · offline-policy v2 extractive (writer)", the endpoint first for a model server. */
export function answeredByText(by: AnsweredBy): string {
  const where = by.endpoint === null ? '' : `${by.provider} @ ${by.endpoint}: `;
  return `${where}${by.grader} (grader)${by.writer === null ? '' : ` · ${by.writer} (writer)`}`;
}
