import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { createAuditStore, type SqlAuditStore } from '../../activities/adapters/sql-audit-store';
import type { AuditStore } from '../../activities/ports';
import { RagClient } from '../../client/rag-client';
import { RagError } from '../../core/errors';
import { SessionTrace } from '../../core/schemas/audit';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { pollUntil } from '../support/services';
import { chunk, grade, plannerResult, retrievalTable, stepBackPlan } from '../support/scenario';
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
 * The audit of a run on the real dev server (issue 6 §1 and §5, DESIGN §5 layer B): the real activity code writes
 * to a real SQLite audit store. One tool_invocation row per retrieval + grade (initial, rewritten, sub-<i>,
 * hitl-<round>) and the timeline events of every path; no duplicates when recordAudit is retried after it wrote,
 * or when the run moves to another worker; a failing store never changes the outcome; no question or chunk text
 * in the stored bytes (content is off).
 */

let env: WorkflowEnv;
let dir: string;
let store: SqlAuditStore;

beforeAll(async () => {
  env = await openWorkflowEnv();
  dir = mkdtempSync(join(tmpdir(), 'ragtime-audit-workflow-'));
  store = createAuditStore({ sqliteFile: join(dir, 'audit.sqlite'), includeContent: false });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// spec §9 fixtures (T01, T08/T28, T10, T19); chunk ids without text, so that only `content` could carry it.
const Q = '这个角色的属性是什么？';
const ANSWER = '丹瑾';
const Q_STAR = `${ANSWER}：${Q}`;
const QC = '比较丹瑾与卡卡罗的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
const leaf = (text: string, n: number): Chunk => chunk(text, { chunk_id: `doc.pdf::p1::l3::${n}` });
const c1 = leaf('角色属性总表', 1);
const c2 = leaf('角色属性体系与元素反应。', 2);
const r1 = leaf('丹瑾是湮灭属性角色。', 3);
const r2 = leaf('丹瑾 2.0 版本为湮灭属性。', 4);
const TEXTS = [Q, QC, ...SUBS, c1, c2, r1, r2].map((item) => (typeof item === 'string' ? item : (item.text as string)));

const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);
const askName = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
const askVersion = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充版本', hitl_options: ['1.0', '2.0'] });
/** A grader reply that breaks EvidenceGrade (spec §7.1): every attempt fails with MODEL_OUTPUT_INVALID. */
const brokenGrade = { relevance: 'very', answerability: 'sufficient', route: 'answer' };

const steps = (trace: SessionTrace) => trace.toolInvocations.map((row) => row.step);
const keys = (trace: SessionTrace) => trace.events.map((event) => event.key);

/** The session's trace once the run has closed (the run records its rows before it completes or fails). */
async function traceWhenClosed(session: string, workflowId: string, from: AuditStore = store): Promise<SessionTrace> {
  await env.client.workflow.getHandle(workflowId).result().catch(() => undefined);
  const trace = await from.sessionTrace(session);
  expect(SessionTrace.safeParse(trace).success).toBe(true);
  return trace;
}

/** Polls until the store holds the event `key` (a waiting run records without blocking its wait). */
async function traceWithEvent(session: string, key: string, from: AuditStore = store): Promise<SessionTrace> {
  return pollUntil(`audit event ${key}`, async () => {
    const trace = await from.sessionTrace(session);
    return keys(trace).includes(key) ? trace : undefined;
  }, { timeoutMs: 10_000, intervalMs: 50 });
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * recordAudit in the history: how often it ran, the attempt each run ended on, and how many failed for good. New
 * runs record it as a local activity (AUDIT_LOCAL_PATCH): one marker per call, written when the call ended.
 */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity'; // the marker name the SDK's core gives local activities

async function auditActivity(workflowId: string) {
  const events: HistoryEvent[] = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const attempts: number[] = [];
  let scheduled = 0;
  let failed = 0;
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'recordAudit') throw new Error('recordAudit was scheduled as a regular activity');
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) continue;
    const data = JSON.parse(Buffer.from(marker.details?.data?.payloads?.[0]?.data ?? new Uint8Array()).toString('utf8')) as { activity_type: string; attempt: number };
    if (data.activity_type !== 'recordAudit') continue;
    scheduled += 1;
    attempts.push(data.attempt);
    if (marker.failure) failed += 1;
  }
  return { scheduled, attempts, failed };
}

