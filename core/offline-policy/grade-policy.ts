import type { EvidenceGrade } from '../schemas/model-outputs';
import { hitlPromptFor } from './hitl-prompts';
import type { QuestionTerm, TaggedWord } from './question-terms';
import { sentenceCoverage, termCoverage, textSimilarity } from './term-coverage';
import { unresolvedSlot } from './text-signals';
import { agreement, answeringSentence } from './corroboration';
import { partTerms } from './part-terms';

/*
 * The offline grader v2: documented thresholds over what the evidence holds of the question, in the spirit of CRAG's
 * retrieval evaluator. It judges only the evidence it is given (spec §7.1) and suggests a route; resolveRoute still
 * decides. Signals: IDF-weighted coverage of the question's precise-mode terms, the specific things it names
 * (numbers, dates, names — required, whole tokens), and whether the documents that answer are about different
 * things or say the same. Rules, calibration and limits: docs/offline-policy.md.
 */

/**
 * A chunk names everything the question names and one of its sentences holds at least this weighted share of the
 * question: the question is answered.
 */
export const SUFFICIENT_COVERAGE = 0.6;
/** Below SUFFICIENT but at or above this, the evidence is on topic but partial: worth a rewrite. */
export const PARTIAL_COVERAGE = 0.4;
/** Below this over all the evidence together, the knowledge base has nothing on the question. */
export const RELEVANT_COVERAGE = 0.2;
/** Another document competes with the best when its coverage is within this of the best's. */
export const COMPETING_MARGIN = 0.05;
/** Two documents at least this similar (character-bigram Jaccard) say the same thing: they agree, not compete. */
export const DUPLICATE_SIMILARITY = 0.5;
/** What each further source stating the same answer adds to the grade's confidence. */
export const CORROBORATION_BONUS = 0.05;
/** At most this many choices are offered for scope selection. */
export const MAX_OPTIONS = 4;

/** The thresholds together: the grader runs on these; bench/calibrate-offline-grader.ts tries others. */
export const GRADE_THRESHOLDS = {
  sufficient: SUFFICIENT_COVERAGE,
  partial: PARTIAL_COVERAGE,
  relevant: RELEVANT_COVERAGE,
  competingMargin: COMPETING_MARGIN,
  duplicate: DUPLICATE_SIMILARITY,
};
export type GradeThresholds = typeof GRADE_THRESHOLDS;

export type EvidenceSignal = {
  filename: string;
  title: string;
  text: string;
  /** The named things of its file name (proper nouns, models: "Aurora", "X2"), lower-cased: what tells documents apart. */
  titleNames: string[];
};

export type GradeInput = {
  question: string;
  /** The question's words with their parts of speech (jieba precise mode). */
  words: TaggedWord[];
  terms: QuestionTerm[];
  evidence: EvidenceSignal[];
  /** The document a person chose (issue 32 §2): its evidence resolves what the question refers to ("这个型号"). */
  scope?: string;
};

export type Scored = EvidenceSignal & { share: number; complete: boolean };

/**
 * A weighted share against a threshold, with the floating-point error of summing weights forgiven: 3 of 5 equal
 * weights must be the 0.6 it is, not 0.5999… (measured on the Django release-notes set, issue 26 §2–§3).
 */
const atLeast = (share: number, limit: number): boolean => share + 1e-9 >= limit;

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** How the documents that answer equally well relate (issue 32 §1): those that disagree, and those that corroborate. */
type Candidates = {
  /** Documents about different things whose answers disagree: the choice scope_select offers (≥ 2), else []. */
  competing: Scored[];
  /** Other documents that answer as well and state the same as one already counted (the best included): ≥ 1. */
  agreeing: number;
  /** Why, for the grade's reason: the first disagreement or agreement found. */
  why: string | null;
};

/**
 * The documents the question does not pick between (issues 32 §1 and 42 §4). The candidates: besides the best, each
 * document whose best complete chunk is within COMPETING_MARGIN of it. A candidate whose answering sentence agrees
 * with one already chosen (corroboration.ts: the same facts by meaning, different parts of a question of several
 * parts, the same wording beyond the question) or that is a near-duplicate of one is another source for the same
 * answer. The others compete only when they are about different subjects the question leaves open, told apart by
 * their titles: each one's title names something (a product, a release) that the question does not name, that no
 * other candidate's text mentions, and that the others' titles do not name; and their titles differ, for they are the
 * options. So a differing number alone is never a reason to ask: reports of one event under different headlines,
 * whose names the other reports also mention, are one answer.
 */
