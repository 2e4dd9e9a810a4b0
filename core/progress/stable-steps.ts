import type { RagStep } from './rag-step';
import { gradingStarted, subQuestionGroup } from './step-messages';

const GRADING_STARTED = gradingStarted().label;

/**
 * Whether a sub-question's steps are all there: `rag_sub_agent` (spec §4.9, workflows/sub-question-workflow.ts)
 * retrieves once and grades once, and the grade's step, the one after "正在评估证据质量...", is its last.
 */
function subQuestionFinished(block: readonly RagStep[]): boolean {
  const grading = block.findIndex((step) => step.label === GRADING_STARTED);
  return grading >= 0 && grading < block.length - 1;
}

/**
 * The leading steps of a progress listing whose index is final: index i of the result is the index the step has,
 * and will keep, in the run's progress log. The progress stream sends a step under that index (its event id) and
 * resumes after Last-Event-ID by it, so it must never send a step whose index could still change (issue 14 §12).
 *
 * A run's log (ProgressLog) is append-only: its own steps get the next index when recorded, and never another.
 * Sub-question runs are the exception: they record their steps in their own runs, and the parent appends them to
 * its log (adopts them) only when all have finished, in sub-question order, right after the "子问题 n" steps that
 * queued them — so each adopted step gets a new index, larger than that of any step the parent recorded before.
 * Until then a listing (RagClient.getProgress) shows their live steps after the parent's, in the same order, so a
 * live step's listed index is the one the parent will give it only when every sub-question before it has finished.
 * Hence the stable part ends after the first sub-question that has not finished (its own steps are final, the
 * steps after it are not), or before a sub-question listed out of turn (an earlier one is missing, e.g. its query
 * failed). A sub-question followed by a step of the parent has been adopted, so it has finished.
 *
 * A listing of any other run (simple, resumed, or complex after adoption) is its log: stable as a whole.
 */
export function stableSteps(steps: readonly RagStep[]): RagStep[] {
  let end = 0;
  let next = 1;
  while (end < steps.length) {
    const group = steps[end]?.group;
    if (group === undefined) {
      end += 1;
      continue;
    }
    if (group !== subQuestionGroup(next)) break;
    let blockEnd = end;
    while (blockEnd < steps.length && steps[blockEnd]?.group === group) blockEnd += 1;
    const adopted = blockEnd < steps.length && steps[blockEnd]?.group === undefined;
    const finished = adopted || subQuestionFinished(steps.slice(end, blockEnd));
    end = blockEnd;
    next += 1;
    if (!finished) break;
  }
  return steps.slice(0, end);
}
