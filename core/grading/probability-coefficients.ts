import type { ProbabilityDecision } from './probability-decision';

/*
 * Written by bench/grading/fit-probability.ts (do not edit by hand): the grade by probability's combination of the
 * offline decision and the local model's P(yes), fitted on the calibration rows named in fittedOn.
 */
export const PROBABILITY_DECISION: ProbabilityDecision = {
  "version": "yes-no-v2",
  "candidates": 2,
  "weights": [
    1.3426,
    0.2736
  ],
  "intercept": -0.0414,
  "answerAt": 0.57,
  "rewriteAt": 0.28,
  "fittedOn": {
    "sets": [
      "cli-pages",
      "cmrc-answerability",
      "debian-faq",
      "django-notes",
      "news-en",
      "news-zh",
      "security-reports",
      "two-part"
    ],
    "questions": 90,
    "sha256": "58228f58d9f4bbf753099714bf74a426ae9ca826e08789e7c6c6673fd8e7fa67",
    "date": "2026-12-05",
    "model": "qwen2.5-coder-1.5b-instruct"
  }
};
