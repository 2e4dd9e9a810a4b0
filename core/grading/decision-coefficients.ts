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
    0.871932,
    0.133676,
    0.439234,
    0.39392,
    -0.050842,
    -0.100681,
    0.404725,
    -0.277726,
    -0.244622,
    0.226882,
    0,
    0.387994,
    -0.215291
  ],
  "intercept": -0.141819,
  "answerAt": 0.46,
  "rewriteAt": 0.23,
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
    "sha256": "dffcecfb32c4b0a5de2c2cf2490c92a78b7f26bec728fe57e3fabb8e49102537",
    "date": "2026-12-05"
  }
};
