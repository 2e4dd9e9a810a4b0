import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import { RagError } from '../../core/errors';
import { RagOutcome } from '../../core/schemas/run-io';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { TEST_KEYRING } from '../support/codec-keys';
import { chunk, grade, plannerResult, retrievalTable, stepBackPlan } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * The answer node (issue 11, DESIGN §3.6) on the real dev server, with the real activity code (generateAnswer: the
 * draft parsed, verified by core/answer, turned into the outcome's answer) and scripted models. Unscripted, the
 * writer is the offline policy's extractive answerer. Every path that ends in `answer` writes one answer from the
 * final evidence and the question it was retrieved for; no other route writes one.
 */

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(() => env?.close());

// spec §9 fixtures (T01, T08/T28, T09, T19) with texts the extractive answerer can quote.
const Q = '丹瑾是什么属性？';
const QR = '这个角色的属性是什么？';
const NAME = '丹瑾';
const Q_STAR = `${NAME}：${QR}`;
const QC = '比较丹瑾与卡卡罗的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
const leaf = (text: string, n: number): Chunk => chunk(text, { chunk_id: `doc.pdf::p1::l3::${n}`, filename: 'doc.pdf', page_number: 1 });
const c1 = leaf('丹瑾是一名湮灭属性的角色。她擅长近战。', 1);
const c2 = leaf('角色属性体系包括湮灭、衍射等六种属性。', 2);
const s1 = leaf('丹瑾的战斗定位是输出。', 3);
const s2 = leaf('卡卡罗的战斗定位是主输出。', 4);
const weak = leaf('角色属性总表', 5);

const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);
const askName = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
const nothing = grade('none', 'none', 'none', 'no_knowledge', 0.9);
const twoScopes = grade('strong', 'partial', 'multiple_candidates', 'scope_select', 0.7, { hitl_prompt: '请选择', hitl_options: ['角色', '武器'] });

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const codec = new AesGcmCodec(TEST_KEYRING);
/** Each scheduled activity's type and summary (the node name the Temporal UI shows), in history order. */
async function activitySummaries(workflowId: string): Promise<Array<[string, string]>> {
  const events: HistoryEvent[] = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const rows: Array<[string, string]> = [];
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled) continue;
    const summary = event.userMetadata?.summary;
    // Summaries are payloads, sealed by the codec like every other.
    const [decoded] = summary ? await codec.decode([summary]) : [];
    rows.push([scheduled.activityType?.name ?? '', decoded ? String(defaultPayloadConverter.fromPayload(decoded)) : '']);
  }
  return rows;
}

const expectVerifiedAnswerFrom = (outcome: RagOutcome, evidence: Chunk[]) => {
  expect(RagOutcome.parse(outcome)).toBeTruthy();
  expect(outcome.answer_null_reason).toBeNull();
  expect(outcome.answer_error).toBeNull();
  const answer = outcome.answer;
  expect(answer?.verification).toEqual({ status: 'verified', invalid_citations: [], uncited_sentences: [] });
  expect(answer?.repair_attempted).toBe(false);
  expect(answer?.prompt_version).toBe('answer-v1');
  expect(answer?.model).toBe('scripted-answerer');
  for (const citation of answer?.citations ?? []) {
    const doc = evidence[citation.doc_index - 1];
    expect(doc?.text).toContain(citation.quote);
    expect(citation).toMatchObject({ chunk_id: doc?.chunk_id, filename: 'doc.pdf', page_number: 1 });
  }
  expect(answer?.citations.length).toBeGreaterThan(0);
};

