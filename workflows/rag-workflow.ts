import { ApplicationFailure, allHandlersFinished, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import { describeZodError } from '../core/errors';
import { parseHitlResumeState } from '../core/graph/hitl-resume';
import { RagRun } from '../core/run/rag-run';
import { HitlAnswer, RagWorkflowInput, type HitlSettings, type RagOutcome } from '../core/schemas/run-io';
import { runErrorOf, terminalFailure } from './failures';
import { fanOutAndSynthesize } from './fan-out';
import { classifyComplexity, gradeDocuments, retrieveInitial, rewriteAndRetrieve } from './graph-nodes';
import {
  awaitOutcomeUpdate,
  hitlAnswerSignal,
  outcomeQuery,
  progressQuery,
  submitHitlAnswerUpdate,
  traceQuery,
} from './messages';
import { publishState } from './publish-state';
import { resumeWithAnswer } from './resume-node';

/**
 * The RAG graph of spec §3–§4 as one durable run: classify, retrieve, grade, rewrite once, or fan out into
 * sub-questions and synthesize; then, while the evidence needs a person, ask and wait (days if need be) for an
 * answer by signal or update, and resume with it (spec §4.11).
 */
export async function ragWorkflow(rawInput: RagWorkflowInput): Promise<RagOutcome> {
  const parsed = RagWorkflowInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({ type: 'INVALID_INPUT', message: describeZodError('invalid ragWorkflow input', parsed.error), nonRetryable: true });
  }
  const input = parsed.data;
  const info = workflowInfo();
  const ids = { workflowId: info.workflowId, runId: info.runId, sessionId: input.sessionId };
  const startedAt = Date.now();
  const run = new RagRun(startedAt);

  // Message handlers
  setHandler(outcomeQuery, () => run.outcome(ids));
  setHandler(traceQuery, () => run.normalizedTrace());
  setHandler(progressQuery, () => run.steps());
  setHandler(awaitOutcomeUpdate, async () => {
    await condition(() => run.isSettled());
    return run.outcome(ids);
  });
  setHandler(hitlAnswerSignal, (answer) => {
    // A signal cannot be refused: an empty, oversized or late answer is dropped; the run keeps waiting.
    if (HitlAnswer.safeParse(answer).success) run.receiveAnswer(answer, 'signal');
  });
  setHandler(
    submitHitlAnswerUpdate,
    async (answer) => {
      const settledBefore = run.settleCount;
      run.receiveAnswer(answer, 'update');
      await condition(() => run.settleCount > settledBefore);
      return run.outcome(ids);
    },
    { validator: (answer) => validateAnswer(run, answer) },
  );

  try {
    if (input.resumeFrom) {
      const snapshot = parseHitlResumeState(input.resumeFrom.snapshot);
      run.recordResumeAnswer(snapshot, input.resumeFrom.answer);
      await resumeWithAnswer(run, snapshot, input.resumeFrom.answer);
    } else {
      run.question = input.question ?? '';
      await answerQuestion(run, startedAt);
    }
    await converse(run, input.hitl);
    publishState(run);
  } catch (error) {
    const runError = runErrorOf(error);
    run.fail(runError);
    publishState(run);
    await condition(allHandlersFinished);
    throw terminalFailure(runError, error);
  }
  await condition(allHandlersFinished);
  return run.outcome(ids);
}

/** The first pass over the graph (spec §3): simple path with at most one rewrite, or fan-out and synthesis. */
async function answerQuestion(run: RagRun, startedAt: number): Promise<void> {
  await classifyComplexity(run);
  publishState(run);
  if (run.complexity === 'complex') {
    await fanOutAndSynthesize(run, startedAt);
    return;
  }
  await retrieveInitial(run);
  await gradeDocuments(run, false);
  if (run.route === 'rewrite' && (await rewriteAndRetrieve(run))) await gradeDocuments(run, false);
}

/** Ask, wait, resume — while the evidence needs a person, for at most `maxRounds` questions. */
async function converse(run: RagRun, settings: HitlSettings): Promise<void> {
  let round = 0;
  while (run.needsPerson() && round < settings.maxRounds) {
    round += 1;
    run.askPerson(round);
    publishState(run);
    const answered = await condition(() => run.hasAnswer(), settings.answerTimeoutMs);
    if (!answered) {
      run.timeOut();
      return;
    }
    const snapshot = run.resumeState;
    const answer = run.takeAnswer();
    publishState(run);
    if (snapshot) await resumeWithAnswer(run, snapshot, answer.text);
  }
  run.finish();
}

function validateAnswer(run: RagRun, answer: unknown): void {
  const parsed = HitlAnswer.safeParse(answer);
  if (!parsed.success) {
    throw ApplicationFailure.create({ type: 'INVALID_INPUT', message: describeZodError('invalid answer', parsed.error), nonRetryable: true });
  }
  const rejection = run.answerRejection();
  if (rejection) throw ApplicationFailure.create({ type: rejection.code, message: rejection.message, nonRetryable: true });
}
