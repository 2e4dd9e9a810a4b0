import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { RagClient } from '../../client/rag-client';
import { RagError, type RagErrorCode } from '../../core/errors';
import { RagOutcome } from '../../core/schemas/run-io';
import { awaitOutcomeUpdate, hitlAnswerSignal, submitHitlAnswerUpdate } from '../../workflows/messages';
import { pollUntil } from '../support/services';
import { GRADE10, R23, RES, chunk, grade, keySet, keysOf, retrievalTable, traced } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Human in the loop on the real dev server (issue 3 §2, DESIGN §3.5, spec §4.1 and §4.11): answers by signal and by
 * update, several rounds, the round limit, the answer timeout, resuming a new run from a snapshot, and every way an
 * answer is refused. The scripts follow spec §9 T08 (clarify with a model prompt and options) and T28–T30 (resume).
 */

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => env?.close());

// spec §9 T08/T28: the question, and q* after the answer "丹瑾" is prepended with a full-width colon (§4.11.1).
const Q = '这个角色的属性是什么？';
const ANSWER = '丹瑾';
const Q_STAR = '丹瑾：这个角色的属性是什么？';
const FAST_PATH = 'obvious_simple_fast_path:single_fact_marker';
const c1 = chunk('角色属性总表');
const r1 = chunk('丹瑾是湮灭属性角色。');
const askName = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
const askVersion = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充版本', hitl_options: ['1.0', '2.0'] });
const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);

/** spec §9 T28: the keys of a resumed trace — 23 non-R keys + R23 = 46 (initial_retrieved_chunks, sub_questions absent). */
const RESUME_KEYS = keySet(
  ['tool_used', 'tool_name', 'query', 'retrieval_stage', 'retrieved_chunks', 'complexity', 'complexity_reason'],
  RES,
  GRADE10,
  R23,
);

/** Ask Q → clarify (T08); the answer "丹瑾" retrieves [r1] for q*, graded by `afterAnswer`. */
const clarifyThen = (...afterAnswer: unknown[]): AdapterScript => ({
  retrieve: retrievalTable({ [Q]: [c1], [Q_STAR]: [r1] }),
  grades: { [Q]: [askName], [Q_STAR]: afterAnswer },
});

/** Every outcome a run publishes must satisfy the published schema (STYLE: parse at every edge). */
function checked(outcome: RagOutcome): RagOutcome {
  const parsed = RagOutcome.safeParse(outcome);
  if (!parsed.success) throw new Error(`outcome violates RagOutcome: ${parsed.error.message}`);
  return outcome;
}

async function expectRagError(call: Promise<unknown>, code: RagErrorCode): Promise<RagError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RagError);
  expect((error as RagError).code).toBe(code);
  return error as RagError;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The update ids that reached the history (accepted or completed); a rejected update must not be among them. */