describe('every path that ends in answer writes one answer from the final evidence', () => {
  test('T01 simple path: one generate_answer after the grade, from the question and its evidence', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] } }, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect(outcome.route).toBe('answer');
      expectVerifiedAnswerFrom(outcome, [c1]);
      expect(outcome.answer?.text).toContain('湮灭属性');
      expect(answerCalls).toEqual([{ question: Q, repair: false, docCount: 1 }]);
      expect(await activitySummaries(outcome.workflowId)).toEqual([
        ['retrieve', 'retrieve_initial'],
        ['gradeEvidence', 'grade_documents'],
        ['generateAnswer', 'generate_answer'],
      ]);
      // The Temporal UI's memo names the writer; the progress stream has the node's steps after the spec's.
      const description = await env.client.workflow.getHandle(outcome.workflowId).describe();
      expect(description.memo).toMatchObject({ answerModel: 'scripted-answerer' });
      const labels = (await rag.getProgress(outcome.workflowId)).map((step) => step.label);
      expect(labels.slice(-3)).toEqual(['证据足够，返回检索片段', '正在生成回答...', '回答已生成，引用已校验']);
    });
  });

  test('T09 after the rewrite: the answer comes from the rewritten retrieval\'s evidence', async () => {
    const script: AdapterScript = {
      retrieve: retrievalTable({ [QR]: [weak], [`${QR}\n\n退步问题：角色属性体系是什么？`]: [c2] }),
      grades: { [QR]: [weakRewrite, sure] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(QR, { sessionId: sessionId() });
      expect(outcome.route).toBe('answer');
      expectVerifiedAnswerFrom(outcome, [c2]);
      expect(answerCalls).toEqual([{ question: QR, repair: false, docCount: 1 }]);
    });
  });

  test('T19 after complex synthesis: the original question, the synthesized evidence', async () => {
    const script: AdapterScript = {
      retrieve: retrievalTable({ [SUBS[0] as string]: [s1], [SUBS[1] as string]: [s2] }),
      planner: plannerResult('complex', '涉及多维度比较', SUBS),
      grades: { [SUBS[0] as string]: [sure], [SUBS[1] as string]: [sure] },
    };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(QC, { sessionId: sessionId() });
      expect(outcome.route).toBe('answer');
      expect(outcome.docs).toHaveLength(2);
      expectVerifiedAnswerFrom(outcome, outcome.docs);
      expect(answerCalls).toEqual([{ question: QC, repair: false, docCount: 2 }]);
    });
  });

  test('T08 + T28 after a HITL resume: q* and the targeted retrieval\'s evidence; none while the run waited', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [QR]: [weak], [Q_STAR]: [c1] }), grades: { [QR]: [askName], [Q_STAR]: [sure] } };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const waiting = await rag.ask(QR, { sessionId: sessionId() });
      expect(waiting.status).toBe('awaiting_input');
      expect(waiting.answer).toBeNull();
      expect(waiting.answer_null_reason).toBe('route_not_answer');
      expect(answerCalls).toEqual([]);
      const done = await rag.answer(waiting.workflowId, NAME);
      expect(done.route).toBe('answer');
      expectVerifiedAnswerFrom(done, [c1]);
      expect(answerCalls).toEqual([{ question: Q_STAR, repair: false, docCount: 1 }]);
    });
  });

  test('T28 resume from a snapshot: the answer is written for q*', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [Q_STAR]: [c1] }), grades: { [Q_STAR]: [sure] } }, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(undefined, {
        sessionId: sessionId(),
        resumeFrom: {
          snapshot: { question: QR, route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0, complexity: 'simple', complexity_reason: 'x', sub_questions: [] },
          answer: NAME,
        },
      });
      expectVerifiedAnswerFrom(outcome, [c1]);
      expect(answerCalls).toEqual([{ question: Q_STAR, repair: false, docCount: 1 }]);
    });
  });
});

describe('no other route writes an answer', () => {
  test.each([
    ['no_knowledge (graded)', { retrieve: retrievalTable({ [Q]: [weak] }), grades: { [Q]: [nothing] } }, 'no_knowledge', 'completed'],
    ['no_knowledge (no evidence, no grader)', { retrieve: retrievalTable({ [Q]: [] }) }, 'no_knowledge', 'completed'],
    ['scope_select (waiting)', { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [twoScopes] } }, 'scope_select', 'awaiting_input'],
  ])('%s', async (_name, script, route, status) => {
    await withWorker(env, script as AdapterScript, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect([outcome.route, outcome.status]).toEqual([route, status]);
      expect([outcome.answer, outcome.answer_null_reason, outcome.answer_error]).toEqual([null, 'route_not_answer', null]);
      expect(answerCalls).toEqual([]);
      expect((await activitySummaries(outcome.workflowId)).map(([type]) => type)).not.toContain('generateAnswer');
      if (status === 'awaiting_input') await env.client.workflow.getHandle(outcome.workflowId).terminate('test done');
    });
  });

  test('a clarification that times out ends without an answer', async () => {
    await withWorker(env, { retrieve: retrievalTable({ [QR]: [weak] }), grades: { [QR]: [askName] } }, async (rag, _calls, _queue, answerCalls) => {
      const first = await rag.ask(QR, { sessionId: sessionId(), hitl: { answerTimeoutMs: 1000 } });
      const closed = await env.client.workflow.getHandle(first.workflowId).result();
      expect([closed.status, closed.route, closed.answer, closed.answer_null_reason]).toEqual(['completed', 'clarify', null, 'route_not_answer']);
      expect(answerCalls).toEqual([]);
    });
  });
});

