import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { AesGcmCodec } from '../../client/codec/aes-gcm-codec';
import type { RagClient } from '../../client/rag-client';
import { RagOutcome } from '../../core/schemas/run-io';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import type { SpeculationLevel } from '../../core/schemas/speculation';
import { TEST_KEYRING } from '../support/codec-keys';
import { chunk, grade, plannerResult, retrievalTable, stepBackPlan } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type AdapterScript, type WorkflowEnv } from './harness';

/*
 * Speculative execution (issue 17 §2) on the real dev server with the real activity code and scripted models: on
 * every scenario of the side-by-side benchmark (fast, planner, rewrite, complex, hitl) and at every level, the run
 * ends as it does without speculation — the same 59-field trace, route, status, evidence and answer — and its
 * outcome says what was speculated, used and discarded. Fixtures: spec §9 (Q1, T09, T19, T08/T28) with texts the
 * extractive answerer can quote, as in answer-node.test.ts.
 */

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(() => env?.close());

const Q = '丹瑾是什么属性？';
const QP = '请详细介绍一下丹瑾在队伍里的常见配队思路';
const QR = '这个角色的属性是什么？';
const Q_STAR = `丹瑾：${QR}`;
const QC = '比较丹瑾、卡卡罗与维里奈的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位', '维里奈的战斗定位'];
const STEP_BACK = '角色属性体系是什么？';
const leaf = (text: string, n: number): Chunk => chunk(text, { chunk_id: `doc.pdf::p1::l3::${n}`, filename: 'doc.pdf', page_number: 1 });
const c1 = leaf('丹瑾是一名湮灭属性的角色。她擅长近战。', 1);
const c2 = leaf('角色属性体系包括湮灭、衍射等六种属性。', 2);
const c3 = leaf('丹瑾常与维里奈组队，循环中先手输出。', 3);
const subDocs = [leaf('丹瑾的战斗定位是输出。', 4), leaf('卡卡罗的战斗定位是主输出。', 5), leaf('维里奈的战斗定位是治疗。', 6)];
const weak = leaf('角色属性总表', 7);

const sure = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);
const askName = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });

type Scenario = { script: () => AdapterScript; question: string; answer?: string };
const SCENARIOS: Record<string, Scenario> = {
  // Scenarios that never rewrite still script a rewrite plan: at level rewrite one is planned beside each grade.
  fast: { question: Q, script: () => ({ retrieve: retrievalTable({ [Q]: [c1] }), grades: { [Q]: [sure] }, rewritePlans: [stepBackPlan(STEP_BACK)] }) },
  planner: {
    question: QP,
    script: () => ({ retrieve: retrievalTable({ [QP]: [c3] }), planner: plannerResult('simple', '单一主题', []), grades: { [QP]: [sure] }, rewritePlans: [stepBackPlan(STEP_BACK)] }),
  },
  rewrite: {
    question: QR,
    script: () => ({
      retrieve: retrievalTable({ [QR]: [weak], [`${QR}\n\n退步问题：${STEP_BACK}`]: [c2] }),
      grades: { [QR]: [weakRewrite, sure] },
      rewritePlans: [stepBackPlan(STEP_BACK)],
    }),
  },
  complex: {
    question: QC,
    script: () => ({
      // The original question is retrievable and gradable, so a speculation beside the planner has work to drop.
      retrieve: retrievalTable({ [QC]: [c1], ...Object.fromEntries(SUBS.map((sub, i) => [sub, [subDocs[i] as Chunk]])) }),
      planner: plannerResult('complex', '涉及多维度比较', SUBS),
      grades: { [QC]: [sure], ...Object.fromEntries(SUBS.map((sub) => [sub, [sure]])) },
      rewritePlans: [stepBackPlan(STEP_BACK)],
    }),
  },
  hitl: {
    question: QR,
    answer: '丹瑾',
    script: () => ({
      retrieve: retrievalTable({ [QR]: [weak], [Q_STAR]: [c1] }),
      grades: { [QR]: [askName], [Q_STAR]: [sure] },
      rewritePlans: [stepBackPlan(STEP_BACK), stepBackPlan(STEP_BACK)],
    }),
  },
};

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const codec = new AesGcmCodec(TEST_KEYRING);
async function activitySummaries(workflowId: string): Promise<string[]> {
  const events: HistoryEvent[] = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const rows: string[] = [];
  for (const event of events) {
    if (!event.activityTaskScheduledEventAttributes) continue;
    const summary = event.userMetadata?.summary;
    const [decoded] = summary ? await codec.decode([summary]) : [];
    rows.push(decoded ? String(defaultPayloadConverter.fromPayload(decoded)) : '');
  }
  return rows;
}

