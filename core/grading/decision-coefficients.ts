import type { FittedDecision } from './fitted-decision';

/*
 * Written by bench/grading/fit-decision.ts (do not edit by hand): logistic regression of "the evidence answers" on the
 * grading signals of the calibration splits named in fittedOn, whose rows hash to fittedOn.sha256.
 */
export const FITTED_DECISION: FittedDecision = {
  "version": "meaning-v1",
  "signals": [
    "best_similarity",
    "similarity_margin",
    "best_chunk_similarity",
    "sentence_coverage",
    "word_rule_answers",
    "coverage_of_nearest",
    "overall_coverage",
    "missing_required",
    "asks_kind",
    "kind_stated",
    "cross_lingual",
    "english",
    "english_similarity"
  ],
  "mean": [
    0.895772,
    0.062915,
    0.885661,
    0.502732,
    0.498044,
    0.490596,
    0.758254,
    0.245111,
    0.6206,
    0.367666,
    0,
    0.642764,
    0.571212
  ],
  "scale": [
    0.030125,
    0.027339,
    0.027974,
    0.360307,
    0.499996,
    0.30525,
    0.248954,
    0.430153,
    0.485238,
    0.48217,
    1,
    0.479185,
    0.426415
  ],
  "weights": [
    0.675967,
    0.390139,
    0.724683,
    0.45726,
    0.015347,
    -0.013033,
    0.611359,
    -0.277186,
    -0.179077,
    0.274178,
    0,
    0.466727,
    0.040422
  ],
  "intercept": 0.473833,
  "answerAt": 0.61,
  "rewriteAt": 0.31,
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
    "questions": 767,
    "sha256": "88ed27ca4d1159297e66c6e85e6eaf8d29b218e4341bfb529f1cc632f6a8568d",
    "date": "2026-12-05"
  }
};