export function weighCandidates(scored: readonly Scored[], best: Scored, input: GradeInput, limits: GradeThresholds): Candidates {
  const { terms, question } = input;
  const named = new Set(terms.map((term) => term.term));
  const parts = partTerms(input.words, terms);
  const answerOf = (chunk: Scored) => ({ sentence: answeringSentence(terms, chunk.text), ownNames: chunk.titleNames });
  const files = new Set<string>();
  const candidates = [best, ...scored].filter((chunk) => {
    if (files.has(chunk.filename) || !chunk.complete || chunk.share < best.share - limits.competingMargin) return false;
    files.add(chunk.filename);
    return true;
  });
  // A name the question gives, or that another candidate's text mentions, is not what tells this one apart.
  const subjectNames = (chunk: Scored) =>
    chunk.titleNames.filter(
      (name) =>
        ![...named].some((term) => term.includes(name) || name.includes(term)) &&
        !candidates.some((other) => other.filename !== chunk.filename && other.text.toLowerCase().includes(name)),
    );
  const chosen: Scored[] = [];
  let agreeing = 0;
  let why: string | null = null;
  for (const chunk of candidates) {
    const agreed = chosen.map((other) => ({ other, agreement: agreement(answerOf(other), answerOf(chunk), question, terms, parts) }));
    // Agreeing answers corroborate; so does a near-duplicate, unless its figures differ (one template, two products).
    const corroborates = agreed.find(({ other, agreement: found }) => found.agree || (!found.byFacts && textSimilarity(other.text, chunk.text) >= limits.duplicate));
    if (corroborates) {
      agreeing += 1;
      why ??= `${corroborates.other.title} and ${chunk.title} agree: ${corroborates.agreement.why}`;
      continue;
    }
    // A title that names nothing of its own (serial labels: DEV_519) is not a different subject to choose.
    const names = subjectNames(chunk);
    const apart = chosen.every((other) => other.title !== chunk.title && names.some((name) => !subjectNames(other).includes(name)));
    if (names.length === 0 || !apart) continue;
    if (agreed.length > 0) why = `${agreed[0]!.other.title} and ${chunk.title} disagree: ${agreed[0]!.agreement.why}`;
    chosen.push(chunk);
  }
  return { competing: chosen.length >= 2 ? chosen : [], agreeing, why };
}

/** Each chunk's best-sentence coverage and whether it holds every required term, complete and best first. */
export function scoreChunks(input: GradeInput): Scored[] {
  return input.evidence
    .map((chunk) => {
      const coverage = sentenceCoverage(input.terms, chunk.text);
      return { ...chunk, share: coverage.share, complete: coverage.missingRequired.length === 0 };
    })
    .sort((a, b) => Number(b.complete) - Number(a.complete) || b.share - a.share);
}

export function offlineGrade(input: GradeInput, limits: GradeThresholds = GRADE_THRESHOLDS): EvidenceGrade {
  const { terms, evidence } = input;
  const prompt = (route: EvidenceGrade['route'], missingSlots: string[] = []) => ({ hitl_prompt: hitlPromptFor(input.question, route, missingSlots) });
  const base = { missing_slots: [] as string[], hitl_options: [] as string[] };
  const overall = termCoverage(terms, evidence.map((chunk) => chunk.text).join('\n'));

  if (evidence.length === 0 || !atLeast(overall.share, limits.relevant)) {
    return {
      ...base, ...prompt('no_knowledge'), relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge', confidence: round2(1 - overall.share),
      reason: `offline: the evidence holds ${round2(overall.share)} of the question (< ${limits.relevant})`,
    };
  }

  const tokens = input.words.map((word) => word.word);
  const slot = input.scope ? null : unresolvedSlot(tokens, terms.map((term) => term.term), input.question);
  const scored = scoreChunks(input);
  const best = scored[0] as Scored;

  if (slot) {
    return {
      ...base, ...prompt('clarify', [slot]), relevance: 'weak', answerability: 'partial', ambiguity: 'missing_slot', route: 'clarify', confidence: round2(best.share),
      missing_slots: [slot], reason: `offline: the question refers to something it does not name (${slot})`,
    };
  }

  if (overall.missingRequired.length > 0) {
    return {
      ...base, ...prompt('rewrite'), relevance: 'weak', answerability: 'none', ambiguity: 'none', route: 'rewrite', confidence: round2(best.share),
      reason: `offline: the evidence never names ${overall.missingRequired.map((term) => `"${term}"`).join(', ')}`,
    };
  }

  if (best.complete && atLeast(best.share, limits.sufficient)) {
    const { competing, agreeing, why } = weighCandidates(scored, best, input, limits);
    if (competing.length >= 2) {
      return {
        ...base, ...prompt('scope_select'), relevance: 'strong', answerability: 'partial', ambiguity: 'multiple_candidates', route: 'scope_select', confidence: round2(best.share),
        hitl_options: competing.slice(0, MAX_OPTIONS).map((chunk) => chunk.title),
        reason: `offline: ${competing.length} documents about different things answer equally well and disagree on what the question leaves open (${why})`,
      };
    }
    // Each source that states the same answer adds to the confidence (issue 32 §1), up to 1.
    const confidence = Math.min(1, best.share + CORROBORATION_BONUS * agreeing);
    return {
      ...base, ...prompt('answer'), relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: round2(confidence),
      reason:
        agreeing > 0
          ? `offline: one chunk holds ${round2(best.share)} of the question and everything it names; ${agreeing + 1} sources corroborate it (${why})`
          : `offline: one chunk holds ${round2(best.share)} of the question and everything it names`,
    };
  }
  const partial = atLeast(best.share, limits.partial);
  return {
    ...base, ...prompt('rewrite'), relevance: 'weak', answerability: partial ? 'partial' : 'none', ambiguity: 'none', route: 'rewrite', confidence: round2(best.share),
    reason: best.complete
      ? `offline: the best chunk holds ${round2(best.share)} of the question (< ${limits.sufficient})`
      : `offline: no one chunk holds everything the question names`,
  };
}
