import type { Route } from '../schemas/graph-values';
import { textLanguage } from '../text/language';

/*
 * The offline grader's HITL prompt, in the question's language: a question with Chinese in it gets "" so the spec's
 * default prompts apply word for word (spec §4.5.5); any other gets the same three prompts in English. A suggested
 * rewrite carries the prompt its clarification would show once the rewrite is spent.
 */

/** English versions of the spec's three default prompts (core/graph/grade-update.ts holds the Chinese ones). */
export const ENGLISH_PROMPTS = {
  scope_select: 'I found several possibly relevant directions in the knowledge base. Which one do you mean?',
  missingSlotsPrefix: 'I found related content, but key information is missing: ',
  clarify: 'I found related content, but the evidence is not enough to determine an answer. Please add the specific conditions you are asking about.',
} as const;

export function hitlPromptFor(question: string, route: Route, missingSlots: readonly string[]): string {
  if (textLanguage(question) === 'zh') return '';
  if (route === 'scope_select') return ENGLISH_PROMPTS.scope_select;
  if (route !== 'clarify' && route !== 'rewrite') return '';
  return missingSlots.length > 0 ? ENGLISH_PROMPTS.missingSlotsPrefix + missingSlots.join(', ') : ENGLISH_PROMPTS.clarify;
}
