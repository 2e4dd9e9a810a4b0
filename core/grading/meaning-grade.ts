import type { EvidenceGrade } from '../schemas/model-outputs';
import { hitlPromptFor } from '../offline-policy/hitl-prompts';
import { CORROBORATION_BONUS, GRADE_THRESHOLDS, MAX_OPTIONS, scoreChunks, weighCandidates, type GradeInput } from '../offline-policy/grade-policy';
import { unresolvedSlot } from '../offline-policy/text-signals';
import { termCoverage } from '../offline-policy/term-coverage';
import { answerProbability, contributions, type FittedDecision } from './fitted-decision';
import { FITTED_DECISION } from './decision-coefficients';
import type { GradeSignals } from './signals';

/*
 * The offline grade by meaning (DESIGN §4c, issue 42): the fitted decision says whether the evidence answers; the
 * documented rules that are about the question and not the evidence stay — a question that refers to something it
 * does not name is asked back (clarify), and when the evidence answers, documents about different things that
 * disagree are offered to choose from (scope_select, grade-policy.ts weighCandidates). Pure.
 */

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** The grade's reason: the probability, and the signals that weighed most for and against it. */
function why(signals: GradeSignals, p: number, model: FittedDecision): string {
  const top = contributions(signals, model)
    .slice(0, 3)
    .map(({ signal, value, logOdds }) => `${signal}=${value} (${logOdds >= 0 ? '+' : ''}${logOdds})`)
    .join(', ');
  return `P(answers)=${round2(p)} by ${model.version}; ${top}`;
}

/** A probability decided outside the signals (the grade by probability, issue 43 §1) and the thresholds it is routed by. */
export type DecidedProbability = { p: number; answerAt: number; rewriteAt: number; why: string };

export function meaningGrade(input: GradeInput, signals: GradeSignals, model: FittedDecision = FITTED_DECISION, decide?: (p: number) => DecidedProbability): EvidenceGrade {
  const prompt = (route: EvidenceGrade['route'], missingSlots: string[] = []) => ({ hitl_prompt: hitlPromptFor(input.question, route, missingSlots) });
  const base = { missing_slots: [] as string[], hitl_options: [] as string[] };
  if (input.evidence.length === 0) {
    return { ...base, ...prompt('no_knowledge'), relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge', confidence: 1, reason: 'offline: no evidence' };
  }
  const offline = answerProbability(signals, model);
  const decided = decide?.(offline);
  const p = decided?.p ?? offline;
  const { answerAt, rewriteAt } = decided ?? model;
  const reason = decided ? `P(answers)=${round2(p)} by ${decided.why}; ${why(signals, offline, model)}` : why(signals, p, model);
  const tokens = input.words.map((word) => word.word);
  const slot = input.scope ? null : unresolvedSlot(tokens, input.terms.map((term) => term.term), input.question);
  if (slot) {
    return {
      ...base, ...prompt('clarify', [slot]), relevance: 'weak', answerability: 'partial', ambiguity: 'missing_slot', route: 'clarify', confidence: round2(p),
      missing_slots: [slot], reason: `offline: the question refers to something it does not name (${slot}); ${reason}`,
    };
  }
  if (p >= answerAt) {
    const scored = scoreChunks(input);
    const best = scored[0]!;
    const { competing, agreeing, why: candidates } = weighCandidates(scored, best, input, GRADE_THRESHOLDS);
    if (competing.length >= 2) {
      return {
        ...base, ...prompt('scope_select'), relevance: 'strong', answerability: 'partial', ambiguity: 'multiple_candidates', route: 'scope_select', confidence: round2(p),
        hitl_options: competing.slice(0, MAX_OPTIONS).map((chunk) => chunk.title),
        reason: `offline: ${competing.length} documents about different things answer and disagree on what the question leaves open (${candidates}); ${reason}`,
      };
    }
    return {
      ...base, ...prompt('answer'), relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer',
      confidence: round2(Math.min(1, p + CORROBORATION_BONUS * agreeing)),
      reason: agreeing > 0 ? `offline: ${reason}; ${agreeing + 1} sources corroborate it (${candidates})` : `offline: ${reason}`,
    };
  }
  // A number, date or name of the question that no evidence holds ("Mesh"): a rewrite may find it; if it does not,
  // the answer is "no knowledge", never a question back (v2's rule, docs/offline-policy.md).
  const missing = termCoverage(input.terms, input.evidence.map((chunk) => chunk.text).join('\n')).missingRequired;
  if (missing.length > 0 && p >= rewriteAt) {
    return {
      ...base, ...prompt('rewrite'), relevance: 'weak', answerability: 'none', ambiguity: 'none', route: 'rewrite', confidence: round2(1 - p),
      reason: `offline: the evidence never names ${missing.map((term) => `"${term}"`).join(', ')}; ${reason}`,
    };
  }
  if (p >= rewriteAt) {
    return { ...base, ...prompt('rewrite'), relevance: 'weak', answerability: 'partial', ambiguity: 'none', route: 'rewrite', confidence: round2(1 - p), reason: `offline: on the question, not enough to answer; ${reason}` };
  }
  return { ...base, ...prompt('no_knowledge'), relevance: 'none', answerability: 'none', ambiguity: 'none', route: 'no_knowledge', confidence: round2(1 - p), reason: `offline: the evidence does not answer; ${reason}` };
}
