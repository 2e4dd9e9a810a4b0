import { STEP_BACK_QUESTION_MAX, type RewritePlan } from '../schemas/model-outputs';
import { topicTerms } from './text-signals';

const CJK = /[\u4e00-\u9fff]/;

/**
 * The offline rewriter always steps back (spec §7.3): a more general question built from the entity and topic terms,
 * so the second retrieval reaches the surrounding explanation rather than the exact phrasing.
 */
export function offlineRewrite(question: string, questionTokens: string[]): RewritePlan {
  const terms = topicTerms(questionTokens);
  const subject = terms.join(CJK.test(question) ? '' : ' ') || question;
  const stepBack = CJK.test(question) ? `${subject}的基本概念、原理和相关说明是什么？` : `What is the general background of ${subject}?`;
  return { method: 'step_back', step_back_question: [...stepBack].slice(0, STEP_BACK_QUESTION_MAX).join(''), hyde_document: '' };
}