describe('rows and events for every path', () => {
  test('T01 simple answer: one "initial" row (rag_lookup_v1 details), run_started → completed', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag) => {
      const outcome = await rag.ask(Q, { sessionId: session });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(trace.runs).toEqual([
        { workflowId: outcome.workflowId, runId: outcome.runId, startedAt: trace.events[0]?.createdAt, status: 'completed', route: 'answer' },
      ]);
      expect(steps(trace)).toEqual(['initial']);
      expect(trace.toolInvocations[0]).toMatchObject({
        workflowId: outcome.workflowId, runId: outcome.runId, toolName: 'search_knowledge_base', retrievalLayer: 'L3',
        relevanceLevel: 'strong', evidenceCount: 1, candidateCount: 1, truncated: false, success: true, errorMessage: null, content: null,
      });
      expect(trace.toolInvocations[0]?.retrievalDetails).toMatchObject({
        audit_schema: 'rag_lookup_v1', stage: 'initial', search_mode: 'hybrid', evidence_keys: ['doc.pdf::p1::l3::1'],
        sources: ['doc.pdf'], evidence_status: 'EVIDENCE_FOUND', route: 'answer', retrieval_status: 'answerable',
        evidence_confidence: 0.95, graded_by: 'scripted-model', returned_count: 1,
      });
      expect(keys(trace)).toEqual(['run_started', 'answer_written', 'completed']);
      expect(trace.events[0]?.detail).toEqual({ status: 'running', resumed: false, max_rounds: 3, answer_timeout_ms: 7 * 24 * 3600 * 1000 });
      // The answer node (DESIGN §3.6): its length, citations and verification, never its text.
      expect(trace.events[1]?.detail).toEqual({
        status: 'running', answer_chars: expect.any(Number), citation_count: 1, verification: 'verified', repair_attempted: false,
        answer_model: 'scripted-answerer', duration_ms: expect.any(Number),
      });
      expect(trace.events[2]?.detail).toEqual({ status: 'completed', route: 'answer', retrieval_status: 'answerable', rounds: 0, awaiting_person: false, evidence_count: 1 });
    }, { audit: store });
  });

  test('T02 no evidence: the row says NO_EVIDENCE and no model graded', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [] }) }, async (rag) => {
      const outcome = await rag.ask(Q, { sessionId: session });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(trace.toolInvocations[0]?.retrievalDetails).toMatchObject({ evidence_status: 'NO_EVIDENCE', graded_by: null, route: 'no_knowledge' });
      expect(trace.runs[0]).toMatchObject({ status: 'completed', route: 'no_knowledge' });
    }, { audit: store });
  });

  test('T10 rewrite: rows "initial" (route rewrite) and "rewritten" (route answer), in that order', async () => {
    const session = sessionId();
    const script: AdapterScript = {
      retrieve: retrievalTable({ [Q]: [c1], [`${Q}\n\n退步问题：角色属性体系是什么？`]: [c2] }),
      grades: { [Q]: [weakRewrite, sure] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    };
    await withWorker(env, script, async (rag) => {
      const outcome = await rag.ask(Q, { sessionId: session });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(trace.toolInvocations.map((row) => [row.step, row.retrievalDetails.stage, row.retrievalDetails.route, row.relevanceLevel])).toEqual([
        ['initial', 'initial', 'rewrite', 'weak'],
        ['rewritten', 'rewritten', 'answer', 'strong'],
      ]);
      expect(keys(trace)).toEqual(['run_started', 'answer_written', 'completed']);
    }, { audit: store });
  });

  test('T19 complex: the children return their rows, the parent records "sub-1" and "sub-2" under its own ids', async () => {
    const session = sessionId();
    const script: AdapterScript = {
      retrieve: retrievalTable({ [SUBS[0] as string]: [r1], [SUBS[1] as string]: [c2] }),
      planner: plannerResult('complex', '涉及多维度比较', SUBS),
      grades: { [SUBS[0] as string]: [sure], [SUBS[1] as string]: [sure] },
    };
    await withWorker(env, script, async (rag) => {
      const outcome = await rag.ask(QC, { sessionId: session });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      // Rows come in time order (when each child finished); compare them by step.
      const rows = [...trace.toolInvocations].sort((a, b) => a.step.localeCompare(b.step));
      expect(rows.map((row) => [row.workflowId, row.runId, row.step, row.retrievalDetails.stage, row.retrievalDetails.evidence_keys])).toEqual([
        [outcome.workflowId, outcome.runId, 'sub-1', 'sub_question', ['doc.pdf::p1::l3::3']],
        [outcome.workflowId, outcome.runId, 'sub-2', 'sub_question', ['doc.pdf::p1::l3::2']],
      ]);
      // One run: the children are part of it, not runs of the session.
      expect(trace.runs.map((run) => [run.workflowId, run.status, run.route])).toEqual([[outcome.workflowId, 'completed', 'answer']]);
      expect(keys(trace)).toEqual(['run_started', 'answer_written', 'completed']);
    }, { audit: store });
  });

  test('T08 + T28 HITL, two rounds: rows initial, hitl-1, hitl-2; the waiting run is recorded while it waits', async () => {
    const session = sessionId();
    const qStarStar = `v2：${Q_STAR}`;
    const script: AdapterScript = {
      retrieve: retrievalTable({ [Q]: [c1], [Q_STAR]: [r1], [qStarStar]: [r2] }),
      grades: { [Q]: [askName], [Q_STAR]: [askVersion], [qStarStar]: [sure] },
    };
    await withWorker(env, script, async (rag) => {
      const first = await rag.ask(Q, { sessionId: session });
      expect(first.status).toBe('awaiting_input');
      const waiting = await traceWithEvent(session, 'hitl_requested:1');
      expect(steps(waiting)).toEqual(['initial']);
      expect(waiting.toolInvocations[0]).toMatchObject({ truncated: true, relevanceLevel: 'strong' });
      expect(waiting.toolInvocations[0]?.retrievalDetails).toMatchObject({ route: 'clarify', evidence_block_count: 1, returned_count: 0 });
      expect(waiting.runs[0]).toMatchObject({ status: 'awaiting_input', route: 'clarify' });
      expect(waiting.events[1]?.detail).toEqual({ status: 'awaiting_input', round: 1, route: 'clarify', retrieval_status: 'needs_clarification', option_count: 2 });

      const second = await rag.answer(first.workflowId, ANSWER);
      expect(second.status).toBe('awaiting_input');
      await traceWithEvent(session, 'hitl_requested:2');
      const done = await rag.answer(first.workflowId, 'v2');
      expect(done.status).toBe('completed');

      const trace = await traceWhenClosed(session, first.workflowId);
      expect(trace.toolInvocations.map((row) => [row.step, row.retrievalDetails.stage, row.retrievalDetails.route])).toEqual([
        ['initial', 'initial', 'clarify'],
        ['hitl-1', 'hitl_targeted', 'clarify'],
        ['hitl-2', 'hitl_targeted', 'answer'],
      ]);
      expect(keys(trace)).toEqual(['run_started', 'hitl_requested:1', 'answer_received:1', 'hitl_requested:2', 'answer_received:2', 'answer_written', 'completed']);
      expect(trace.events[2]?.detail).toEqual({ status: 'running', round: 1, via: 'update' });
      expect(trace.events.at(-1)?.detail).toMatchObject({ rounds: 2, route: 'answer', awaiting_person: false });
      expect(trace.runs[0]).toMatchObject({ status: 'completed', route: 'answer' });
    }, { audit: store });
  });

  test('HITL timeout: hitl_requested:1, then completed while it still needs a person (the round timed out)', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [askName] } }, async (rag) => {
      const first = await rag.ask(Q, { sessionId: session, hitl: { answerTimeoutMs: 1000 } });
      expect(first.status).toBe('awaiting_input');
      const trace = await traceWhenClosed(session, first.workflowId);
      expect(steps(trace)).toEqual(['initial']);
      expect(keys(trace)).toEqual(['run_started', 'hitl_requested:1', 'completed']);
      expect(trace.events[2]?.detail).toMatchObject({ status: 'completed', route: 'clarify', rounds: 1, awaiting_person: true });
      const outcome = await rag.getOutcome(first.workflowId);
      expect(outcome.rounds.map((round) => round.outcome)).toEqual(['timed_out']);
    }, { audit: store });
  });

  test('T28 resume from a snapshot: step "hitl-0", answer_received:0 via resume_from', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q_STAR]: [r1] }), grades: { [Q_STAR]: [sure] } }, async (rag) => {
      const outcome = await rag.ask(undefined, {
        sessionId: session,
        resumeFrom: {
          snapshot: { question: Q, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0, complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker', sub_questions: [] },
          answer: ANSWER,
        },
      });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(steps(trace)).toEqual(['hitl-0']);
      expect(keys(trace)).toEqual(['run_started', 'answer_received:0', 'answer_written', 'completed']);
      expect(trace.events.map((event) => event.detail.resumed ?? event.detail.via ?? null)).toEqual([true, 'resume_from', null, null]);
    }, { audit: store });
  });

  test('failure: the grader never returns a valid grade → the row is closed with the error code, a failed event', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [brokenGrade, brokenGrade, brokenGrade] } }, async (rag) => {
      const outcome = await rag.ask(Q, { sessionId: session });
      expect(outcome.status).toBe('failed');
      await expect(env.client.workflow.getHandle(outcome.workflowId).result()).rejects.toBeInstanceOf(WorkflowFailedError);
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(trace.toolInvocations.map((row) => [row.step, row.success, row.errorMessage, row.relevanceLevel])).toEqual([
        ['initial', false, 'MODEL_OUTPUT_INVALID', null],
      ]);
      expect(trace.toolInvocations[0]?.retrievalDetails).toMatchObject({ evidence_status: 'EVIDENCE_FOUND', route: null, graded_by: null });
      expect(keys(trace)).toEqual(['run_started', 'failed']);
      // The error code only: its message may quote the question or the model's reply.
      expect(trace.events[1]?.detail).toEqual({ status: 'failed', error_type: 'MODEL_OUTPUT_INVALID', route: null });
      expect(trace.runs[0]).toMatchObject({ status: 'failed', route: null });
    }, { audit: store });
  });
});

