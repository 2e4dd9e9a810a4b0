import { formatDocs } from '../graph/format-docs';
import type { Chunk } from '../schemas/retrieved-chunk';
import { textLanguage } from '../text/language';
import { buildAnswerPrompt } from './answer-prompt';
import { fillTemplate, type UserMessage } from './user-message';

/**
 * The grade by probability (issue 43 §1, §3): does candidate [k] answer the question, yes or no. The model is asked
 * for one token and its probability of "yes" is read from the log-probabilities (core/grading/yes-probability.ts), so
 * a small model that cannot fill the spec's grade (§7.1) still says how sure it is.
 *
 * The evidence is read once (issue 43 §3): the prompt is the answer's own prompt (answer-prompt.ts) over candidates
 * [1]…[k], then the yes/no question. Each call's text is a prefix of the next one's up to its question, and the answer
 * prompt over all candidates starts with the last one's, so the local server (which keeps the prefix its KV cache
 * already holds, server/llm/prompt-prefill.ts) reads each candidate once for the grade and not again for the answer;
 * the answer's rules, the same for every question, are read once per server.
 */
export const YES_NO_QUESTION_EN = `

Before you answer: does snippet [{index}] contain the answer to the question? Reply with one word, yes or no.`;

export const YES_NO_QUESTION_ZH = `

先不要回答问题：片段 [{index}] 是否包含这个问题的答案？只回答一个词：是 或 否。`;

/** Candidate `index` (0-based) of the evidence the answer would be written from, after those before it. */
export function buildYesNoGradePrompt(question: string, evidence: readonly Chunk[], index: number): UserMessage {
  const head = buildAnswerPrompt(question, formatDocs(evidence.slice(0, index + 1)));
  const ask = fillTemplate(textLanguage(question) === 'zh' ? YES_NO_QUESTION_ZH : YES_NO_QUESTION_EN, { index: String(index + 1) });
  return { role: 'user', content: head.content + ask.content };
}
