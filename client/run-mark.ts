import { SUB_QUESTION_QUEUED_ICON } from '../core/progress/step-messages';
import type { RagStep } from '../core/progress/rag-step';
import type { RagClient } from './rag-client';

/**
 * How far a run has got, read from the server alone (a describe: no worker, unlike a query): its status and the
 * length of its history. Whatever a query of the run answers (its outcome, steps, the answer generation it shows)
 * changes only with a workflow task, which grows the history; so while the mark stays, asking again tells nothing
 * new (issue 47 §3). A sub-question's live steps are the child's: a parent's mark does not see them. Null when the
 * server could not be asked (ask the run instead).
 *
 * @example
 * const before = await runMark(rag, workflowId);
 * // …later: ask the run only if (await runMark(rag, workflowId)) !== before
 */
export async function runMark(rag: Pick<RagClient, 'temporal'>, workflowId: string): Promise<string | null> {
  try {
    const description = await rag.temporal.workflow.getHandle(workflowId).describe();
    return `${description.status.name}:${description.historyLength}`;
  } catch {
    return null;
  }
}

/**
 * Sub-questions that run without having reported: the run's steps merge the children's live ones (RagClient
 * getProgress), which the parent's history does not show, so only asking says whether they moved.
 */
export const childrenStepsLive = (steps: readonly RagStep[]): boolean =>
  steps.some((step) => step.icon === SUB_QUESTION_QUEUED_ICON) && !steps.some((step) => step.group !== undefined);
