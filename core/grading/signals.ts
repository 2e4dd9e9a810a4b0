import { answerKind, statesKind } from '../answer/answer-kind';
import { SUFFICIENT_COVERAGE, type GradeInput } from '../offline-policy/grade-policy';
import { sentenceCoverage, termCoverage } from '../offline-policy/term-coverage';
import { textLanguage } from '../text/language';
import type { GradingSentence } from './grading-sentences';

/*
 * The signals the fitted decision reads (DESIGN §4c, issue 42 §2–§3): meaning (the bundled embedding model's
 * question ↔ sentence similarity), the kind of answer the question asks for and whether the sentences that mean the
 * most state one, and word coverage as one signal among these. Pure: the similarities come in, computed by the
 * grading activity (activities/adapters/meaning-reader.ts). The evidence's texts are read with their context in front
 * (activities/adapters/offline-chat-models.ts gradeInput), so a leaf's title counts as words it holds.
 */

/** How many of the sentences nearest the question in meaning are read for the kind of answer it asks for. */
export const KIND_SENTENCES = 3;

/** The names of the signals, in the order the fitted coefficients use (core/grading/decision-coefficients.ts). */
export const SIGNAL_NAMES = [
  'best_similarity',
  'similarity_margin',
  'best_chunk_similarity',
  'sentence_coverage',
  'word_rule_answers',
  'coverage_of_nearest',
  'overall_coverage',
  'missing_required',
  'asks_kind',
  'kind_stated',
  'cross_lingual',
  'english',
  'english_similarity',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];
export type GradeSignals = Record<SignalName, number>;

/** A sentence of the evidence and how near it is to the question in meaning (cosine of e5 vectors, -1..1). */
export type ReadSentence = GradingSentence & { similarity: number };

const round4 = (value: number): number => Math.round(value * 1e4) / 1e4;

/**
 * The signals of one grade. `sentences` are the evidence's sentences with their similarity to the question
 * (grading-sentences.ts); with none (no evidence, or nothing readable), the meaning signals are 0.
 */
export function gradeSignals(input: GradeInput, sentences: readonly ReadSentence[]): GradeSignals {
  const { terms, evidence, question } = input;
  const byMeaning = [...sentences].sort((a, b) => b.similarity - a.similarity);
  const best = byMeaning[0];
  const mean = sentences.length > 0 ? sentences.reduce((sum, s) => sum + s.similarity, 0) / sentences.length : 0;
  // A chunk's meaning: its two nearest sentences (one sentence answers; the next often carries the command or figure).
  const perChunk = new Map<number, number[]>();
  for (const sentence of byMeaning) perChunk.set(sentence.chunk, [...(perChunk.get(sentence.chunk) ?? []), sentence.similarity]);
  const chunkMeaning = [...perChunk.values()].map((sims) => (sims[0]! + (sims[1] ?? sims[0]!)) / 2);
  const lexical = evidence.map((chunk) => sentenceCoverage(terms, chunk.text));
  const complete = lexical.filter((coverage) => coverage.missingRequired.length === 0);
  const bestComplete = complete.length > 0 ? Math.max(...complete.map((coverage) => coverage.share)) : 0;
  const overall = termCoverage(terms, evidence.map((chunk) => chunk.text).join('\n'));
  const kind = answerKind(question);
  const english = textLanguage(question) === 'en';
  const nearest = byMeaning.slice(0, KIND_SENTENCES);
  return {
    best_similarity: round4(best?.similarity ?? 0),
    similarity_margin: round4(best ? best.similarity - mean : 0),
    best_chunk_similarity: round4(chunkMeaning.length > 0 ? Math.max(...chunkMeaning) : 0),
    sentence_coverage: round4(bestComplete),
    // The word rule of offline-policy v2 (docs/offline-policy.md): a chunk with every named thing and a sentence
    // holding SUFFICIENT_COVERAGE of the question. A step the linear decision cannot draw from coverage alone.
    word_rule_answers: bestComplete + 1e-9 >= SUFFICIENT_COVERAGE ? 1 : 0,
    coverage_of_nearest: round4(best ? termCoverage(terms, best.embedText).share : 0),
    overall_coverage: round4(overall.share),
    missing_required: overall.missingRequired.length > 0 ? 1 : 0,
    asks_kind: kind ? 1 : 0,
    kind_stated: kind && nearest.some((sentence) => statesKind(kind, sentence.text)) ? 1 : 0,
    cross_lingual: best && textLanguage(best.text) !== textLanguage(question) ? 1 : 0,
    // e5's cosines sit higher between Chinese texts than between English ones (answering sentences: ~0.94 against
    // ~0.90 on the calibration sets): the language and its own slope let one decision serve both.
    english: english ? 1 : 0,
    english_similarity: english ? round4(best?.similarity ?? 0) : 0,
  };
}
