import { RagError } from '../errors';
import { pythonStrip } from '../python-text';
import type { RewritePlan } from '../schemas/model-outputs';
import { textLanguage } from '../text/language';
import type { Rewrite } from '../trace/writers';

/** spec §4.7.1: markers between the original question and the rewrite text, after a blank line. */
export const STEP_BACK_MARKER = '\n\n退步问题：';
export const HYDE_MARKER = '\n\n假设性答案文档：';
/** The same markers for a question not in Chinese (issue 42 §6: every step in the question's language). */
export const STEP_BACK_MARKER_EN = '\n\nStep-back question: ';
export const HYDE_MARKER_EN = '\n\nHypothetical answer document: ';

/** The markers of a question's language: the spec's Chinese ones for a question with Chinese in it, else English. */
export function rewriteMarkers(question: string): { stepBack: string; hyde: string } {
  return textLanguage(question) === 'zh' ? { stepBack: STEP_BACK_MARKER, hyde: HYDE_MARKER } : { stepBack: STEP_BACK_MARKER_EN, hyde: HYDE_MARKER_EN };
}

/**
 * `rewrite_query_once` plus the node's re-validation (spec §4.7.1 steps 2–3): exactly one of the two texts must be
 * filled, matching the method the model chose. The rewritten query is the original question, the marker of its
 * language, and the text.
 */
export function composeRewrite(question: string, plan: RewritePlan): Rewrite {
  const stepBack = pythonStrip(plan.step_back_question);
  const hyde = pythonStrip(plan.hyde_document);
  const markers = rewriteMarkers(question);
  if (plan.method === 'step_back') {
    if (!stepBack || hyde) {
      throw new RagError('REWRITE_INCOMPLETE', 'step_back rewrite needs a non-empty step_back_question and an empty hyde_document');
    }
    return { rewrite_method: 'step_back', rewritten_query: question + markers.stepBack + stepBack, step_back_question: stepBack, hyde_document: '' };
  }
  if (!hyde || stepBack) {
    throw new RagError('REWRITE_INCOMPLETE', 'hyde rewrite needs a non-empty hyde_document and an empty step_back_question');
  }
  return { rewrite_method: 'hyde', rewritten_query: question + markers.hyde + hyde, step_back_question: '', hyde_document: hyde };
}
