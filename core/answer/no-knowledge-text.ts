import { textLanguage } from '../text/language';

/** spec §8.3: what the original tells a person when the knowledge base has no answer (its exact text). */
export const NO_KNOWLEDGE_TEXT_ZH = '知识库中没有找到可靠的相关信息，暂时无法基于知识库回答这个问题。';
/** The same for a question in another language. */
export const NO_KNOWLEDGE_TEXT_EN = 'The knowledge base has no reliable information on this question, so it cannot be answered from it.';

/** The sentence a person reads when a run ends on no_knowledge, in the question's language. */
export function noKnowledgeText(question: string): string {
  return textLanguage(question) === 'zh' ? NO_KNOWLEDGE_TEXT_ZH : NO_KNOWLEDGE_TEXT_EN;
}
