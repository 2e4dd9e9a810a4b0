import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { describeZodError } from '../core/errors';
import { accessClause } from '../core/knowledge/document-access';
import { mayNeedNoRetrieval } from '../core/intent/classify-intent';
import { parseHitlResumeState } from '../core/graph/hitl-resume';
import { RagRun } from '../core/run/rag-run';
import { HitlAnswer, RagWorkflowInput, type HitlSettings, type RagOutcome } from '../core/schemas/run-io';
import { generateAnswer } from './answer-node';
import { AuditRecorder, type AuditMode } from './audit-recorder';
import { openConversation, recordConversationTurn } from './conversation-node';
import { cancelledRunError, runErrorOf, terminalFailure } from './failures';
import { fanOutAndSynthesize } from './fan-out';
import { answeredWithoutRetrieval, skipsAnswerNode } from './intent-node';
import { classifyComplexity, gradeDocuments, retrieveInitial, rewriteAndRetrieve } from './graph-nodes';
import {
  answerStreamQuery,
  awaitOutcomeUpdate,
  hitlAnswerSignal,
  outcomeQuery,
  progressQuery,
  submitHitlAnswerUpdate,
  traceQuery,
} from './messages';
import { planWithVisibleAttempts } from './planner-attempts';
import { publishState } from './publish-state';
import { resumeWithAnswer } from './resume-node';
import { speculateAheadOfPlanner } from './speculate-ahead-of-planner';
import { attachSpeculator } from './speculation';
import {
  ANSWER_PATCH,
  AUDIT_LOCAL_PATCH,
  AUDIT_PATCH,
  CANCELLED_PATCH,
  PLANNER_ATTEMPTS_PATCH,
  decideIntentPatch,
  decideOnePatch,
  decidePatchesAtStart,
  patchedFor,
} from './start-patches';
import { stampNow } from './stamp-clock';

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
  const session = { tenant: input.tenant ?? '', sessionId: input.sessionId };
  const startedAt = Date.now();
  const run = new RagRun(startedAt);
  run.kb = input.kb ?? null;
  run.filters = input.filters ?? null;
  if (input.access) run.forced = [accessClause(input.access)]; // issue 44 §4: the token's groups
  // Patches are decided before anything else (workflows/start-patches.ts); older runs keep the order they asked in.
  decideOnePatch(run);
  attachSpeculator(run, input.speculation);
  decidePatchesAtStart(run);
  const recorder = new AuditRecorder(run.audit, ids, auditMode(run));
  run.audit.runStarted(startedAt, {
    resumed: input.resumeFrom !== undefined,
    maxRounds: input.hitl.maxRounds,
    answerTimeoutMs: input.hitl.answerTimeoutMs,
  });

  // Message handlers
  setHandler(outcomeQuery, () => run.outcome(ids));
  setHandler(traceQuery, () => run.normalizedTrace());
  setHandler(progressQuery, () => run.steps());
  setHandler(answerStreamQuery, () => ({ generation: run.answerGeneration, docs: run.docs }));
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
      run.audit.answerReceived(stampNow(run), { round: 0, via: 'resume_from' });
      await resumeWithAnswer(run, snapshot, input.resumeFrom.answer);
    } else {
      run.question = input.question ?? '';
      // Issue 44 §5: asked before openTurn, which decides the intent; a greeting or thanks skips the graph.
      decideIntentPatch(run, mayNeedNoRetrieval(run.question));
      await openConversation(run, session);
      if (!answeredWithoutRetrieval(run)) await answerQuestion(run, startedAt);
    }
    const ending = await converse(run, input.hitl, recorder);
    if (ending === 'done' && run.route === 'answer' && !skipsAnswerNode(run)) await answerNode(run);
    await recordConversationTurn(run, session, info.workflowId);
    // Recorded just before the run settles, so that it still closes in the task it settles in (as it did before
    // the audit): whoever sees the outcome sees a closed run. finish() keeps the question iff a person is needed.
    run.audit.completed(stampNow(run), {
      route: run.route,
      retrievalStatus: run.retrievalStatus,
      rounds: run.rounds.filter((round) => round.round > 0).length,
      awaitingPerson: run.needsPerson(),
      evidenceCount: run.docs.length,
      degraded: run.retrievalHealth.degraded(),
    });
    await recorder.settle();
    if (ending === 'timed_out') run.timeOut();
    else run.finish();
    publishState(run);
  } catch (error) {
    // Cancelled from outside (RagClient.cancel, an MCP client cancelling its tool call): the audit says so and the
    // run ends CANCELLED. Histories from before CANCELLED_PATCH recorded a `failed` event instead.
    if (isCancellation(error) && patchedFor(run, CANCELLED_PATCH)) {
      run.audit.cancelled(stampNow(run), { route: run.route, rounds: run.rounds.filter((round) => round.round > 0).length });
      await CancellationScope.nonCancellable(() => recorder.settle());
      run.fail(cancelledRunError());
      publishState(run);
      // No wait for allHandlersFinished: in the cancelled scope it would only throw this cancellation again, and the
      // handlers' own waits were cancelled with it. Rethrown as it is, the cancellation ends the run CANCELLED.
      throw error;
    }
    const runError = runErrorOf(error);
    run.audit.failed(stampNow(run), { errorType: runError.type, route: run.route });
    // Also when the run was cancelled: the audit says how it ended.
    await CancellationScope.nonCancellable(() => recorder.settle());
    run.fail(runError);
    publishState(run);
    await condition(allHandlersFinished);
    throw terminalFailure(runError, error);
  }
  await condition(allHandlersFinished);
  return run.outcome(ids);
}

