import { executeChild, workflowInfo } from '@temporalio/workflow';
import { synthesize } from '../core/graph/synthesis';
import type { RagRun } from '../core/run/rag-run';
import * as steps from '../core/progress/step-messages';
import { subQuestionWorkflowId } from './messages';
import { subQuestionWorkflow } from './sub-question-workflow';
import { stampNow } from './stamp-clock';
import { recordsOnePatch } from './start-patches';

const SUMMARY_LENGTH = 120;
const shorten = (text: string): string => ([...text].length > SUMMARY_LENGTH ? `${[...text].slice(0, SUMMARY_LENGTH - 1).join('')}…` : text);

/**
 * `prepare_sub_questions` → one child workflow per sub-question, in parallel → `synthesis` (spec §4.3, §4.10).
 * Results are collected by index, so the merge follows sub-question order whatever order they finish in.
 */
export async function fanOutAndSynthesize(run: RagRun, progressOrigin: number): Promise<void> {
  const parentId = workflowInfo().workflowId;
  run.subQuestions.forEach((question, i) => run.step(steps.subQuestionQueued(i + 1, question), stampNow(run)));
  const outputs = await Promise.all(
    run.subQuestions.map((question, i) =>
      executeChild(subQuestionWorkflow, {
        workflowId: subQuestionWorkflowId(parentId, i + 1),
        args: [{ question, index: i + 1, progressOrigin, ...(run.kb === null ? {} : { kb: run.kb }), ...(run.filters === null ? {} : { filters: run.filters }), ...(run.forced.length === 0 ? {} : { forced: run.forced }), ...(recordsOnePatch(run) ? { onePatch: true } : {}) }],
        staticSummary: shorten(`子问题 ${i + 1}: ${question}`),
      }),
    ),
  );
  for (const output of outputs) run.appendSteps(output.steps);
  outputs.forEach((output, i) => {
    if (output.audit) run.audit.adopt(output.audit, `sub-${i + 1}`);
    // Absent in children recorded before retrieval health was reported: their retrievals count as read.
    if (output.retrievalHealth) run.retrievalHealth.adopt(output.retrievalHealth);
    run.noteKbRead(output.kbRead);
  });

  run.step(steps.synthesisStarted(outputs.length), stampNow(run));
  const synthesis = synthesize({
    question: run.question,
    complexityReason: run.complexityReason,
    subQuestions: run.subQuestions,
    subResults: outputs.map((output) => output.subResult),
  });
  run.docs = synthesis.docs;
  run.route = synthesis.route;
  run.retrievalStatus = synthesis.retrievalStatus;
  run.applyTrace(synthesis.traceFragment);
  run.step(steps.synthesisDone(synthesis.docs.length), stampNow(run));
}
