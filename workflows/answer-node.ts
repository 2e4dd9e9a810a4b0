import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { RagActivities } from '../activities/contracts';
import type { RagRun } from '../core/run/rag-run';
import * as steps from '../core/progress/step-messages';
import { MODEL_CALL } from './activity-options';
import { runErrorOf } from './failures';
import { callAnswerWriter } from './graph-nodes';
import { noteMemo, noteModels } from './publish-state';
import { speculatorOf } from './speculation';
import { stampNow } from './stamp-clock';

const models = proxyActivities<RagActivities>(MODEL_CALL);

/**
 * `generate_answer` (DESIGN §3.6): the graph's last node, run once the run has settled on route `answer` (simple
 * path, after the rewrite, after a HITL resume, after synthesis) from the final evidence and the question it was
 * retrieved for. A draft that fails verification gets one repair (`repair_answer`); the run then keeps what it has,
 * flagged by its verification. A writer that fails for good leaves `answer` null with the error: the route, the
 * evidence and the trace stand. A draft written speculatively beside the grader (speculation level `answer`) stands in
 * for the first call when it was written from this question and this evidence.
 */
export async function generateAnswer(run: RagRun): Promise<void> {
  run.step(steps.answerStarted(run.docs.length), stampNow(run));
  const input = { question: run.question, docs: run.docs, ...(run.answerConversation ? { conversation: run.answerConversation } : {}) };
  try {
    const draft = speculatorOf(run)?.takeDraft<Awaited<ReturnType<typeof callAnswerWriter>>>(input.question, input.docs);
    // Listeners of the streaming answer are shown this generation: the draft taken, or the call made now.
    run.answerGeneration = draft?.label ?? run.newAnswerGeneration();
    const first = draft ? await draft.use() : await callAnswerWriter(run, input.question, input.docs, run.answerGeneration);
    noteModels(run, first.producedBy);
    run.answer = first.data;
    // The Temporal UI's memo names who wrote the answer (the models memo names the provider's models).
    noteMemo(run, { answerModel: first.data.model });
  } catch (error) {
    if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
    run.answerError = runErrorOf(error);
    run.step(steps.answerFailed(run.answerError.type), stampNow(run));
    return;
  }
  const draft = run.answer;
  if (draft.verification.status !== 'verified') {
    run.step(steps.answerRepairStarted(draft.verification.invalid_citations.length + draft.verification.uncited_sentences.length), stampNow(run));
    try {
      run.answerGeneration = run.newAnswerGeneration();
      const repair = { ...input, repair: { previous: draft }, stream: { generation: run.answerGeneration } };
      const repaired = await models.generateAnswer.executeWithOptions({ ...MODEL_CALL, summary: 'repair_answer' }, [repair]);
      // The repair replaces the draft unless it verifies worse; either way the answer says a repair was tried.
      const better = rank(repaired.data.verification.status) >= rank(draft.verification.status) ? repaired.data : draft;
      run.answer = { ...better, duration_ms: draft.duration_ms + repaired.data.duration_ms, repair_attempted: true };
    } catch (error) {
      if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
      // The repair failed for good: the first draft stands, flagged by its own verification.
      run.answer = { ...draft, repair_attempted: true };
    }
  }
  run.step(steps.answerDone(run.answer.verification.status, run.answer.citations.length), stampNow(run));
}

const rank = (status: string): number => ({ unverified: 0, partially_verified: 1, verified: 2 })[status] ?? 0;
