import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { RagClient } from '../../client/rag-client';
import type { ChatModels } from '../../activities/ports';
import { pollUntil } from '../support/services';
import { GRADE10, K18, R23, RES, chunk, grade, keySet, keysOf, retrievalTable } from '../support/scenario';
import {
  createWorker,
  newTaskQueue,
  openWorkflowEnv,
  scriptedAdapters,
  sessionId,
  withWorker,
  type AdapterScript,
  type WorkflowEnv,
} from './harness';

/*
 * Durability and retries on the real dev server (DESIGN §4, §7; issue 3 §5): a worker stopped while a run waits
 * for a person or while an activity runs, a model that fails transiently, and a model whose reply breaks its schema.
 * What "nothing runs twice that should not" means here: an activity that completed before a worker stopped is
 * never executed again (the next worker replays its result from the history); an activity interrupted mid-attempt
 * may run again, which is Temporal's at-least-once contract for activities.
 */

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => env?.close());

// spec §9 T01 (answer on the fast path) and T08/T28 (clarify, then resume with "丹瑾").
const Q = '这个角色的属性是什么？';
const ANSWER = '丹瑾';
const Q_STAR = '丹瑾：这个角色的属性是什么？';
const c1 = chunk('角色属性总表');
const r1 = chunk('丹瑾是湮灭属性角色。');
const askName = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
/** A grader reply that breaks EvidenceGrade (spec §7.1): relevance is not one of strong/weak/none. */
const brokenGrade = { relevance: 'very', answerability: 'sufficient', route: 'answer' };

/** spec §9 T28: the keys of a resumed trace (46). */
const RESUME_KEYS = keySet(
  ['tool_used', 'tool_name', 'query', 'retrieval_stage', 'retrieved_chunks', 'complexity', 'complexity_reason'],
  RES,
  GRADE10,
  R23,
);

/** The progress labels of T08 + T28 in order (spec §4.13 texts): each step once, none repeated by a replay. */
const CLARIFY_THEN_RESUME_LABELS = [
  '正在分析问题复杂度...',
  '快速判断为简单问题 → 走标准 RAG 流程',
  '正在检索知识库...',
  '三级分块检索',
  'Auto-merging 合并',
  '检索完成，找到 1 个片段',
  '正在评估证据质量...',
  '需要用户补充信息',
  '收到 HITL 补充，继续原 RAG 流程',
  '使用 HITL 补充进行针对性检索',
  'HITL 三级分块检索',
  'Auto-merging 合并',
  'HITL 针对性检索完成，找到 1 个片段',
  '正在评估证据质量...',
  '证据足够，返回检索片段',
  // The answer node (DESIGN §3.6), on worker B.
  '正在生成回答...',
  '回答已生成，引用已校验',
];

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Per activity type: how often it was scheduled, and for each started event its attempt and worker identity. */
async function activityRecord(workflowId: string) {
  const events: HistoryEvent[] = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const typeByScheduledId = new Map<string, string>();
  const scheduled: Record<string, number> = {};
  const started: Array<{ type: string; attempt: number; identity: string; lastFailure: string | null }> = [];
  for (const event of events) {
    const schedule = event.activityTaskScheduledEventAttributes;
    if (schedule) {
      const type = schedule.activityType?.name ?? '?';
      typeByScheduledId.set(String(event.eventId), type);
      scheduled[type] = (scheduled[type] ?? 0) + 1;
    }
    const start = event.activityTaskStartedEventAttributes;
    if (start) {
      started.push({
        type: typeByScheduledId.get(String(start.scheduledEventId)) ?? '?',
        attempt: start.attempt ?? 0,
        identity: start.identity ?? '',
        // Decoded as a client reads it: failure messages travel sealed under the codec (issue 14 §6).
        lastFailure: (await decodeOptionalFailureToOptionalError(env.client.options.loadedDataConverter, start.lastFailure))?.message ?? null,
      });
    }
  }
  const workflowTaskWorkers = events.flatMap((event) => event.workflowTaskCompletedEventAttributes?.identity ?? []);
  // The audit activity (test/workflows/audit.test.ts covers it) is not part of the graph these tests count.
  delete scheduled.recordAudit;
  return { scheduled, started: started.filter(({ type }) => type !== 'recordAudit'), workflowTaskWorkers };
}

/** Starts a worker you stop yourself; `stop()` resolves once it has shut down (draining what it must). */
async function startWorker(adapters: Pick<ReturnType<typeof scriptedAdapters>, 'models' | 'retriever'>, taskQueue: string, identity: string) {
  const worker: Worker = await createWorker(env, adapters, taskQueue, { identity });
  const running = worker.run();
  return {
    worker,
    async stop(): Promise<void> {
      worker.shutdown();
      await running;
    },
  };
}