describe('idempotency and a failing store', () => {
  test('recordAudit fails once after it wrote: the retry writes nothing twice', async () => {
    const session = sessionId();
    let calls = 0;
    const flaky: AuditStore = {
      async record(batch) {
        const result = await store.record(batch);
        calls += 1;
        if (calls === 1) throw new Error('connection lost after the commit');
        return result;
      },
      sessionTrace: (id, options) => store.sessionTrace(id, options),
      close: async () => undefined,
    };
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag) => {
      const outcome = await rag.ask(Q, { sessionId: session });
      const trace = await traceWhenClosed(session, outcome.workflowId);
      expect(calls).toBe(2);
      expect(await auditActivity(outcome.workflowId)).toEqual({ scheduled: 1, attempts: [2], failed: 0 });
      expect(steps(trace)).toEqual(['initial']);
      expect(keys(trace)).toEqual(['run_started', 'answer_written', 'completed']);
    }, { audit: flaky });
  });

  test('a worker stopped while the run waits, another answers: every row and event once', async () => {
    const session = sessionId();
    const taskQueue = newTaskQueue();
    const adapters = { ...scriptedAdapters({ retrieve: retrievalTable({ [Q]: [c1], [Q_STAR]: [r1] }), grades: { [Q]: [askName], [Q_STAR]: [sure] } }), audit: store };
    const rag = RagClient.fromClient(env.client, taskQueue);
    const start = async (identity: string) => {
      const worker: Worker = await createWorker(env, adapters, taskQueue, { identity });
      const running = worker.run();
      return async () => {
        worker.shutdown();
        await running;
      };
    };

    const stopA = await start('worker-a');
    const first = await rag.ask(Q, { sessionId: session });
    await traceWithEvent(session, 'hitl_requested:1');
    await stopA();
    const stopB = await start('worker-b');
    try {
      const done = await rag.answer(first.workflowId, ANSWER);
      expect(done.status).toBe('completed');
      const trace = await traceWhenClosed(session, first.workflowId);
      expect(steps(trace)).toEqual(['initial', 'hitl-1']);
      expect(keys(trace)).toEqual(['run_started', 'hitl_requested:1', 'answer_received:1', 'answer_written', 'completed']);
      // Worker B rebuilt the run from the history: the first batch was not sent again.
      expect(await auditActivity(first.workflowId)).toEqual({ scheduled: 2, attempts: [1, 1], failed: 0 });
    } finally {
      await stopB();
    }
  });

  test('a store that always fails never changes the outcome: retries, a warning, the same completed answer', async () => {
    const session = sessionId();
    const down: AuditStore = {
      record: async () => {
        throw new RagError('SERVICE_UNAVAILABLE', 'audit store record failed (test): database is down');
      },
      sessionTrace: (id, options) => store.sessionTrace(id, options),
      close: async () => undefined,
    };
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag) => {
      const workflowId = `rag-audit-down-${randomUUID().slice(0, 8)}`;
      const outcome = await rag.ask(Q, { sessionId: session, workflowId });
      const result = await env.client.workflow.getHandle(workflowId).result();
      expect([outcome.status, result.status, result.route]).toEqual(['completed', 'completed', 'answer']);
      // activity-options AUDIT: 3 attempts, then the workflow logs and completes.
      expect(await auditActivity(workflowId)).toEqual({ scheduled: 1, attempts: [3], failed: 1 });
      expect(await store.sessionTrace(session)).toMatchObject({ runs: [], toolInvocations: [], events: [] });
    }, { audit: down });
  }, 30_000);
});

