import { splitSentences } from '../answer/sentences';
import type { QuestionTerm } from './question-terms';

/*
 * How much of a question a text holds (offline grader v2, docs/offline-policy.md): the IDF-weighted share of its
 * terms found, and which of its required terms are absent. Numbers and Latin words match as whole tokens only.
 */

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Letters and digits of scripts that write words with spaces: a whole-token match may not touch them. */
const WORD_EDGE = '[\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}\\p{N}]';

const patterns = new Map<string, RegExp>();
function wholeToken(term: string): RegExp {
  let pattern = patterns.get(term);
  if (!pattern) {
    // "2.5" and "1,000" are one number: a digit term may not continue with a separator and a digit either.
    pattern = new RegExp(`(?<!${WORD_EDGE}|\\p{N}[.,])${escapeRegExp(term)}(?!${WORD_EDGE}|[.,]\\p{N})`, 'iu');
    patterns.set(term, pattern);
  }
  return pattern;
}

const CHINESE_DIGITS = '零一二三四五六七八九';
const CHINESE_NUMERAL_CHARACTER = '[〇零一二三四五六七八九十百千万两]';

/** An integer below 10 000 in Chinese numerals: 50 → 五十, 105 → 一百零五, 15 → 十五. */
export function chineseNumber(n: number): string {
  if (n === 0) return '零';
  const digits = String(n);
  let out = '';
  let gap = false;
  [...digits].forEach((digit, i) => {
    if (digit === '0') {
      gap = true;
      return;
    }
    if (gap && out !== '') out += '零';
    gap = false;
    out += (CHINESE_DIGITS[Number(digit)] as string) + (['', '十', '百', '千'][digits.length - 1 - i] as string);
  });
  return n >= 10 && n < 20 ? out.slice(1) : out;
}

/** The ways a text may write a number: as digits, in Chinese numerals, a year digit by digit (2008 → 二〇〇八). */
function numberForms(term: string): string[] {
  if (!/^\d{1,4}$/u.test(term)) return [];
  const forms = [chineseNumber(Number(term))];
  if (term.length === 4) forms.push([...term].map((d) => (d === '0' ? '〇' : CHINESE_DIGITS[Number(d)])).join(''), [...term].map((d) => CHINESE_DIGITS[Number(d)]).join(''));
  return forms;
}

const chinesePatterns = new Map<string, RegExp>();
function chineseNumeral(form: string): RegExp {
  let pattern = chinesePatterns.get(form);
  if (!pattern) {
    pattern = new RegExp(`(?<!${CHINESE_NUMERAL_CHARACTER})${form}(?!${CHINESE_NUMERAL_CHARACTER})`, 'u');
    chinesePatterns.set(form, pattern);
  }
  return pattern;
}

/**
 * Whether a lower-cased text holds the term: as a whole token when the term is exact (a number also in Chinese
 * numerals, 50 as 五十), else as a substring. English word forms are not matched (costs for cost): measured on the
 * calibration splits, a Snowball stemmer here answered more questions that have no answer than it found answers
 * (docs/offline-policy.md, "Word forms").
 */
export function holdsTerm(loweredText: string, term: QuestionTerm): boolean {
  if (!term.exact) return loweredText.includes(term.term);
  return wholeToken(term.term).test(loweredText) || numberForms(term.term).some((form) => chineseNumeral(form).test(loweredText));
}

export type TermCoverage = {
  /** Weight of the terms found over the weight of all terms, 0..1 (0 when there are no terms). */
  share: number;
  /** Required terms the text does not hold. */
  missingRequired: string[];
};

export function termCoverage(terms: readonly QuestionTerm[], text: string): TermCoverage {
  const lowered = text.toLowerCase();
  let found = 0;
  let total = 0;
  const missingRequired: string[] = [];
  for (const term of terms) {
    total += term.weight;
    if (holdsTerm(lowered, term)) found += term.weight;
    else if (term.required) missingRequired.push(term.term);
  }
  return { share: total > 0 ? found / total : 0, missingRequired };
}

/**
 * The coverage of a chunk's best sentence: the question's words must meet in one sentence, where an answer states
 * them together, except the things it names, which may be anywhere in the chunk (a passage names its subject once
 * and then says 它). Related passages hold the same words spread over different sentences.
 */
export function sentenceCoverage(terms: readonly QuestionTerm[], text: string): TermCoverage {
  const chunk = termCoverage(terms, text);
  const lowered = text.toLowerCase();
  const named = terms.filter((term) => term.required && holdsTerm(lowered, term));
  const namedWeight = named.reduce((sum, term) => sum + term.weight, 0);
  const others = terms.filter((term) => !term.required);
  const total = terms.reduce((sum, term) => sum + term.weight, 0);
  let best = namedWeight;
  for (const sentence of splitSentences(lowered)) {
    const found = others.reduce((sum, term) => sum + (holdsTerm(sentence, term) ? term.weight : 0), 0);
    best = Math.max(best, namedWeight + found);
  }
  return { share: total > 0 ? best / total : 0, missingRequired: chunk.missingRequired };
}

/** Character bigrams of a text's letters and digits: a cheap fingerprint for telling near-duplicates apart. */
function bigrams(text: string): Set<string> {
  const letters = [...text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')];
  const grams = new Set<string>();
  for (let i = 0; i + 1 < letters.length; i += 1) grams.add(`${letters[i]}${letters[i + 1]}`);
  return grams;
}

/** Jaccard similarity of two texts' character bigrams, 0..1: 1 for the same words in any order. */
export function textSimilarity(a: string, b: string): number {
  const left = bigrams(a);
  const right = bigrams(b);
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared += 1;
  return shared / (left.size + right.size - shared);
}
