import { checkTokens } from '../answer/numeric-tokens';
import { splitSentences } from '../answer/sentences';
import type { QuestionTerm } from './question-terms';
import { holdsTerm, textSimilarity } from './term-coverage';

/*
 * Whether two documents that answer a question say the same or different things (issue 32 §1): several sources for
 * one fact — paraphrased reports, translations, mirrors, manuals that repeat a company's hotline — corroborate; a
 * question only needs a person's choice when the candidates disagree on what it leaves open (the range of this model
 * or that one). The signal is each document's answering sentence, the one that holds most of the question: the facts
 * it states beyond the question (numbers, quantities, dates, model names), else its wording once the question's own
 * words are taken out. Rules and limits: docs/offline-policy.md, "Corroboration or ambiguity".
 */

/** Answering sentences at least this similar (character bigrams, the question's words removed) say the same thing. */
export const AGREEING_ANSWER_SIMILARITY = 0.35;

/**
 * The sentence of a text that holds the most of the question's terms; of equals, the one that says the most beyond
 * the question (a heading "## 重置管理密码" holds the question's words and answers nothing).
 */
export function answeringSentence(terms: readonly QuestionTerm[], text: string): string {
  const asked = terms;
  let best = '';
  let bestRank: [number, number] = [-1, -1];
  for (const sentence of splitSentences(text)) {
    const lowered = sentence.toLowerCase();
    const weight = asked.reduce((sum, term) => sum + (holdsTerm(lowered, term) ? term.weight : 0), 0);
    const said = letters(beyondQuestion(sentence, terms)).length;
    if (weight > bestRank[0] || (weight === bestRank[0] && said > bestRank[1])) {
      best = sentence;
      bestRank = [weight, said];
    }
  }
  return best;
}

const letters = (text: string): string[] => [...text.replace(/[^\p{L}\p{N}]/gu, '')];

/** Below this many letters beyond the question, a sentence says too little to agree with another. */
const MIN_SAID = 4;

/**
 * The facts a sentence states that the question does not: numbers, quantities, dates and model names, canonical.
 * Its document's own names (the "X2" of "Aurora X2") are its subject, not a fact it states.
 */
export function statedFacts(sentence: string, question: string, ownNames: readonly string[] = []): string[] {
  const asked = new Set([...checkTokens(question).map((token) => token.canonical), ...ownNames.map((name) => name.toLowerCase().replace(/-/g, ''))]);
  return [...new Set(checkTokens(sentence).map((token) => token.canonical).filter((canonical) => !asked.has(canonical)))];
}

/** An answering sentence and the names of its document's title. */
export type Answer = { sentence: string; ownNames: readonly string[] };

/** The sentence without the question's terms (its own words would make any two answers look alike). */
function beyondQuestion(sentence: string, terms: readonly QuestionTerm[]): string {
  let rest = sentence.toLowerCase();
  for (const term of terms) rest = rest.split(term.term).join(' ');
  return rest;
}

/** `byFacts`: decided by the facts both state (then final: near-identical wording around different figures is a template, not a copy). */
export type Agreement = { agree: boolean; byFacts: boolean; why: string };

/**
 * Whether two answering sentences agree: when both state facts beyond the question, they agree if they share one
 * (45 km and 45 公里 are one fact) and disagree if none is shared; otherwise by their wording beyond the question.
 */
export function agreement(first: Answer, second: Answer, question: string, terms: readonly QuestionTerm[]): Agreement {
  const [a, b] = [first.sentence, second.sentence];
  const left = statedFacts(a, question, first.ownNames);
  const right = statedFacts(b, question, second.ownNames);
  if (left.length > 0 && right.length > 0) {
    const shared = left.filter((fact) => right.includes(fact));
    return shared.length > 0
      ? { agree: true, byFacts: true, why: `both state ${shared.join(', ')}` }
      : { agree: false, byFacts: true, why: `one states ${left.join(', ')}, the other ${right.join(', ')}` };
  }
  const [restA, restB] = [beyondQuestion(a, terms), beyondQuestion(b, terms)];
  if (letters(restA).length < MIN_SAID || letters(restB).length < MIN_SAID) {
    return { agree: false, byFacts: false, why: 'an answering sentence says nothing beyond the question' };
  }
  const similarity = textSimilarity(restA, restB);
  const rounded = Math.round(similarity * 100) / 100;
  return similarity >= AGREEING_ANSWER_SIMILARITY
    ? { agree: true, byFacts: false, why: `their answering sentences say the same (${rounded} alike)` }
    : { agree: false, byFacts: false, why: `their answering sentences differ (${rounded} alike < ${AGREEING_ANSWER_SIMILARITY})` };
}