async function runScenario(name: string, level: SpeculationLevel): Promise<{ outcome: RagOutcome; summaries: string[] }> {
  const scenario = SCENARIOS[name] as Scenario;
  return withWorker(env, scenario.script(), async (rag: RagClient) => {
    let outcome = await rag.ask(scenario.question, { sessionId: sessionId(), speculation: level });
    if (scenario.answer !== undefined) {
      expect(outcome.status).toBe('awaiting_input');
      outcome = await rag.answer(outcome.workflowId, scenario.answer);
    }
    return { outcome, summaries: await activitySummaries(outcome.workflowId) };
  });
}

/** What must not depend on speculation: everything but the timing of the answer and the speculation report. */
const observable = (outcome: RagOutcome) => ({
  status: outcome.status,
  route: outcome.route,
  retrieval_status: outcome.retrieval_status,
  rag_trace: outcome.rag_trace,
  docs: outcome.docs,
  hitl: outcome.hitl,
  rounds: outcome.rounds,
  answer: outcome.answer ? { ...outcome.answer, duration_ms: 0 } : null,
  answer_null_reason: outcome.answer_null_reason,
});

const LEVELS: SpeculationLevel[] = ['retrieve', 'grade', 'answer', 'rewrite'];
const SPECULATIVE_SUMMARIES = ['retrieve_initial', 'grade_documents', 'generate_answer', 'rewrite_question', 'retrieve_rewritten'].map((name) => `speculative ${name}`);
/** The records of a level, as [kind, outcome], leaving out the rewrite level's own (checked apart). */
const withoutRewrites = (records: Array<{ kind: string; outcome: string }>) => records.filter((record) => record.kind !== 'rewrite').map((record) => [record.kind, record.outcome]);

describe.each(Object.keys(SCENARIOS))('%s: the same run at every speculation level', (name) => {
  let off: RagOutcome;
  beforeAll(async () => {
    off = (await runScenario(name, 'off')).outcome;
    expect(RagOutcome.parse(off)).toBeTruthy();
    expect(off.route).toBe('answer');
    expect(off.speculation).toBeUndefined();
  }, 60_000);

  test.each(LEVELS)('level %s: the 59-field trace, route, evidence and answer equal those without speculation', async (level) => {
    const { outcome, summaries } = await runScenario(name, level);
    expect(observable(outcome)).toEqual(observable(off));
    const report = outcome.speculation;
    expect(report?.level).toBe(level);
    expect(report?.used).toBe(report?.records.filter((record) => record.outcome === 'used').length);
    // Each speculation is an activity of its own in the history, named as such (one dropped in the workflow task
    // that started it never reaches the history: the SDK drops the schedule command with the cancel).
    const speculative = summaries.filter((summary) => summary.startsWith('speculative '));
    const records = report?.records ?? [];
    // (A rewrite is two activities: its plan, then the rewritten question's retrieval.)
    expect(speculative.length).toBeLessThanOrEqual(records.length + records.filter((record) => record.kind === 'rewrite').length);
    expect(speculative.length).toBeGreaterThanOrEqual(records.filter((record) => record.kind === 'retrieve' || record.outcome === 'used').length);
    expect(speculative.every((summary) => SPECULATIVE_SUMMARIES.includes(summary))).toBe(true);
    const rewrites = records.filter((record) => record.kind === 'rewrite').map((record) => [record.outcome, record.reason]);
    if (level !== 'rewrite') expect(rewrites).toEqual([]);
    else if (name === 'rewrite') {
      // The first grade routes to rewrite: the rewrite planned and retrieved beside it is used, both activities named.
      expect(rewrites).toEqual([['used', null]]);
      expect(summaries).toEqual(expect.arrayContaining(['speculative rewrite_question', 'speculative retrieve_rewritten']));
      expect(summaries).not.toContain('rewrite_question');
    } else if (name !== 'complex') {
      // Every grade of the top-level question that could have rewritten, and did not: dropped, one model call each.
      expect(rewrites.length).toBeGreaterThanOrEqual(1);
      expect(rewrites.every(([outcome, reason]) => outcome === 'discarded' && /^the grade routed to (answer|clarify)$/.test(String(reason)))).toBe(true);
    }
    if (name === 'planner') {
      // The planner said simple: what ran beside it is used, nothing is wasted.
      const kinds = level === 'retrieve' ? ['retrieve'] : level === 'grade' ? ['retrieve', 'grade'] : ['retrieve', 'answer', 'grade'];
      expect(report?.records.filter((record) => record.kind !== 'rewrite').map((record) => record.kind).sort()).toEqual([...kinds].sort());
      expect(report).toMatchObject(level === 'rewrite' ? { discarded: 1, wastedModelCalls: 1 } : { discarded: 0, wastedModelCalls: 0 });
    }
    if (name === 'complex') {
      // The planner said complex: whatever ran beside it is dropped and counted.
      expect(report?.records.length).toBeGreaterThanOrEqual(1);
      expect(report?.records.every((record) => record.outcome === 'discarded' && record.reason === 'the planner said complex')).toBe(true);
    }
    if (name === 'fast') {
      // The fast path skips the planner: only the answer level has something to overlap (the draft beside the grade).
      expect(withoutRewrites(records)).toEqual(level === 'answer' || level === 'rewrite' ? [['answer', 'used']] : []);
    }
    if (name === 'rewrite' || name === 'hitl') {
      // The first grade routes away from answer: its draft is discarded (one wasted call); the last grade's is used.
      expect(withoutRewrites(records)).toEqual(level === 'answer' || level === 'rewrite' ? [['answer', 'discarded'], ['answer', 'used']] : []);
      // At rewrite: the hitl run's two grades each drop a rewrite (the first routes to clarify, the second to answer).
      const wastedRewrites = level === 'rewrite' && name === 'hitl' ? 2 : 0;
      expect(report?.wastedModelCalls).toBe((level === 'answer' || level === 'rewrite' ? 1 : 0) + wastedRewrites);
    }
  }, 60_000);
});

