import { textLanguage } from '../text/language';

/*
 * The subject of a question, as the offline rules resolve "它" and "it" to it (issue 25 §1): in Chinese, what comes
 * before the first 的 (a product, a role, a module: "Aurora X2 路由器的保修期是多久？" → "Aurora X2 路由器"), else what
 * comes before the first 是/在/有/位于/属于 ("杨群是哪里人？" → "杨群", "天津犹太会堂在什么地方？" → "天津犹太会堂"),
 * neither holding a question word; else a run of Latin letters and digits; in English, the longest run of capitalized or numbered words that is not a question word ("What is new in Orbit CLI
 * 2.1?" → "Orbit CLI 2.1"). Null when neither is there: the rules then leave the question as it is.
 */

const QUESTION_WORDS = new Set(['What', 'Which', 'How', 'When', 'Where', 'Who', 'Why', 'Is', 'Are', 'Does', 'Do', 'Can', 'Should', 'And', 'The', 'A', 'An', 'I']);
const ZH_BEFORE_DE = /^([^，。？！,?!的]{2,24})的/u;
/** What a question is about when it has no 的: the words before its first predicate of being, place or having. */
const ZH_BEFORE_PREDICATE = /^([^，。？！,?!]{2,12}?)(?:是|在|有|位于|属于)/u;
/** A "subject" that holds one of these is a question ("哪个国家", "什么时候被任为主教"), not a thing named. */
const ZH_QUESTION_WORD = /什么|哪|谁|怎|几|多少|为何|如何/u;
const LEADING_ASK = /^(请问|请告诉我|我想知道)\s*/u;

export function subjectOf(question: string): string | null {
  const text = question.trim();
  if (textLanguage(text) === 'zh') {
    const asked = text.replace(LEADING_ASK, '');
    for (const rule of [ZH_BEFORE_DE, ZH_BEFORE_PREDICATE]) {
      const before = rule.exec(asked)?.[1]?.trim();
      if (before && !ZH_QUESTION_WORD.test(before)) return before;
    }
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
