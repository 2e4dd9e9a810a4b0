import { STEP_BACK_QUESTION_MAX, type RewritePlan } from '../schemas/model-outputs';
import { textLanguage } from '../text/language';
import type { QuestionTerm, TaggedWord } from './question-terms';

/*
 * The offline rewriter always steps back (spec §7.3): a more general question about the question's subject — its
 * topic words in their own order and spelling, each once, titles in 《》 whole — so the second retrieval reaches the
 * surrounding explanation rather than the exact phrasing.
 */

const LATIN_END = /[\p{Script=Latin}\p{N}]$/u;
const LATIN_START = /^[\p{Script=Latin}\p{N}]/u;

/**
 * The question's topic words, in order, without question words and particles: "Aurora 的访客网络密码？" →
 * "Aurora访客网络密码". A term may span several words (a name in pieces, "Wi-Fi") or part of one (an unknown word
 * without the particle glued to it): each is found where its words are, in their own spelling.
 */
export function questionSubject(words: readonly TaggedWord[], terms: readonly QuestionTerm[]): string {
  const pending = new Set(terms.map((term) => term.term));
  const pieces: string[] = [];
  const emit = (text: string) => {
    const previous = pieces.at(-1);
    pieces.push(previous !== undefined && LATIN_END.test(previous) && LATIN_START.test(text) ? ` ${text}` : text);
  };
  let inTitle = false;
  for (let i = 0; i < words.length; i += 1) {
    const word = (words[i] as TaggedWord).word;
    if (word === '《') inTitle = true;
    if (inTitle) {
      if (word.trim() !== '') emit(word.trim());
      if (word === '》') inTitle = false;
      continue;
    }
    let spelled = '';
    let matched: { term: string; end: number } | null = null;
    for (let j = i; j < words.length && spelled.length < 64; j += 1) {
      spelled += (words[j] as TaggedWord).word;
      const key = spelled.trim().toLowerCase();
      if (pending.has(key)) matched = { term: key, end: j };
      else if (j === i && [...pending].some((term) => key.startsWith(term) && [...term].length >= 2)) {
        const term = [...pending].find((t) => key.startsWith(t) && [...t].length >= 2) as string;
        matched = { term, end: j };
        spelled = spelled.trim().slice(0, term.length);
        break;
      }
    }
    if (!matched) continue;
    pending.delete(matched.term);
    const original = words.slice(i, matched.end + 1).map((w) => w.word).join('').trim();
    emit(original.toLowerCase() === matched.term ? original : original.slice(0, matched.term.length));
    i = matched.end;
  }
  return pieces.join('');
}

export function offlineRewrite(question: string, words: readonly TaggedWord[], terms: readonly QuestionTerm[]): RewritePlan {
  const subject = questionSubject(words, terms) || question.trim();
  const stepBack = textLanguage(question) === 'zh' ? `${subject}的基本概念、原理和相关说明是什么？` : `What is the general background of ${subject}?`;
  return { method: 'step_back', step_back_question: [...stepBack].slice(0, STEP_BACK_QUESTION_MAX).join(''), hyde_document: '' };
}