describe('a worker stopped and another started on the same task queue', () => {
  test('while the run waits for input: the new worker takes the answer, the trace is complete, no activity re-runs', async () => {
    const taskQueue = newTaskQueue();
    const adapters = scriptedAdapters({
      retrieve: retrievalTable({ [Q]: [c1], [Q_STAR]: [r1] }),
      grades: { [Q]: [askName], [Q_STAR]: [sure] },
    });
    const rag = RagClient.fromClient(env.client, taskQueue);

    const a = await startWorker(adapters, taskQueue, 'worker-a');
    const first = await rag.ask(Q, { sessionId: sessionId() });
    expect(first.status).toBe('awaiting_input');
    await a.stop();
    expect(a.worker.getState()).toBe('STOPPED');

    // No worker now: the run still exists and still waits (its state is in the history, not in a process).
    const b = await startWorker(adapters, taskQueue, 'worker-b');
    try {
      const done = await rag.answer(first.workflowId, ANSWER);
      expect(done.status).toBe('completed');
      expect(done.route).toBe('answer');
      expect(keysOf(done.rag_trace ?? {})).toEqual(RESUME_KEYS);
      expect(done.rounds[0]).toMatchObject({ round: 1, answer: ANSWER, answered_via: 'update', outcome: 'answered' });
      expect((await rag.getProgress(first.workflowId)).map((step) => step.label)).toEqual(CLARIFY_THEN_RESUME_LABELS);

      // Worker B rebuilt the run by replaying the history: the initial retrieval and grade ran once, on worker A.
      expect(adapters.calls.retrieval).toEqual([Q, Q_STAR]);
      expect(adapters.calls.grader).toEqual([Q, Q_STAR]);
      const record = await activityRecord(first.workflowId);
      expect(record.started.map(({ type, attempt, identity }) => [type, attempt, identity])).toEqual([
        ['retrieve', 1, 'worker-a'],
        ['gradeEvidence', 1, 'worker-a'],
        ['retrieve', 1, 'worker-b'],
        ['gradeEvidence', 1, 'worker-b'],
        ['generateAnswer', 1, 'worker-b'],
      ]);
      expect(record.workflowTaskWorkers).toContain('worker-b');
    } finally {
      await b.stop();
    }
  });

  test('while an activity runs (cancellation honoured): the interrupted grade runs again on the new worker; retrieval does not', async () => {
    const taskQueue = newTaskQueue();
    // The grader takes 2 s and gives up when its worker shuts down (the shutdown cancels running activities).
    const adapters = scriptedAdapters({
      retrieve: retrievalTable({ [Q]: [c1] }),
      grades: { [Q]: [sure] },
      modelDelayMs: 2000,
      modelDelayHonoursCancellation: true,
    });
    const rag = RagClient.fromClient(env.client, taskQueue);
    const workflowId = `rag-stop-mid-activity-${randomUUID().slice(0, 8)}`;

    const a = await startWorker(adapters, taskQueue, 'worker-a');
    const asked = rag.ask(Q, { sessionId: sessionId(), workflowId });
    await pollUntil('the grader to start', async () => (adapters.calls.grader.length > 0 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    const stopping = Date.now();
    await a.stop();
    // The shutdown did not wait for the 2 s reply: the attempt was cancelled, and it failed.
    expect(Date.now() - stopping).toBeLessThan(1500);
    expect(adapters.calls.retrieval).toEqual([Q]);
    expect(adapters.calls.grader).toEqual([Q]);

    const b = await startWorker(adapters, taskQueue, 'worker-b');
    try {
      const done = await asked;
      expect(done.status).toBe('completed');
      expect(done.route).toBe('answer');
      expect(keysOf(done.rag_trace ?? {})).toEqual(keySet(K18, R23));
      // Retrieval completed before the stop: it ran once. The grade was interrupted: a second attempt ran on B.
      expect(adapters.calls.retrieval).toEqual([Q]);
      expect(adapters.calls.grader).toEqual([Q, Q]);
      const record = await activityRecord(workflowId);
      expect(record.scheduled).toEqual({ retrieve: 1, gradeEvidence: 1, generateAnswer: 1 });
      expect(record.started.map(({ type, attempt, identity }) => [type, attempt, identity])).toEqual([
        ['retrieve', 1, 'worker-a'],
        ['gradeEvidence', 2, 'worker-b'],
        ['generateAnswer', 1, 'worker-b'],
      ]);
    } finally {
      await b.stop();
    }
  });

  test('while an activity runs (cancellation ignored): the shutdown drains it, its result is kept, nothing runs twice', async () => {
    const taskQueue = newTaskQueue();
    const adapters = scriptedAdapters({ retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, modelDelayMs: 1500 });
    const rag = RagClient.fromClient(env.client, taskQueue);
    const workflowId = `rag-drain-${randomUUID().slice(0, 8)}`;

    const a = await startWorker(adapters, taskQueue, 'worker-a');
    const asked = rag.ask(Q, { sessionId: sessionId(), workflowId });
    await pollUntil('the grader to start', async () => (adapters.calls.grader.length > 0 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    await a.stop();

    const b = await startWorker(adapters, taskQueue, 'worker-b');
    try {
      const done = await asked;
      expect(done.status).toBe('completed');
      expect(keysOf(done.rag_trace ?? {})).toEqual(keySet(K18, R23));
      expect(adapters.calls.retrieval).toEqual([Q]);
      expect(adapters.calls.grader).toEqual([Q]);
      const record = await activityRecord(workflowId);
      expect(record.started.map(({ type, attempt, identity }) => [type, attempt, identity])).toEqual([
        ['retrieve', 1, 'worker-a'],
        ['gradeEvidence', 1, 'worker-a'],
        ['generateAnswer', 1, 'worker-b'],
      ]);
      // The workflow went on from the drained result on worker B.
      expect(record.workflowTaskWorkers.at(-1)).toBe('worker-b');
    } finally {
      await b.stop();
    }
  });
});

describe('model failures', () => {
  /** The scripted models, with the grader failing the way `fail` says on its first `times` calls. */
  function flakyGrader(script: AdapterScript, times: number, fail: () => never) {
    const adapters = scriptedAdapters(script);
    let failures = 0;
    const models: ChatModels = {
      ...adapters.models,
      async gradeEvidence(...args) {
        if (failures < times) {
          failures += 1;
          adapters.calls.grader.push(args[0]);
          fail();
        }
        return adapters.models.gradeEvidence(...args);
      },
    };
    return { ...adapters, models };
  }

  test('a transient model error once (HTTP 503), then a reply: the activity is retried and the run completes', async () => {
    const adapters = flakyGrader({ retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, 1, () => {
      throw new Error('HTTP 503 from the model endpoint');
    });
    const taskQueue = newTaskQueue();
    const worker = await createWorker(env, adapters, taskQueue);
    const rag = RagClient.fromClient(env.client, taskQueue);
    const done = await worker.runUntil(rag.ask(Q, { sessionId: sessionId() }));
    expect(done.status).toBe('completed');
    expect(done.route).toBe('answer');
    expect(adapters.calls.grader).toEqual([Q, Q]);
    const record = await activityRecord(done.workflowId);
    expect(record.started.find(({ type }) => type === 'gradeEvidence')).toMatchObject({ attempt: 2, lastFailure: 'HTTP 503 from the model endpoint' });
  });

  test('a grader reply that violates EvidenceGrade 3 times: the run fails with MODEL_OUTPUT_INVALID naming the schema', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [brokenGrade, brokenGrade, brokenGrade] } };
    await withWorker(env, script, async (rag, calls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect(outcome.status).toBe('failed');
      expect(outcome.error?.type).toBe('MODEL_OUTPUT_INVALID');
      expect(outcome.error?.message).toMatchInlineSnapshot(`"scripted-model returned output that violates evidence_grade: ✖ Invalid option: expected one of "none"|"weak"|"strong" → at relevance"`);
      // At most two retries (DESIGN §4): three calls in all.
      expect(calls.grader).toEqual([Q, Q, Q]);

      const failure = await env.client.workflow.getHandle(outcome.workflowId).result().then(() => null, (thrown: unknown) => thrown);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const cause = (failure as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('MODEL_OUTPUT_INVALID');
      expect((cause as ApplicationFailure).nonRetryable).toBe(true);
      expect(await rag.getOutcome(outcome.workflowId)).toMatchObject({ status: 'failed', error: outcome.error });
      expect((await env.client.workflow.getHandle(outcome.workflowId).describe()).searchAttributes).toMatchObject({ RagStatus: ['failed'] });
    });
  });

  test('a grader reply that violates EvidenceGrade once, then a valid one: the run completes', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [brokenGrade, sure] } };
    await withWorker(env, script, async (rag, calls) => {
      const done = await rag.ask(Q, { sessionId: sessionId() });
      expect(done.status).toBe('completed');
      expect(done.route).toBe('answer');
      expect(calls.grader).toEqual([Q, Q]);
      const record = await activityRecord(done.workflowId);
      const grading = record.started.find(({ type }) => type === 'gradeEvidence');
      expect(grading?.attempt).toBe(2);
      expect(grading?.lastFailure).toContain('violates evidence_grade');
      expect(grading?.lastFailure).toContain('(attempt 1 of 3)');
    });
  });
});
