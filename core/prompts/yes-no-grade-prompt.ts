import { fillTemplate, type UserMessage } from './user-message';

/**
 * The grade by probability (issue 43 §1): does this one passage answer the question, yes or no. The model is asked
 * for one token and its probability of "yes" is read from the log-probabilities (core/grading/yes-probability.ts), so
 * a small model that cannot fill the spec's grade (§7.1) still says how sure it is. The question comes before the
 * passage: the calls for a question's candidates share that prefix, which the local server evaluates once (its KV
 * cache).
 */
export const YES_NO_GRADE_PROMPT_TEMPLATE = `Answer with one word, yes or no.
Question: {question}

Passage:
{passage}

Does the passage contain the answer to the question? Answer yes or no.`;

/** A passage's characters at most: a candidate is read in seconds, not a page of it in a minute. */
export const YES_NO_PASSAGE_CHARS = 700;

/** One candidate: its context line (title and headings) and its text, cut to YES_NO_PASSAGE_CHARS. */
export function buildYesNoGradePrompt(question: string, candidate: { context?: string; text?: string }): UserMessage {
  const text = [candidate.context?.trim(), candidate.text?.trim()].filter(Boolean).join('\n');
  const passage = text.length > YES_NO_PASSAGE_CHARS ? `${text.slice(0, YES_NO_PASSAGE_CHARS)}…` : text;
  return fillTemplate(YES_NO_GRADE_PROMPT_TEMPLATE, { question, passage });
}