function updateIdsIn(events: HistoryEvent[]): { accepted: string[]; completed: string[] } {
  return {
    accepted: events.flatMap((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId ?? []),
    completed: events.flatMap((event) => event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId ?? []),
  };
}

async function historyEvents(workflowId: string): Promise<HistoryEvent[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return history.events ?? [];
}

describe('answers by signal and by update', () => {
  test('T08 + T28 by signal: clarify, the hitlAnswer signal resumes the run, getOutcome settles as completed', async () => {
    await withWorker(env, clarifyThen(sure), async (rag, calls) => {
      const first = checked(await rag.ask(Q, { sessionId: sessionId() }));
      expect(first.status).toBe('awaiting_input');
      // T08: the model's prompt and options are used verbatim; the snapshot has exactly the 7 keys.
      expect(first.hitl).toEqual({ prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 });
      expect(first.hitl_resume_state).toEqual({
        question: Q, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
        complexity: 'simple', complexity_reason: FAST_PATH, sub_questions: [],
      });

      await env.client.workflow.getHandle(first.workflowId).signal(hitlAnswerSignal, ANSWER);
      const done = checked(await pollUntil('the signalled run to complete', async () => {
        const outcome = await rag.getOutcome(first.workflowId);
        return outcome.status === 'completed' ? outcome : undefined;
      }, { timeoutMs: 10_000, intervalMs: 50 }));

      expect(done.route).toBe('answer');
      expect(done.hitl).toBeNull();
      expect(done.hitl_resume_state).toBeNull();
      expect(done.rounds).toEqual([
        { round: 1, route: 'clarify', retrieval_status: 'needs_clarification', prompt: '请补充角色名', options: ['丹瑾', '丹恒'], answer: ANSWER, answered_via: 'signal', outcome: 'answered' },
      ]);
      // spec §9 T28: the resumed trace (46 keys) with the raw answer and q*.
      expect(keysOf(done.rag_trace ?? {})).toEqual(RESUME_KEYS);
      expect(done.rag_trace).toMatchObject({ query: Q_STAR, hitl_answer: ANSWER, hitl_resumed: true, retrieval_stage: 'hitl_targeted_retrieval', hitl_targeted_retrieved_chunks: [traced(r1)] });
      expect(calls.retrieval).toEqual([Q, Q_STAR]);
      expect(calls.grader).toEqual([Q, Q_STAR]);
      // The workflow's result is the same final outcome.
      expect(await env.client.workflow.getHandle(first.workflowId).result()).toEqual(done);
    });
  });

  test('T08 + T28 by update: rag.answer returns the completed outcome; search attributes follow the status', async () => {
    await withWorker(env, clarifyThen(sure), async (rag, calls) => {
      const first = checked(await rag.ask(Q, { sessionId: sessionId() }));
      expect(first.status).toBe('awaiting_input');
      const handle = env.client.workflow.getHandle(first.workflowId);
      const waiting = await handle.describe();
      expect(waiting.searchAttributes).toMatchObject({ RagStatus: ['awaiting_input'], RagRoute: ['clarify'], RagHitlRounds: [1] });

      const done = checked(await rag.answer(first.workflowId, ANSWER));
      expect(done.status).toBe('completed');
      expect(done.route).toBe('answer');
      expect(done.retrieval_status).toBe('answerable');
      expect(done.docs).toEqual([r1]);
      expect(done.rounds).toHaveLength(1);
      expect(done.rounds[0]).toMatchObject({ round: 1, answer: ANSWER, answered_via: 'update', outcome: 'answered' });
      expect(keysOf(done.rag_trace ?? {})).toEqual(RESUME_KEYS);
      expect(calls.rewriter).toEqual([]);

      await handle.result();
      expect((await handle.describe()).searchAttributes).toMatchObject({ RagStatus: ['completed'], RagRoute: ['answer'], RagHitlRounds: [1] });
    });
  });
});

describe('rounds, limits and timeouts', () => {
  test('two rounds: the resumed retrieval clarifies again, round 2 is answered, rounds[] records both', async () => {
    // Round 2's snapshot question is q* (spec §4.11.4 step 3), so the second answer is prepended to q*.
    const qStarStar = `v2：${Q_STAR}`;
    const r2 = chunk('丹瑾 2.0 版本为湮灭属性。');
    const script: AdapterScript = {
      retrieve: retrievalTable({ [Q]: [c1], [Q_STAR]: [r1], [qStarStar]: [r2] }),
      grades: { [Q]: [askName], [Q_STAR]: [askVersion], [qStarStar]: [sure] },
    };
    await withWorker(env, script, async (rag, calls) => {
      const first = await rag.ask(Q, { sessionId: sessionId() });
      const second = checked(await rag.answer(first.workflowId, ANSWER));
      expect(second.status).toBe('awaiting_input');
      expect(second.hitl).toEqual({ prompt: '请补充版本', options: ['1.0', '2.0'], round: 2 });
      expect(second.hitl_resume_state).toMatchObject({ question: Q_STAR, route: 'clarify', rewrite_count: 0, complexity: 'simple' });
      // T31: a clarifying resume empties the current evidence; the targeted list keeps it.
      expect(second.rag_trace).toMatchObject({ retrieved_chunks: [], hitl_targeted_retrieved_chunks: [traced(r1)] });

      await env.client.workflow.getHandle(first.workflowId).signal(hitlAnswerSignal, 'v2');
      const done = checked(await env.client.workflow.getHandle(first.workflowId).result());
      expect(done.status).toBe('completed');
      expect(done.route).toBe('answer');
      expect(done.rag_trace).toMatchObject({ query: qStarStar, hitl_answer: 'v2', hitl_resume_from_route: 'clarify' });
      expect(done.rounds).toEqual([
        { round: 1, route: 'clarify', retrieval_status: 'needs_clarification', prompt: '请补充角色名', options: ['丹瑾', '丹恒'], answer: ANSWER, answered_via: 'update', outcome: 'answered' },
        { round: 2, route: 'clarify', retrieval_status: 'needs_clarification', prompt: '请补充版本', options: ['1.0', '2.0'], answer: 'v2', answered_via: 'signal', outcome: 'answered' },
      ]);
      expect(calls.retrieval).toEqual([Q, Q_STAR, qStarStar]);
    });
  });

  test('maxRounds 1 reached: after one answer that clarifies again the run completes as clarify with a snapshot of q*', async () => {
    await withWorker(env, clarifyThen(askVersion), async (rag, calls) => {
      const first = await rag.ask(Q, { sessionId: sessionId(), hitl: { maxRounds: 1 } });
      expect(first.status).toBe('awaiting_input');
      const done = checked(await rag.answer(first.workflowId, ANSWER));
      expect(done.status).toBe('completed');
      expect(done.route).toBe('clarify');
      expect(done.retrieval_status).toBe('needs_clarification');
      // The question it would have asked next stays readable, with the snapshot an app resumes from later.
      expect(done.hitl).toEqual({ prompt: '请补充版本', options: ['1.0', '2.0'], round: 2 });
      expect(done.hitl_resume_state).toEqual({
        question: Q_STAR, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
        complexity: 'simple', complexity_reason: FAST_PATH, sub_questions: [],
      });
      expect(done.rounds.map((round) => [round.round, round.outcome, round.answered_via])).toEqual([[1, 'answered', 'update']]);
      expect(calls.retrieval).toEqual([Q, Q_STAR]);
    });
  });

  test('answer timeout (2 s): the run completes with rounds[0] timed_out and its resume snapshot', async () => {
    await withWorker(env, clarifyThen(), async (rag, calls) => {
      const started = Date.now();
      const first = await rag.ask(Q, { sessionId: sessionId(), hitl: { answerTimeoutMs: 2000 } });
      expect(first.status).toBe('awaiting_input');
      const done = checked(await env.client.workflow.getHandle(first.workflowId).result());
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      expect(done.status).toBe('completed');
      expect(done.route).toBe('clarify');
      expect(done.hitl).toEqual({ prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 });
      expect(done.hitl_resume_state).toEqual(first.hitl_resume_state);
      expect(done.rounds).toHaveLength(1);
      expect(done.rounds[0]).toMatchObject({ round: 1, outcome: 'timed_out', answer: null, answered_via: null });
      expect(calls.retrieval).toEqual([Q]);
      // A late answer is refused: the run has finished.
      await expectRagError(rag.answer(first.workflowId, ANSWER), 'NOT_AWAITING_INPUT');
    });
  });
});

describe('a new run resumed from a snapshot (resumeFrom)', () => {
  test('T28 from a timed-out run: targeted retrieval of q*, answer, hitl_resumed, rounds[0] answered via resume_from', async () => {
    await withWorker(env, clarifyThen(sure), async (rag, calls) => {
      const session = sessionId();
      const first = await rag.ask(Q, { sessionId: session, hitl: { answerTimeoutMs: 1000 } });
      const timedOut = await env.client.workflow.getHandle(first.workflowId).result();
      expect(timedOut.rounds[0]?.outcome).toBe('timed_out');
      const snapshot = timedOut.hitl_resume_state;
      expect(snapshot).not.toBeNull();

      const resumed = checked(await rag.ask(undefined, { sessionId: session, resumeFrom: { snapshot, answer: ANSWER } }));
      expect(resumed.workflowId).not.toBe(first.workflowId);
      expect(resumed.status).toBe('completed');
      expect(resumed.route).toBe('answer');
      expect(resumed.hitl_resume_state).toBeNull();
      expect(keysOf(resumed.rag_trace ?? {})).toEqual(RESUME_KEYS);
      expect(resumed.rag_trace).toMatchObject({
        query: Q_STAR, hitl_resumed: true, hitl_answer: ANSWER, hitl_resume_from_status: 'needs_clarification',
        hitl_resume_from_route: 'clarify', hitl_resume_strategy: 'targeted_retrieval', complexity: 'simple', complexity_reason: FAST_PATH,
      });
      expect(resumed.rounds).toHaveLength(1);
      expect(resumed.rounds[0]).toMatchObject({ answer: ANSWER, answered_via: 'resume_from', outcome: 'answered', route: 'clarify' });
      // One retrieval with q*, no planner (spec §4.11.4: never re-classifies).
      expect(calls.retrieval).toEqual([Q, Q_STAR]);
      expect(calls.planner).toEqual([]);
    });
  });

  test('a resumed run that clarifies again, maxRounds 1: rounds 0 (resume_from) and 1, the pending question is round 2', async () => {
    const snapshot = {
      question: Q, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
      complexity: 'simple', complexity_reason: FAST_PATH, sub_questions: [],
    };
    const qStarStar = `v2：${Q_STAR}`;
    const script: AdapterScript = {
      retrieve: retrievalTable({ [Q_STAR]: [r1], [qStarStar]: [r1] }),
      grades: { [Q_STAR]: [askVersion], [qStarStar]: [askVersion] },
    };
    await withWorker(env, script, async (rag) => {
      const first = checked(await rag.ask(undefined, { sessionId: sessionId(), resumeFrom: { snapshot, answer: ANSWER }, hitl: { maxRounds: 1 } }));
      expect(first.status).toBe('awaiting_input');
      expect(first.hitl?.round).toBe(1);
      const done = checked(await rag.answer(first.workflowId, 'v2'));
      expect(done.status).toBe('completed');
      expect(done.rounds.map((round) => [round.round, round.answered_via, round.outcome])).toEqual([
        [0, 'resume_from', 'answered'],
        [1, 'update', 'answered'],
      ]);
      expect(done.hitl).toEqual({ prompt: '请补充版本', options: ['1.0', '2.0'], round: 2 });
      expect(done.hitl_resume_state?.question).toBe(qStarStar);
      // RagHitlRounds counts the questions this run asked, not the answer it was started with.
      expect((await env.client.workflow.getHandle(first.workflowId).describe()).searchAttributes).toMatchObject({ RagHitlRounds: [1] });
    });
  });

  test('T30 resume whose grade says rewrite: route rewrite / needs_rewrite is returned, the rewriter never runs', async () => {
    const snapshot = {
      question: Q, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
      complexity: 'simple', complexity_reason: FAST_PATH, sub_questions: [],
    };
    await withWorker(env, { retrieve: retrievalTable({ [Q_STAR]: [r1] }), grades: { [Q_STAR]: [weakRewrite] } }, async (rag, calls) => {
      const outcome = checked(await rag.ask(undefined, { sessionId: sessionId(), resumeFrom: { snapshot, answer: ANSWER } }));
      expect(outcome.status).toBe('completed');
      expect(outcome.route).toBe('rewrite');
      expect(outcome.retrieval_status).toBe('needs_rewrite');
      expect(outcome.docs).toEqual([r1]);
      expect(outcome.hitl).toBeNull();
      expect(outcome.hitl_resume_state).toBeNull();
      expect(keysOf(outcome.rag_trace ?? {})).toEqual(RESUME_KEYS);
      expect(outcome.rag_trace).toMatchObject({ route: 'rewrite', hitl_prompt: '' });
      expect(calls.rewriter).toEqual([]);
      expect(calls.retrieval).toEqual([Q_STAR]);
    });
  });

  test('T32 a snapshot with an extra key fails the run with INVALID_RESUME_STATE before any retrieval', async () => {
    const snapshot = { question: Q, route: 'clarify', retrieval_status: 'needs_clarification', extra: 1 };
    await withWorker(env, { retrieve: retrievalTable({}) }, async (rag, calls) => {
      const outcome = checked(await rag.ask(undefined, { sessionId: sessionId(), resumeFrom: { snapshot, answer: ANSWER } }));
      expect(outcome.status).toBe('failed');
      expect(outcome.error?.type).toBe('INVALID_RESUME_STATE');
      expect(outcome.error?.message).toContain('extra');
      expect(calls.retrieval).toEqual([]);
    });
  });
});

describe('answers that are refused', () => {
  test('an empty or a 2,001-character answer update is rejected by the validator and leaves nothing in history', async () => {
    await withWorker(env, clarifyThen(sure), async (rag) => {
      const first = await rag.ask(Q, { sessionId: sessionId() });
      const handle = env.client.workflow.getHandle(first.workflowId);

      // Sent around the client's own check, so the workflow's validator is what refuses them.
      const refusals = [
        ['empty-answer', '   ', 'invalid answer: ✖ answer is empty after trimming'],
        ['oversized-answer', 'x'.repeat(2001), 'invalid answer: ✖ Too big: expected string to have <=2000 characters'],
      ] as const;
      for (const [updateId, text, message] of refusals) {
        const error = await handle.executeUpdate(submitHitlAnswerUpdate, { args: [text], updateId }).then(() => null, (thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
        const cause = (error as WorkflowUpdateFailedError).cause;
        expect(cause).toBeInstanceOf(ApplicationFailure);
        expect((cause as ApplicationFailure).type).toBe('INVALID_INPUT');
        expect((cause as ApplicationFailure).message).toBe(message);
      }
      // The client refuses the same answers before sending anything.
      const clientSide = await expectRagError(rag.answer(first.workflowId, '   '), 'INVALID_INPUT');
      expect(clientSide.message).toMatchInlineSnapshot(`"invalid answer: ✖ answer is empty after trimming"`);
      await expectRagError(rag.answer(first.workflowId, 'x'.repeat(2001)), 'INVALID_INPUT');

      // The run still waits, round 1 untouched, and takes a valid answer.
      const still = await rag.getOutcome(first.workflowId);
      expect(still.status).toBe('awaiting_input');
      expect(still.rounds[0]?.outcome).toBe('waiting');
      const done = await rag.answer(first.workflowId, ANSWER);
      expect(done.status).toBe('completed');

      const ids = updateIdsIn(await historyEvents(first.workflowId));
      expect(ids.accepted).not.toContain('empty-answer');
      expect(ids.accepted).not.toContain('oversized-answer');
      expect(ids.completed).not.toContain('empty-answer');
      expect(ids.completed).not.toContain('oversized-answer');
      // Only ask's awaitOutcome and the valid answer were accepted.
      expect(ids.accepted).toHaveLength(2);
      expect(ids.completed).toHaveLength(2);
    });
  });

  test('an answer while the run is still working (not waiting) is rejected NOT_AWAITING_INPUT and leaves nothing in history', async () => {
    // The grader takes 1.5 s, so the run is busy (status running) when the answer arrives.
    await withWorker(env, { ...clarifyThen(sure), modelDelayMs: 1500 }, async (rag, calls) => {
      const workflowId = `rag-busy-${randomUUID().slice(0, 8)}`;
      const asked = rag.ask(Q, { sessionId: sessionId(), workflowId });
      await pollUntil('the grader to be called', async () => (calls.grader.length > 0 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      const error = await expectRagError(rag.answer(workflowId, ANSWER), 'NOT_AWAITING_INPUT');
      expect(error.message).toMatchInlineSnapshot(`"run is running, not awaiting input; an answer is taken only while the run waits for one"`);
      const first = await asked;
      expect(first.status).toBe('awaiting_input');
      expect(first.rounds).toHaveLength(1);
      expect(first.rounds[0]?.outcome).toBe('waiting');
      // Only ask's awaitOutcome reached the history; the refused answer left no trace there.
      const ids = updateIdsIn(await historyEvents(workflowId));
      expect(ids.accepted).toHaveLength(1);
      expect(ids.completed).toHaveLength(1);
      await env.client.workflow.getHandle(workflowId).terminate('test done');
    });
  });

  test('an answer to a completed run is NOT_AWAITING_INPUT; to an unknown workflow id it is UNKNOWN_RUN', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag) => {
      const done = await rag.ask(Q, { sessionId: sessionId() });
      expect(done.status).toBe('completed');
      const finished = await expectRagError(rag.answer(done.workflowId, ANSWER), 'NOT_AWAITING_INPUT');
      expect(finished.message).toBe(`run "${done.workflowId}" has finished; it takes no more answers (ask the question again to continue)`);

      const unknownId = `rag-nobody-${randomUUID()}`;
      const unknown = await expectRagError(rag.answer(unknownId, ANSWER), 'UNKNOWN_RUN');
      expect(unknown.message).toContain(unknownId);
      await expectRagError(rag.getOutcome(unknownId), 'UNKNOWN_RUN');
    });
  });

  test('a signal with an empty answer is dropped: the run keeps waiting and awaitOutcome still reports round 1', async () => {
    await withWorker(env, clarifyThen(sure), async (rag, calls) => {
      const first = await rag.ask(Q, { sessionId: sessionId() });
      const handle = env.client.workflow.getHandle(first.workflowId);
      await handle.signal(hitlAnswerSignal, '   ');
      await handle.signal(hitlAnswerSignal, 'x'.repeat(2001));
      // An update after the signals is handled in the same or a later workflow task, so the signals were seen.
      const after = await handle.executeUpdate(awaitOutcomeUpdate);
      expect(after.status).toBe('awaiting_input');
      expect(after.rounds).toEqual(first.rounds);
      expect(calls.retrieval).toEqual([Q]);
      const signals = (await historyEvents(first.workflowId)).filter((event) => event.workflowExecutionSignaledEventAttributes);
      expect(signals).toHaveLength(2);

      const done = await rag.answer(first.workflowId, ANSWER);
      expect(done.rounds[0]).toMatchObject({ answer: ANSWER, answered_via: 'update' });
    });
  });

  test('awaitOutcome on a run that already waits for input returns at once', async () => {
    await withWorker(env, clarifyThen(), async (rag) => {
      const first = await rag.ask(Q, { sessionId: sessionId() });
      const started = Date.now();
      const again = checked(await env.client.workflow.getHandle(first.workflowId).executeUpdate(awaitOutcomeUpdate));
      // The default answer timeout is 7 days: getting a reply at all shows it did not wait for the next settle.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(again).toEqual(first);
      await env.client.workflow.getHandle(first.workflowId).terminate('test done');
    });
  });
});

describe('the client refuses bad input before anything starts', () => {
  // The messages are pinned here: they are what an app shows a person.
  test.each([
    ['an empty question', '   ', 'ok-session', 'invalid question: ✖ question is empty after trimming → at question'],
    ['a 2,001-character question', 'x'.repeat(2001), 'ok-session', 'invalid question: ✖ Too big: expected string to have <=2000 characters → at question'],
    ['a bad sessionId', Q, 'bad session/id', 'invalid question: ✖ sessionId may hold letters, digits and _ . : @ - only → at sessionId'],
  ])('%s → RagError INVALID_INPUT and no workflow', async (_what, question, session, message) => {
    const rag = RagClient.fromClient(env.client, 'no-worker-needed');
    const workflowId = `rag-never-${randomUUID()}`;
    const error = await expectRagError(rag.ask(question, { sessionId: session, workflowId }), 'INVALID_INPUT');
    expect(error.message).toBe(message);
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('ask is idempotent per workflow id', () => {
  test('ask twice with the same workflowId (USE_EXISTING) returns the same waiting run; the graph ran once', async () => {
    await withWorker(env, clarifyThen(sure), async (rag, calls) => {
      const workflowId = `rag-idem-${randomUUID().slice(0, 8)}`;
      const session = sessionId();
      const first = await rag.ask(Q, { sessionId: session, workflowId });
      const second = await rag.ask(Q, { sessionId: session, workflowId });
      expect(second.runId).toBe(first.runId);
      expect(second).toEqual(first);
      expect(calls.retrieval).toEqual([Q]);
      expect(calls.grader).toEqual([Q]);
      const done = await rag.answer(workflowId, ANSWER);
      expect(done.runId).toBe(first.runId);
    });
  });

  test('ask again with the id of a completed run returns that run\'s outcome; the graph does not run again', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag, calls) => {
      const workflowId = `rag-idem-done-${randomUUID().slice(0, 8)}`;
      const session = sessionId();
      const first = await rag.ask(Q, { sessionId: session, workflowId });
      expect(first.status).toBe('completed');
      const again = await rag.ask(Q, { sessionId: session, workflowId });
      expect(again).toEqual(first);
      expect(calls.retrieval).toEqual([Q]);
      expect(calls.grader).toEqual([Q]);
    });
  });
});