describe('verification, one repair, and a writer that fails', () => {
  const badCitation = { answer: '丹瑾是湮灭属性[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾属于衍射属性' }] };
  const good = { answer: '丹瑾是湮灭属性的角色[1]。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是一名湮灭属性的角色' }] };
  const uncited = { answer: '丹瑾是湮灭属性的角色[1]。她很受欢迎。', citations: [{ marker: 1, doc_index: 1, quote: '丹瑾是一名湮灭属性的角色' }] };

  test('a quote that is not in its document is repaired once: repair_answer, then verified', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [badCitation, good] };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect(outcome.answer).toMatchObject({ text: good.answer, repair_attempted: true, verification: { status: 'verified' } });
      expect(answerCalls.map((call) => call.repair)).toEqual([false, true]);
      expect((await activitySummaries(outcome.workflowId)).slice(-2)).toEqual([
        ['generateAnswer', 'generate_answer'],
        ['generateAnswer', 'repair_answer'],
      ]);
    });
  });

  test('a repair that fails verification again: the run returns what it has, flagged', async () => {
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [uncited, uncited] };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect(outcome.status).toBe('completed');
      expect(outcome.answer).toMatchObject({
        text: uncited.answer,
        repair_attempted: true,
        verification: { status: 'partially_verified', invalid_citations: [], uncited_sentences: ['她很受欢迎。'] },
      });
      expect(answerCalls).toHaveLength(2);
      const labels = (await rag.getProgress(outcome.workflowId)).map((step) => step.label);
      expect(labels.slice(-3)).toEqual(['正在生成回答...', '引用校验未通过，修正一次', '回答已生成，部分引用未通过校验']);
    });
  });

  test('a writer that fails for good: the run completes with its route, evidence and trace, answer null with the error', async () => {
    const notConfigured = new RagError('MODEL_NOT_CONFIGURED', 'ANSWER_MODEL is not set: the answer_draft call needs a model; set ANSWER_MODEL');
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [notConfigured] };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect([outcome.status, outcome.route, outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
      expect(outcome.docs).toEqual([c1]);
      expect(outcome.rag_trace?.retrieved_chunks).toHaveLength(1);
      expect(outcome.answer).toBeNull();
      expect(outcome.answer_null_reason).toBe('answer_failed');
      expect(outcome.answer_error).toEqual({ type: 'MODEL_NOT_CONFIGURED', message: notConfigured.message });
      expect(answerCalls).toHaveLength(1);
    });
  });

  test('a writer whose reply violates answer_draft three times: answer_failed with MODEL_OUTPUT_INVALID, like the other model calls', async () => {
    const broken = { answer: 42, citations: 'none' };
    const script: AdapterScript = { retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, answers: [broken, broken, broken] };
    await withWorker(env, script, async (rag, _calls, _queue, answerCalls) => {
      const outcome = await rag.ask(Q, { sessionId: sessionId() });
      expect(outcome.status).toBe('completed');
      expect(outcome.answer_null_reason).toBe('answer_failed');
      expect(outcome.answer_error?.type).toBe('MODEL_OUTPUT_INVALID');
      expect(outcome.answer_error?.message).toMatch(/scripted-answerer returned output that violates answer_draft/);
      expect(answerCalls).toHaveLength(3);
    });
  });
});
