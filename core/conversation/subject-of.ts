import { textLanguage } from '../text/language';

/*
 * The subject of a question, as the offline rules resolve "它" and "it" to it (issue 25 §1): in Chinese, what comes
 * before the first 的 (a product, a role, a module: "Aurora X2 路由器的保修期是多久？" → "Aurora X2 路由器"); in
 * English, the longest run of capitalized or numbered words that is not a question word ("What is new in Orbit CLI
 * 2.1?" → "Orbit CLI 2.1"). Null when neither is there: the rules then leave the question as it is.
 */

const QUESTION_WORDS = new Set(['What', 'Which', 'How', 'When', 'Where', 'Who', 'Why', 'Is', 'Are', 'Does', 'Do', 'Can', 'Should', 'And', 'The', 'A', 'An', 'I']);
const ZH_BEFORE_DE = /^([^，。？！,?!的]{2,24})的/u;

export function subjectOf(question: string): string | null {
  const text = question.trim();
  if (textLanguage(text) === 'zh') {
    const before = ZH_BEFORE_DE.exec(text)?.[1]?.trim();
    if (before) return before.replace(/^(请问|请告诉我|我想知道)\s*/u, '') || null;
    return /[A-Za-z][\w-]*(?:\s+[A-Za-z0-9][\w.-]*)*/.exec(text)?.[0] ?? null;
  }
  const runs: string[] = [];
  let current: string[] = [];
  for (const word of text.replace(/[?!.,;:]+(\s|$)/g, ' ').split(/\s+/)) {
    const named = /^[A-Z0-9]/.test(word) && !QUESTION_WORDS.has(word);
    if (named) {
      current.push(word);
    } else if (current.length > 0) {
      runs.push(current.join(' '));
      current = [];
    }
  }
  if (current.length > 0) runs.push(current.join(' '));
  return runs.sort((a, b) => b.length - a.length)[0] ?? null;
}
