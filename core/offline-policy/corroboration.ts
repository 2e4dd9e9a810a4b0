import { splitSentences } from '../answer/sentences';
import { differentParts, type PartTerms } from './part-terms';
import type { QuestionTerm } from './question-terms';
import { factsAgree, readFacts, restates, type Fact } from './quantity-agreement';
import { holdsTerm, textSimilarity } from './term-coverage';

/*
 * Whether two documents that answer a question say the same or different things (issues 32 §1 and 42 §4): several
 * sources for one fact — paraphrased reports, translations, mirrors, manuals that repeat a company's hotline —
 * corroborate; a question only needs a person's choice when the candidates disagree on what it leaves open (the
 * range of this model or that one). The signal is each document's answering sentence, the one that holds most of the
 * question: the part of a question of several parts it answers (part-terms.ts), the facts it states beyond the
 * question (numbers, quantities, dates, model names, compared by meaning: quantity-agreement.ts), else its wording
 * once the question's own words are taken out. Rules and limits: docs/offline-policy.md, "Corroboration or ambiguity".
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
 * The facts a sentence states that the question does not (quantity-agreement.ts): a fact the question already states
 * as precisely is left out ("2024年" in "2024年的销量是多少" and in the answer). Its document's own names (the "X2" of
 * "Aurora X2") are its subject, not a fact it states.
 */
export function statedFacts(sentence: string, question: string, ownNames: readonly string[] = []): Fact[] {
  const asked = readFacts(question);
  const names = new Set(ownNames.map((name) => name.toLowerCase().replace(/-/g, '')));
  return readFacts(sentence).filter((fact) => !names.has(fact.label) && !asked.some((known) => restates(known, fact)));
}

const labels = (facts: readonly Fact[]): string => [...new Set(facts.map((fact) => fact.label))].join(', ');

/** How two sets of facts relate: the pairs that agree, and whether any pair is comparable at all. */
function compareFacts(left: readonly Fact[], right: readonly Fact[]): { agreeing: Array<[Fact, Fact]>; comparable: boolean } {
  const pairs = left.flatMap((a) => right.map((b) => ({ pair: [a, b] as [Fact, Fact], verdict: factsAgree(a, b) })));
  return { agreeing: pairs.filter(({ verdict }) => verdict === true).map(({ pair }) => pair), comparable: pairs.some(({ verdict }) => verdict !== null) };
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
 * Whether two answering sentences agree:
 * 1. for a question of several parts (`parts`), sentences that answer different parts agree;
 * 2. when both state facts beyond the question, they agree if a pair of them agrees by meaning (131万 and 1,313,851;
 *    45 km and 45 公里), disagree if pairs are comparable and none agrees (45 km and 60 km), and agree if no pair is
 *    comparable (a date and a count: neither contradicts the other);
 * 3. otherwise by their wording beyond the question.
 */
export function agreement(first: Answer, second: Answer, question: string, terms: readonly QuestionTerm[], parts: readonly PartTerms[] = []): Agreement {
  const [a, b] = [first.sentence, second.sentence];
  const split = differentParts(a, b, parts);
  if (split) {
    const named = (answered: PartTerms[]) => answered.map((part) => `"${part.text}"`).join(', ');
    return { agree: true, byFacts: false, why: `they answer different parts of the question (${named(split[0])}; ${named(split[1])})` };
  }
  const left = statedFacts(a, question, first.ownNames);
  const right = statedFacts(b, question, second.ownNames);
  if (left.length > 0 && right.length > 0) {
    const { agreeing, comparable } = compareFacts(left, right);
    if (agreeing.length > 0) {
      const said = agreeing.map(([x, y]) => (x.label === y.label ? x.label : `${x.label} ≈ ${y.label}`));
      return { agree: true, byFacts: true, why: `both state ${[...new Set(said)].join(', ')}` };
    }
    return comparable
      ? { agree: false, byFacts: true, why: `one states ${labels(left)}, the other ${labels(right)}` }
      : { agree: true, byFacts: true, why: `they state different kinds of facts (${labels(left)}; ${labels(right)}), neither contradicts the other` };
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
