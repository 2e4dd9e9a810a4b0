import { RagError } from '../errors';
import { pythonStrip } from '../python-text';
import type { RewritePlan } from '../schemas/model-outputs';
import type { Rewrite } from '../trace/writers';

/** spec §4.7.1: markers between the original question and the rewrite text, after a blank line. */
export const STEP_BACK_MARKER = '\n\n退步问题：';
export const HYDE_MARKER = '\n\n假设性答案文档：';

/**
 * `rewrite_query_once` plus the node's re-validation (spec §4.7.1 steps 2–3): exactly one of the two texts must be
 * filled, matching the method the model chose. The rewritten query is the original question, a marker, and the text.
 */
export function composeRewrite(question: string, plan: RewritePlan): Rewrite {
  const stepBack = pythonStrip(plan.step_back_question);
  const hyde = pythonStrip(plan.hyde_document);
  if (plan.method === 'step_back') {
    if (!stepBack || hyde) {
      throw new RagError('REWRITE_INCOMPLETE', 'step_back rewrite needs a non-empty step_back_question and an empty hyde_document');
    }
    return { rewrite_method: 'step_back', rewritten_query: question + STEP_BACK_MARKER + stepBack, step_back_question: stepBack, hyde_document: '' };
  }
  if (!hyde || stepBack) {
    throw new RagError('REWRITE_INCOMPLETE', 'hyde rewrite needs a non-empty hyde_document and an empty step_back_question');
  }
  return { rewrite_method: 'hyde', rewritten_query: question + HYDE_MARKER + hyde, step_back_question: '', hyde_document: hyde };
}