describe('a planner whose replies break its schema (issue 26 §5): speculation stops at its first failed attempt', () => {
  // spec §7.2's complexity_result with a complexity it does not allow: every attempt fails its schema.
  const broken = { complexity: 'medium', reason: '?', sub_questions: [] };
  // The knowledge base answers slower than the planner fails, as a real one does beside a fast refusal.
  const script = (extra: Partial<AdapterScript>): AdapterScript => ({ retrieve: retrievalTable({ [QP]: [c3] }), retrieveDelayMs: 400, grades: { [QP]: [sure] }, ...extra });
  const run = (level: SpeculationLevel, extra: Partial<AdapterScript>) =>
    withWorker(env, script(extra), async (rag, calls, _queue, answerCalls) => {
      const outcome = await rag.ask(QP, { sessionId: sessionId(), speculation: level });
      return { outcome, modelCalls: { planner: calls.planner.length, grader: calls.grader.length, rewriter: calls.rewriter.length, answer: answerCalls.length } };
    });

  test('a planner that fails for good: the run fails as without speculation, with the same model calls', async () => {
    const off = await run('off', { planner: broken });
    const answer = await run('answer', { planner: broken });
    expect(off.outcome).toMatchObject({ status: 'failed', error: { type: 'MODEL_OUTPUT_INVALID' } });
    expect(answer.outcome).toMatchObject({ status: 'failed', error: off.outcome.error });
    expect(answer.modelCalls).toEqual(off.modelCalls);
    expect(off.modelCalls).toEqual({ planner: 3, grader: 0, rewriter: 0, answer: 0 });
    // The report says what ran beside the planner and when it stopped: nothing of it sent a model call.
    expect(answer.outcome.speculation).toMatchObject({ level: 'answer', used: 0, wastedModelCalls: 0 });
    expect(answer.outcome.speculation?.records.map((record) => [record.kind, record.outcome, record.reason, record.modelCalls])).toEqual([
      ['grade', 'discarded', "the planner's attempt 1 failed (MODEL_OUTPUT_RETRY)", 0],
      ['retrieve', 'discarded', "the planner's attempt 1 failed (MODEL_OUTPUT_RETRY)", 0],
    ]);
  }, 90_000);

  test('a planner that fails once, then plans: the run ends as without speculation; what ran beside the planner is dropped, the draft beside the grade still used', async () => {
    const off = await run('off', { plannerReplies: [broken], planner: plannerResult('simple', '单一主题', []) });
    const answer = await run('answer', { plannerReplies: [broken], planner: plannerResult('simple', '单一主题', []) });
    expect(off.outcome).toMatchObject({ status: 'completed', route: 'answer' });
    expect(observable(answer.outcome)).toEqual(observable(off.outcome));
    expect(answer.modelCalls).toEqual(off.modelCalls);
    expect(answer.outcome.speculation?.records.map((record) => [record.kind, record.outcome, record.reason])).toEqual([
      ['grade', 'discarded', "the planner's attempt 1 failed (MODEL_OUTPUT_RETRY)"],
      ['retrieve', 'discarded', "the planner's attempt 1 failed (MODEL_OUTPUT_RETRY)"],
      ['answer', 'used', null],
    ]);
    expect(answer.outcome.speculation?.wastedModelCalls).toBe(0);
  }, 90_000);
});
