import type { ProbabilityDecision } from './probability-decision';

/*
 * Written by bench/grading/fit-probability.ts (do not edit by hand): the grade by probability's combination of the
 * offline decision and the local model's P(yes), fitted on the calibration rows named in fittedOn.
 */
export const PROBABILITY_DECISION: ProbabilityDecision = {
  "version": "yes-no-v1",
  "candidates": 2,
  "weights": [
    0.8431,
    0.1872
  ],
  "intercept": 0.1721,
  "answerAt": 0.73,
  "rewriteAt": 0.37,
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
    "questions": 37,
    "sha256": "16f13c333b5d61f86ffdace10206bee0acb054f7470734923a442db7c954b651",
    "date": "2026-12-05",
    "model": "qwen2.5-coder-1.5b-instruct"
  }
};
