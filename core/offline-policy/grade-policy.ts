import type { EvidenceGrade } from '../schemas/model-outputs';
import { coverage, topicTerms, unresolvedSlot } from './text-signals';

/*
 * The offline grader: documented thresholds over retrieval signals, in the spirit of CRAG's retrieval evaluator.
 * It judges only the evidence it is given (spec §7.1) and suggests a route; resolveRoute still decides.
 * Rules and limits: docs/offline-policy.md.
 */

/** A question term share at or above this in the best chunk answers the question. */
export const SUFFICIENT_COVERAGE = 0.75;
/** Below SUFFICIENT but at or above this, the evidence is on topic but partial: worth a rewrite. */
export const PARTIAL_COVERAGE = 0.4;
/** Below this over all the evidence together, the knowledge base has nothing on the question. */
export const RELEVANT_COVERAGE = 0.2;
/** Documents compete when each holds a chunk this close to the best chunk's coverage. */
export const COMPETING_RATIO = 1.0;
/** At most this many choices are offered for scope selection. */
export const MAX_OPTIONS = 4;

export type EvidenceSignal = { filename: string; title: string; text: string };

export type GradeInput = { questionTokens: string[]; evidence: EvidenceSignal[] };

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** Distinct documents whose best chunk covers the question as well as the overall best chunk does. */
function competingDocuments(terms: string[], evidence: EvidenceSignal[], best: number): EvidenceSignal[] {
  const byFile = new Map<string, EvidenceSignal>();
  for (const chunk of evidence) {
    if (coverage(terms, chunk.text) >= best * COMPETING_RATIO && !byFile.has(chunk.filename)) byFile.set(chunk.filename, chunk);
  }
  return [...byFile.values()];
}

export function offlineGrade(input: GradeInput): EvidenceGrade {
  const terms = topicTerms(input.questionTokens);
  const base = { missing_slots: [] as string[], hitl_prompt: '', hitl_options: [] as string[] };
  const overall = coverage(terms, input.evidence.map((chunk) => chunk.text).join('\n'));
  const best = Math.max(0, ...input.evidence.map((chunk) => coverage(terms, chunk.text)));

  if (input.evidence.length === 0 || overall < RELEVANT_COVERAGE) {
    return { ...base, relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge', confidence: round2(1 - overall), reason: `offline: question terms covered ${round2(overall)} < ${RELEVANT_COVERAGE}` };
  }

  const slot = unresolvedSlot(input.questionTokens, terms);
  if (slot) {
    return {
      ...base, relevance: 'weak', answerability: 'partial', ambiguity: 'missing_slot', route: 'clarify', confidence: round2(best),
      missing_slots: [slot], reason: `offline: the question refers to something it does not name (${slot})`,
    };
  }

  const sufficient = best >= SUFFICIENT_COVERAGE;
  const competing = sufficient ? competingDocuments(terms, input.evidence, best) : [];
  if (competing.length >= 2) {
    return {
      ...base, relevance: 'strong', answerability: 'partial', ambiguity: 'multiple_candidates', route: 'scope_select', confidence: round2(best),
      hitl_options: competing.slice(0, MAX_OPTIONS).map((chunk) => chunk.title),
      reason: `offline: ${competing.length} documents answer equally well`,
    };
  }
  if (sufficient) {
    return { ...base, relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: round2(best), reason: `offline: best chunk covers ${round2(best)} of the question terms` };
  }
  const partial = best >= PARTIAL_COVERAGE;
  return {
    ...base, relevance: 'weak', answerability: partial ? 'partial' : 'none', ambiguity: 'none', route: 'rewrite', confidence: round2(best),
    reason: `offline: best chunk covers ${round2(best)} of the question terms (< ${SUFFICIENT_COVERAGE})`,
  };
}