/**
 * The first pass over the graph (spec §3): simple path with at most one rewrite, or fan-out and synthesis. With
 * speculation, the question's retrieval (and grade) may already be running beside the planner.
 */
async function answerQuestion(run: RagRun, startedAt: number): Promise<void> {
  let ahead = speculateAheadOfPlanner(run);
  // Issue 26 §5: the first failed planner attempt stops what runs beside it, before it sends model calls a failing
  // planner would not have; the later attempts run as without speculation.
  const seesAttempts = ahead !== null && patchedFor(run, PLANNER_ATTEMPTS_PATCH);
  const stopAhead = (error: unknown, attempt: number) => {
    ahead?.discard(`the planner's attempt ${attempt} failed (${runErrorOf(error).type})`);
    ahead = null;
  };
  try {
    await classifyComplexity(run, seesAttempts ? (question) => planWithVisibleAttempts(question, stopAhead) : undefined);
  } catch (error) {
    ahead?.discard('the planner failed');
    throw error;
  }
  publishState(run);
  if (run.complexity === 'complex') {
    ahead?.discard('the planner said complex');
    await fanOutAndSynthesize(run, startedAt);
    return;
  }
  await retrieveInitial(run, null, ahead?.retrieval);
  await gradeDocuments(run, false, null, ahead?.grade ?? undefined);
  if (run.route === 'rewrite' && (await rewriteAndRetrieve(run))) await gradeDocuments(run, false);
}

/**
 * Ask, wait, resume — while the evidence needs a person, for at most `maxRounds` questions. The caller ends the run
 * (finish, or timeOut when the last question got no answer in time).
 */
async function converse(run: RagRun, settings: HitlSettings, recorder: AuditRecorder): Promise<'done' | 'timed_out'> {
  let round = 0;
  while (run.needsPerson() && round < settings.maxRounds) {
    round += 1;
    run.askPerson(round);
    publishState(run);
    run.audit.hitlRequested(stampNow(run), {
      round,
      route: run.route,
      retrievalStatus: run.retrievalStatus,
      optionCount: run.hitl?.options.length ?? 0,
    });
    // A settle point: the rows so far are recorded while the run waits (not before, so the timeout is unchanged).
    recorder.flush();
    const answered = await condition(() => run.hasAnswer(), settings.answerTimeoutMs);
    if (!answered) {
      // No answer is taken any more, while the run records its audit before it settles as timed out.
      run.stopTakingAnswers();
      return 'timed_out';
    }
    const snapshot = run.resumeState;
    const answer = run.takeAnswer();
    run.audit.answerReceived(stampNow(run), { round, via: answer.via });
    publishState(run);
    if (snapshot) await resumeWithAnswer(run, snapshot, answer.text);
  }
  return 'done';
}

/**
 * The graph's last node on route `answer` (DESIGN §3.6). Histories recorded before it settle on `answer` without
 * one (answer_null_reason `not_generated`).
 */
async function answerNode(run: RagRun): Promise<void> {
  if (!patchedFor(run, ANSWER_PATCH)) {
    run.answersEnabled = false;
    return;
  }
  await generateAnswer(run);
  const { answer } = run;
  run.audit.answerWritten(
    stampNow(run),
    answer
      ? {
          written: true,
          chars: [...answer.text].length,
          citations: answer.citations.length,
          verification: answer.verification.status,
          repairAttempted: answer.repair_attempted,
          model: answer.model,
          durationMs: answer.duration_ms,
          answerCheck: answer.verification,
        }
      : { written: false, errorType: run.answerError?.type ?? 'INTERNAL' },
  );
}

/** Histories recorded before the audit replay without it; those recorded before the local activity, with a regular one. */
function auditMode(run: RagRun): AuditMode {
  if (!patchedFor(run, AUDIT_PATCH)) return 'off';
  return patchedFor(run, AUDIT_LOCAL_PATCH) ? 'local' : 'activity';
}

function validateAnswer(run: RagRun, answer: unknown): void {
  const parsed = HitlAnswer.safeParse(answer);
  if (!parsed.success) {
    throw ApplicationFailure.create({ type: 'INVALID_INPUT', message: describeZodError('invalid answer', parsed.error), nonRetryable: true });
  }
  const rejection = run.answerRejection();
  if (rejection) throw ApplicationFailure.create({ type: rejection.code, message: rejection.message, nonRetryable: true });
}
