import type { FittedDecision } from './fitted-decision';

/*
 * The grade by probability (issue 43 §1): the offline decision's P(the evidence answers) (fitted-decision.ts, from the
 * signals of meaning and words) and the model's P(yes) that a candidate answers — the likeliest of the first
 * candidates — combined by a logistic regression fitted on the calibration splits (bench/grading/fit-probability.ts
 * writes probability-coefficients.ts). Without a P(yes) (the model said neither yes nor no), the offline decision
 * stands alone. Pure.
 */

export type ProbabilityDecision = {
  version: string;
  /** Candidates asked, in retrieval order. */
  candidates: number;
  /** Weights of logit(P offline) and logit(max P(yes)), and the intercept. */
  weights: readonly [number, number];
  intercept: number;
  answerAt: number;
  rewriteAt: number;
  fittedOn: { sets: readonly string[]; questions: number; sha256: string; date: string; model: string };
};

const EPSILON = 1e-4;
export const logit = (p: number): number => {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The features of one question: logit of the offline probability, logit of the likeliest candidate's P(yes). */
export function probabilityFeatures(offline: number, yes: readonly (number | null)[]): [number, number] | null {
  const known = yes.filter((p): p is number => p !== null);
  return known.length === 0 ? null : [logit(offline), logit(Math.max(...known))];
}

/**
 * The combined decision as the offline grade applies it (core/grading/meaning-grade.ts): P(answers) and the
 * thresholds to route it by. `offline` is the offline decision's P; without any P(yes), its own thresholds.
 */
export function combinedDecision(offline: number, yes: readonly (number | null)[], model: ProbabilityDecision, fallback: Pick<FittedDecision, 'answerAt' | 'rewriteAt'>) {
  const features = probabilityFeatures(offline, yes);
  if (features === null) return { p: offline, answerAt: fallback.answerAt, rewriteAt: fallback.rewriteAt, why: 'no P(yes): the offline decision alone' };
  const p = sigmoid(model.intercept + features[0] * model.weights[0] + features[1] * model.weights[1]);
  const best = Math.max(...yes.filter((value): value is number => value !== null));
  return { p, answerAt: model.answerAt, rewriteAt: model.rewriteAt, why: `${model.version}: P(offline)=${offline.toFixed(2)}, P(yes) of the best of ${yes.length} candidates=${best.toFixed(2)}` };
}
