import type { GradeSignals, SignalName } from './signals';

/*
 * A decision fitted on data, not hand thresholds (DESIGN §4c, issue 42 §3): logistic regression over the grading
 * signals (signals.ts), P(the evidence answers the question). The coefficients are fitted by
 * bench/grading/fit-decision.ts on the calibration splits and written to decision-coefficients.ts with the hash of
 * the data they were fitted on; docs/offline-policy.md says what each signal weighs.
 */

export type FittedDecision = {
  version: string;
  signals: readonly SignalName[];
  /** Standardization: each signal's mean and standard deviation on the fitting data. */
  mean: readonly number[];
  scale: readonly number[];
  /** Weights of the standardized signals, and the intercept. */
  weights: readonly number[];
  intercept: number;
  /** At or above: the evidence answers (route answer, or scope_select when the candidates disagree). */
  answerAt: number;
  /** At or above (below answerAt): on topic but not enough, worth a rewrite; below: nothing on the question. */
  rewriteAt: number;
  fittedOn: { sets: readonly string[]; questions: number; sha256: string; date: string };
};

/** The standardized signal vector in the decision's order. */
export function standardized(signals: GradeSignals, model: Pick<FittedDecision, 'signals' | 'mean' | 'scale'>): number[] {
  return model.signals.map((name, i) => (signals[name] - (model.mean[i] ?? 0)) / (model.scale[i] || 1));
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** P(the evidence answers the question) under the fitted decision, 0..1. */
export function answerProbability(signals: GradeSignals, model: FittedDecision): number {
  const x = standardized(signals, model);
  return sigmoid(model.intercept + x.reduce((sum, value, i) => sum + value * (model.weights[i] ?? 0), 0));
}

/** Each signal's contribution to the log-odds, largest first: why the decision came out as it did. */
export function contributions(signals: GradeSignals, model: FittedDecision): Array<{ signal: SignalName; value: number; logOdds: number }> {
  const x = standardized(signals, model);
  return model.signals
    .map((signal, i) => ({ signal, value: signals[signal], logOdds: Math.round((x[i] ?? 0) * (model.weights[i] ?? 0) * 100) / 100 }))
    .sort((a, b) => Math.abs(b.logOdds) - Math.abs(a.logOdds));
}
