import type { ProbabilityDecision } from './probability-decision';

/*
 * Written by bench/grading/fit-probability.ts (do not edit by hand): the grade by probability's combination of the
 * offline decision and the local model's P(yes), fitted on the calibration rows named in fittedOn.
 */
export const PROBABILITY_DECISION: ProbabilityDecision = {
  "version": "yes-no-v0",
  "candidates": 2,
  "weights": [1, 1],
  "intercept": 0,
  "answerAt": 0.61,
  "rewriteAt": 0.31,
  "fittedOn": { "sets": [], "questions": 0, "sha256": "", "date": "", "model": "" }
};