test('privacy: no question, answer or chunk text in the audit file written by the runs above (content off)', async () => {
  await store.sessionTrace('flush'); // the store is open and written; read the file and its WAL as they are on disk
  const bytes = readdirSync(dir).map((name) => readFileSync(join(dir, name)).toString('utf8')).join('\n');
  expect(bytes).toContain('doc.pdf::p1::l3::1'); // the rows are there
  for (const text of TEXTS) expect(bytes).not.toContain(text);
});

describe('a run cancelled from outside (issue 15 §1: an MCP client cancels its tool call; RagClient.cancel)', () => {
  test('waiting for a person, cancelled: the workflow ends CANCELLED, and the audit records "cancelled" with where it stood', async () => {
    const session = sessionId();
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [askName] } }, async (rag) => {
      const first = await rag.ask(Q, { sessionId: session });
      expect(first.status).toBe('awaiting_input');
      expect(await rag.cancel(first.workflowId)).toBe(true);

      const closed = await env.client.workflow.getHandle(first.workflowId).result().then(() => null, (error: unknown) => error);
      expect(closed).toBeInstanceOf(WorkflowFailedError);
      expect((closed as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await env.client.workflow.getHandle(first.workflowId).describe()).status.name).toBe('CANCELLED');

      // Recorded in a non-cancellable scope before the run closed.
      const trace = await store.sessionTrace(session);
      expect(keys(trace)).toEqual(['run_started', 'hitl_requested:1', 'cancelled']);
      expect(trace.events.at(-1)?.detail).toEqual({ status: 'cancelled', route: 'clarify', rounds: 1 });
      expect(trace.runs).toMatchObject([{ workflowId: first.workflowId, status: 'cancelled', route: 'clarify' }]);
      // The outcome a query reads afterwards names the closed code.
      expect((await rag.getOutcome(first.workflowId)).error?.type).toBe('CANCELLED');
      // Cancelling a closed run changes nothing, and says so.
      expect(await rag.cancel(first.workflowId)).toBe(false);
    }, { audit: store });
  });
});
