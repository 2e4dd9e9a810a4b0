import type { QuestionTerm, TaggedWord } from './question-terms';
import { holdsTerm } from './term-coverage';

/*
 * Which part of a question of several parts a sentence answers, for corroboration (issue 42 §4): "When were the
 * swearing-in and the first meeting?", "X的出生年份和毕业院校". Two documents that each answer another part are not
 * candidates to choose between: they answer together. The parts are the pieces of the question between the words
 * that join them — 和, 与, 以及, 及, and, commas and 、 — and each part is told by its own terms: the question's terms
 * that are not names (a name, "X", is the subject the parts share, however the question places it) and that no other
 * part holds. (core/answer/question-parts.ts splits a question for the answerer, by its phrases.) Rules and limits:
 * docs/offline-policy.md, "Corroboration or ambiguity".
 */

/** Words that join the parts of a question (jieba's words, compared trimmed and lower-cased). */
export const PART_JOINERS: ReadonlySet<string> = new Set(['和', '与', '以及', '及', 'and', ',', '，', '、']);

export type PartTerms = {
  /** The part as written. */
  text: string;
  /** The question's terms that are not names and that only this part holds. */
  terms: QuestionTerm[];
};

/** The parts of a question that have terms of their own, in order; [] for a question of one part. */
export function partTerms(words: readonly TaggedWord[], terms: readonly QuestionTerm[]): PartTerms[] {
  const pieces: string[] = [''];
  for (const { word } of words) {
    if (PART_JOINERS.has(word.trim().toLowerCase())) pieces.push('');
    else pieces[pieces.length - 1] += word;
  }
  const telling = terms.filter((term) => !term.required);
  const held = pieces.map((piece) => telling.filter((term) => holdsTerm(piece.toLowerCase(), term)));
  const parts = pieces
    .map((text, at) => ({ text: text.trim(), terms: held[at]!.filter((term) => held.every((other, i) => i === at || !other.includes(term))) }))
    .filter((part) => part.terms.length > 0);
  return parts.length >= 2 ? parts : [];
}

/** The indexes of the parts whose own terms `sentence` holds. */
export function partsAddressed(sentence: string, parts: readonly PartTerms[]): number[] {
  const lowered = sentence.toLowerCase();
  return parts.flatMap((part, at) => (part.terms.some((term) => holdsTerm(lowered, term)) ? [at] : []));
}

/**
 * The parts two answering sentences address, when each addresses some and none addresses a part the other does:
 * they answer different parts of the question. Else null.
 */
export function differentParts(first: string, second: string, parts: readonly PartTerms[]): [PartTerms[], PartTerms[]] | null {
  const [a, b] = [partsAddressed(first, parts), partsAddressed(second, parts)];
  if (a.length === 0 || b.length === 0 || a.some((at) => b.includes(at))) return null;
  return [a.map((at) => parts[at]!), b.map((at) => parts[at]!)];
}
