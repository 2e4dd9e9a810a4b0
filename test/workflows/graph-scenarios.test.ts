import type { WorkflowExecutionDescription } from '@temporalio/client';
import type { RagStep } from '../../core/progress/rag-step';
import { stableSteps } from '../../core/progress/stable-steps';
import { ANSWER_NODE_LABELS } from '../../core/progress/step-messages';
import { RagOutcome } from '../../core/schemas/run-io';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import {
  GRADE10,
  HY4,
  K18,
  R23,
  RES,
  SB4,
  SUB16,
  SYN17,
  chunk,
  grade,
  hydePlan,
  keySet,
  keysOf,
  metaM0,
  plannerResult,
  resumeRag,
  retrievalTable,
  runRag,
  scriptedModels,
  stepBackPlan,
  traced,
  type Calls,
  type RunOutcome,
  type Script,
} from '../support/scenario';
import { RAG_COMPLEXITY, RAG_HITL_ROUNDS, RAG_ROUTE, RAG_SESSION_ID, RAG_STATUS } from '../../workflows/search-attributes';
import { openWorkflowEnv, sessionId, type AdapterCalls, type WorkflowEnv } from './harness';
import { adapterScriptFor, expectedAdapterCalls, sortedAdapterCalls, startSharedWorker, type SharedWorker } from './scenario-scripts';

/*
 * The graph scenarios of spec §9 (T01–T33) on the real dev server: RagClient.ask (and answer / ask with
 * resumeFrom for T28–T32) starts ragWorkflow, whose real activity code runs against scripted models and a scripted
 * retrieval (test/workflows/harness.ts). The scripts are the ones of test/unit/core/graph-scenarios.test.ts; the
 * "live" variants of T28, T30 and T31 answer a waiting run by update instead of starting a new run from a snapshot.
 *
 * Each scenario is also run through the pure scenario driver of test/support/scenario.ts, a verified oracle of the
 * spec; the workflow's route, status, evidence, snapshot, whole normalized trace and adapter calls must equal the
 * driver's. On top of that every test checks the spec's own numbers (key sets, values, call counts) directly.
 *
 * Unless a scenario says otherwise: retrieval meta is M0 (spec §9 conventions), and where the spec gives no grade
 * confidence we use 0.9, as the unit test does.
 */

let env: WorkflowEnv;
let worker: SharedWorker;
beforeAll(async () => {
  env = await openWorkflowEnv();
  worker = await startSharedWorker(env);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await env?.close();
});

/** spec §9: Q1 is T01's question; the fast path takes it (属性 + 是什么 → single_fact_marker). */
const Q1 = '丹瑾是什么属性？';
/** spec §9 T19: the complex question ("比较" is a complex marker, so the planner decides); also QC. */
const QC = '比较丹瑾与卡卡罗的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
const COMPLEX_PLAN = plannerResult('complex', '涉及多维度比较', SUBS);
const FAST_PATH_SINGLE_FACT = 'obvious_simple_fast_path:single_fact_marker';
const FAST_PATH_SHORT = 'obvious_simple_fast_path:short_single_intent';

/** spec §4.5.5 default prompts. */
const SCOPE_DEFAULT_PROMPT = '我在知识库中找到了多个可能相关的方向。你想问的是哪一个？';
const GENERIC_PROMPT = '我找到了相关内容，但证据不足以确定答案。请补充一下你具体想问的条件。';

/** spec §4.7.1: original question + blank line + marker + text. */
const STEP_BACK = '角色属性体系是什么？';
const STEP_BACK_QUERY = `${Q1}\n\n退步问题：${STEP_BACK}`;
const HYDE = '丹瑾是一名湮灭属性角色……';
const HYDE_QUERY = `${Q1}\n\n假设性答案文档：${HYDE}`;

/** spec §9 T28: the resume snapshot and q*. */
const QH = '这个角色的属性是什么？';
const QH_REFINED = '丹瑾：这个角色的属性是什么？';
const SNAPSHOT = {
  question: QH,
  route: 'clarify',
  retrieval_status: 'needs_clarification',
  rewrite_count: 0,
  complexity: 'simple',
  complexity_reason: FAST_PATH_SINGLE_FACT,
  sub_questions: [],
} as const;
/** spec §9 T28: the 23 non-R keys of a resume trace. */
const RESUME_KEYS = [
  'tool_used', 'tool_name', 'query', ...RES, 'retrieval_stage', 'retrieved_chunks', 'complexity', 'complexity_reason',
  ...GRADE10,
];

/** spec §9 T19 chunks: A is found by both sub-questions (0.8, then 0.9). */
const A1 = chunk('A', { chunk_id: 'a', score: 0.8 });
const B = chunk('B', { chunk_id: 'b', score: 0.6 });
const A2 = chunk('A', { chunk_id: 'a', score: 0.9 });
const C = chunk('C', { chunk_id: 'c', score: 0.5 });
const subTable = (first: Chunk[], second: Chunk[]) => retrievalTable({ [SUBS[0] as string]: first, [SUBS[1] as string]: second });

const strongAnswer = (confidence = 0.9) => grade('strong', 'sufficient', 'none', 'answer', confidence);
const weakPartialRewrite = (confidence = 0.44) => grade('weak', 'partial', 'none', 'rewrite', confidence);

function pick(source: object, keys: readonly string[]): Record<string, unknown> {
  const record = source as Record<string, unknown>;
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
}

/** The R23 values of meta M0 as they appear in a normalized trace. */
const m0R23 = (n: number) => pick(metaM0(n), R23);

// ---------------------------------------------------------------------------------------------------------------
// Running a scenario on Temporal and on the oracle.

type Start = { ask: string; answers?: string[] } | { resumeFrom: { snapshot: unknown; answer: string } };

type Ran = {
  /** Every outcome the client returned: ask, then one per answer. */
  outcomes: RagOutcome[];
  /** The oracle's outcome for each of them: runRag, then resumeRag from the previous snapshot. */
  expected: RunOutcome[];
  outcome: RagOutcome;
  trace: NonNullable<RagOutcome['rag_trace']>;
  calls: AdapterCalls;
  driverCalls: Calls;
  progress: RagStep[];
  description: WorkflowExecutionDescription;
};

/** The oracle's outcomes for a start: the driver consumes the script in the order the spec's graph does. */
function runOracle(start: Start, script: Script): { expected: RunOutcome[]; driverCalls: Calls } {
  const models = scriptedModels(script);
  if ('resumeFrom' in start) {
    return { expected: [resumeRag(models, start.resumeFrom.snapshot, start.resumeFrom.answer)], driverCalls: models.calls };
  }
  const expected = [runRag(models, start.ask)];
  for (const answer of start.answers ?? []) {
    const snapshot = expected[expected.length - 1]?.snapshot;
    if (!snapshot) throw new Error('scenario error: the run stopped asking before every answer was given');
    expected.push(resumeRag(models, snapshot, answer));
  }
  return { expected, driverCalls: models.calls };
}

/**
 * Runs one scenario on the dev server (the file's shared worker, with this scenario's script). A run left waiting
 * for a person is terminated at the end, so the dev server keeps no open test runs.
 */
async function runScenario(start: Start, script: Script): Promise<Ran> {
  const { expected, driverCalls } = runOracle(start, script);
  const { rag, calls } = worker.use(adapterScriptFor(script, driverCalls));
  const session = sessionId();
  const outcomes =
    'resumeFrom' in start
      ? [await rag.ask(undefined, { sessionId: session, resumeFrom: start.resumeFrom })]
      : [await rag.ask(start.ask, { sessionId: session })];
  const workflowId = (outcomes[0] as RagOutcome).workflowId;
  for (const answer of 'ask' in start ? (start.answers ?? []) : []) outcomes.push(await rag.answer(workflowId, answer));
  const outcome = outcomes[outcomes.length - 1] as RagOutcome;
  const progress = await rag.getProgress(workflowId);
  // Issue 14 §12: a settled run's listing is its log, so the progress stream sends all of it (complex runs included:
  // every adopted sub-question counts as finished).
  expect(stableSteps(progress)).toEqual(progress);
  const handle = env.client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  if (outcome.status === 'awaiting_input') await handle.terminate('graph-scenarios test done');
  if (!outcome.rag_trace) throw new Error(`run ${workflowId} has no trace: ${JSON.stringify(outcome.error)}`);
  return { outcomes, expected, outcome, trace: outcome.rag_trace, calls, driverCalls, progress, description };
}

/** The workflow's outcome equals the oracle's: route, status, evidence, snapshot, the whole normalized trace. */
function expectSameOutcome(outcome: RagOutcome, expected: RunOutcome, round: number): void {
  // What the client returns satisfies the outcome's own schema (core/schemas/run-io.ts).
  expect(() => RagOutcome.parse(outcome)).not.toThrow();
  expect(outcome.error).toBeNull();
  expect(outcome.status).toBe(expected.snapshot ? 'awaiting_input' : 'completed');
  expect([outcome.route, outcome.retrieval_status]).toEqual([expected.route, expected.retrievalStatus]);
  expect(outcome.rag_trace).toEqual(expected.trace);
  expect(outcome.docs).toEqual(expected.docs);
  expect(outcome.hitl_resume_state).toEqual(expected.snapshot);
  // DESIGN §3.5: a waiting run publishes the resolved prompt and the grade's options of its trace.
  expect(outcome.hitl).toEqual(
    expected.snapshot ? { prompt: expected.trace.hitl_prompt, options: expected.trace.hitl_options, round } : null,
  );
}

/** Every outcome equals the oracle's, and the adapters saw the calls the driver made. */
function expectOracleAgreement(ran: Ran): void {
  expect(ran.outcomes).toHaveLength(ran.expected.length);
  ran.outcomes.forEach((outcome, i) => expectSameOutcome(outcome, ran.expected[i] as RunOutcome, i + 1));
  // Sub-questions run in parallel on Temporal: their retrievals and grades are compared as sets.
  const ordered = ran.expected.every((expected) => expected.subResults.length === 0);
  expect(sortedAdapterCalls(ran.calls, { ordered })).toEqual(expectedAdapterCalls(ran.driverCalls, { ordered }));
}

/** A progress step as spec §4 writes it: "icon label" (split at the first space), then the detail. */
function specStep(iconAndLabel: string, detail = '', group?: { group: string; group_label: string }) {
  const space = iconAndLabel.indexOf(' ');
  return { icon: iconAndLabel.slice(0, space), label: iconAndLabel.slice(space + 1), detail, ...group };
}

// The spec's steps: the answer node's (ragtime's own, after the spec's graph) are tested in answer-node.test.ts.
const stepsOf = (progress: RagStep[]) =>
  progress.filter((step) => !ANSWER_NODE_LABELS.has(step.label)).map(({ icon, label, detail, group, group_label }) => ({ icon, label, detail, ...(group ? { group } : {}), ...(group_label ? { group_label } : {}) }));

/** spec §4.4 step 4: the three retrieval steps for n chunks of meta M0 (booleans Python-style, spec §10.6). */
const initialRetrievalSteps = (n: number, group?: { group: string; group_label: string }) => [
  specStep('🔍 正在检索知识库...', '初始检索', group),
  specStep('🧱 三级分块检索', '叶子层 L3 召回，候选 24', group),
  specStep('🧩 Auto-merging 合并', '启用: True，应用: False，替换片段: 0', group),
  specStep(`✅ 检索完成，找到 ${n} 个片段`, '模式: hybrid', group),
];

function searchAttributesOf(description: WorkflowExecutionDescription) {
  const attributes = description.typedSearchAttributes;
  return {
    RagSessionId: attributes.get(RAG_SESSION_ID),
    RagStatus: attributes.get(RAG_STATUS),
    RagRoute: attributes.get(RAG_ROUTE),
    RagComplexity: attributes.get(RAG_COMPLEXITY),
    RagHitlRounds: attributes.get(RAG_HITL_ROUNDS),
  };
}

// ---------------------------------------------------------------------------------------------------------------

describe('simple path, initial grade terminal (spec §4.4–§4.5, §5.7 row 1)', () => {
  test('T01 fast path single-fact question → answer after one retrieval, planner not called', async () => {
    const c1 = chunk('丹瑾是湮灭属性角色。');
    const ran = await runScenario({ ask: Q1 }, { retrieve: retrievalTable({ [Q1]: [c1] }), grades: [strongAnswer(0.95)] });

    expectOracleAgreement(ran);
    const { outcome, trace } = ran;
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1], grader: [Q1], rewriter: [] });
    expect([outcome.status, outcome.route, outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(outcome.docs).toEqual([c1]);
    expect(outcome.hitl_resume_state).toBeNull();
    // spec §9 T01: K18 + R23 = 41 keys; sub_questions, rewrite_*, sub_traces, hitl_resume* absent.
    expect(keysOf(trace)).toEqual(keySet(K18, R23));
    expect(keysOf(trace)).toHaveLength(41);
    expect(trace).toMatchObject({
      query: Q1,
      retrieval_stage: 'initial',
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      route: 'answer',
      retrieval_status: 'answerable',
      evidence_confidence: 0.95,
      retrieved_chunks: [traced(c1)],
      initial_retrieved_chunks: [traced(c1)],
    });
    expect(pick(trace, R23)).toEqual(m0R23(1));

    // spec §4.2, §4.4 step 4, §4.5 step 5.
    expect(stepsOf(ran.progress)).toEqual([
      specStep('🧭 正在分析问题复杂度...'),
      specStep('⚡ 快速判断为简单问题 → 走标准 RAG 流程'),
      ...initialRetrievalSteps(1),
      specStep('📊 正在评估证据质量...'),
      specStep('✅ 证据足够，返回检索片段', '置信度: 0.95'),
    ]);
    for (const step of ran.progress) {
      expect(Number.isInteger(step.elapsed_ms) && step.elapsed_ms >= 0).toBe(true);
      expect(Number.isInteger(step.stage_elapsed_ms) && step.stage_elapsed_ms >= 0).toBe(true);
    }

    // A completed run's search attributes (workflows/publish-state.ts).
    expect(ran.description.status.name).toBe('COMPLETED');
    expect(searchAttributesOf(ran.description)).toEqual({
      RagSessionId: outcome.sessionId,
      RagStatus: 'completed',
      RagRoute: 'answer',
      RagComplexity: 'simple',
      RagHitlRounds: 0,
    });
  });

  test('T02 fast path short single intent → answer', async () => {
    const question = 'covered question';
    const ran = await runScenario({ ask: question }, { retrieve: retrievalTable({ [question]: [chunk('c1')] }), grades: [strongAnswer(0.95)] });

    expectOracleAgreement(ran);
    expect(ran.calls.planner).toEqual([]);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(ran.trace.complexity_reason).toBe(FAST_PATH_SHORT);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
  });

  test('T03 planner says simple → planner called once, sub_questions absent from the trace', async () => {
    // 20 code points, no marker: the fast path misses (spec §4.2.1 rule 9).
    const question = '请介绍一下这个系统的整体部署架构设计思路';
    const ran = await runScenario(
      { ask: question },
      { retrieve: retrievalTable({ [question]: [chunk('c1')] }), grades: [strongAnswer()], planner: plannerResult('simple', '单一事实查询', []) },
    );

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [question], retrieval: [question], grader: [question], rewriter: [] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(ran.trace).toMatchObject({ complexity: 'simple', complexity_reason: '单一事实查询' });
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
    expect(searchAttributesOf(ran.description).RagComplexity).toBe('simple');
  });

  test('T04 empty retrieval → no_knowledge without calling grader or rewriter', async () => {
    const ran = await runScenario({ ask: Q1 }, { retrieve: retrievalTable({ [Q1]: [] }) });

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1], grader: [], rewriter: [] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(ran.outcome.docs).toEqual([]);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
    // spec §4.5.1: the no-docs constants.
    expect(ran.trace).toMatchObject({
      evidence_relevance: 'none',
      evidence_answerability: 'none',
      evidence_ambiguity: 'none',
      evidence_confidence: 1.0,
      evidence_reason: 'no_retrieved_documents',
      missing_slots: [],
      hitl_prompt: '',
      hitl_options: [],
      retrieved_chunks: [],
      initial_retrieved_chunks: [],
      retrieval_empty: true,
    });
    expect(pick(ran.trace, R23)).toEqual(m0R23(0));
    // spec §4.4 step 4 (n = 0) and §4.5 step 5 (detail = grade reason).
    expect(stepsOf(ran.progress).slice(-4)).toEqual([
      specStep('✅ 检索完成，找到 0 个片段', '模式: hybrid'),
      specStep('⚠️ 无可用片段，将进入证据评分短路判断'),
      specStep('📊 正在评估证据质量...'),
      specStep('⛔ 知识库中未找到可用证据', 'no_retrieved_documents'),
    ]);
  });

  test('T05 grade relevance none → no_knowledge; docs emptied, trace keeps the rejected chunks', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      { retrieve: retrievalTable({ [Q1]: [c1] }), grades: [grade('none', 'none', 'none', 'no_knowledge', 0.9)] },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(ran.outcome.docs).toEqual([]);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
    // spec §4.5 step 7: no_knowledge leaves T.retrieved_chunks as it was.
    expect(ran.trace.retrieved_chunks).toEqual([traced(c1)]);
    expect(ran.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
  });

  test('T06 missing slot → clarify with the missing-slots prompt; the run waits with a snapshot', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1] }),
        grades: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { missing_slots: ['版本'] })],
      },
    );

    expectOracleAgreement(ran);
    const { outcome, trace } = ran;
    expect([outcome.status, outcome.route, outcome.retrieval_status]).toEqual(['awaiting_input', 'clarify', 'needs_clarification']);
    expect(outcome.docs).toEqual([]);
    expect(trace.hitl_prompt).toBe('我找到了相关内容，但还缺少关键信息：版本');
    expect(outcome.hitl).toEqual({ prompt: '我找到了相关内容，但还缺少关键信息：版本', options: [], round: 1 });
    expect(outcome.hitl_resume_state).toEqual({
      question: Q1,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 0,
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      sub_questions: [],
    });
    expect(keysOf(trace)).toEqual(keySet(K18, R23));
    expect(trace.retrieved_chunks).toEqual([]);
    expect(trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(outcome.rounds).toEqual([
      {
        round: 1,
        route: 'clarify',
        retrieval_status: 'needs_clarification',
        prompt: '我找到了相关内容，但还缺少关键信息：版本',
        options: [],
        answer: null,
        answered_via: null,
        outcome: 'waiting',
      },
    ]);
    expect(stepsOf(ran.progress).at(-1)).toEqual(specStep('❓ 需要用户补充信息', '我找到了相关内容，但还缺少关键信息：版本'));

    // A waiting run's search attributes, read while it waited (it is terminated afterwards).
    expect(ran.description.status.name).toBe('RUNNING');
    expect(searchAttributesOf(ran.description)).toEqual({
      RagSessionId: outcome.sessionId,
      RagStatus: 'awaiting_input',
      RagRoute: 'clarify',
      RagComplexity: 'simple',
      RagHitlRounds: 1,
    });
  });

  test('T07 multiple candidates → scope_select with the scope default prompt (beats missing slots)', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1] }),
        grades: [grade('strong', 'partial', 'multiple_candidates', 'scope_select', 0.9, { hitl_options: ['A', 'B'], missing_slots: ['x'] })],
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual([
      'awaiting_input', 'scope_select', 'needs_scope_selection',
    ]);
    expect(ran.trace).toMatchObject({ hitl_prompt: SCOPE_DEFAULT_PROMPT, hitl_options: ['A', 'B'], missing_slots: ['x'] });
    expect(ran.outcome.hitl).toEqual({ prompt: SCOPE_DEFAULT_PROMPT, options: ['A', 'B'], round: 1 });
    expect(ran.outcome.hitl_resume_state).toMatchObject({ route: 'scope_select', retrieval_status: 'needs_scope_selection' });
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
    expect(ran.trace.retrieved_chunks).toEqual([]);
    expect(ran.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'awaiting_input', RagRoute: 'scope_select' });
  });

  test('T08 clarify with the model prompt used verbatim; the snapshot has exactly the 7 keys', async () => {
    const c = chunk('c');
    const ran = await runScenario(
      { ask: QH },
      {
        retrieve: retrievalTable({ [QH]: [c] }),
        grades: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.9, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] })],
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['clarify', 'needs_clarification']);
    expect(ran.trace).toMatchObject({ hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
    expect(ran.outcome.hitl).toEqual({ prompt: '请补充角色名', options: ['丹瑾', '丹恒'], round: 1 });
    expect(Object.keys(ran.outcome.hitl_resume_state ?? {})).toEqual([
      'question', 'route', 'retrieval_status', 'rewrite_count', 'complexity', 'complexity_reason', 'sub_questions',
    ]);
    expect(ran.outcome.hitl_resume_state).toEqual({ ...SNAPSHOT });
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
    expect(ran.trace.retrieved_chunks).toEqual([]);
    expect(ran.trace.initial_retrieved_chunks).toEqual([traced(c)]);
  });

  test('T14 strong+sufficient with a clarify suggestion → answer (rule 9), hitl_prompt ""', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      { retrieve: retrievalTable({ [Q1]: [c1] }), grades: [grade('strong', 'sufficient', 'none', 'clarify', 0.9, { hitl_prompt: '请补充' })] },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(ran.outcome.docs).toEqual([c1]);
    expect(ran.trace.hitl_prompt).toBe('');
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
  });

  test('T15 strong+sufficient with a no_knowledge suggestion → answer (rule 9)', async () => {
    const ran = await runScenario(
      { ask: Q1 },
      { retrieve: retrievalTable({ [Q1]: [chunk('c1')] }), grades: [grade('strong', 'sufficient', 'none', 'no_knowledge', 0.9)] },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(ran.trace.route).toBe('answer');
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
  });

  test('T16 weak+sufficient answer suggestion in the main path → no_knowledge (rule 10), trace keeps chunks', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      { retrieve: retrievalTable({ [Q1]: [c1] }), grades: [grade('weak', 'sufficient', 'none', 'answer', 0.9)] },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(ran.outcome.docs).toEqual([]);
    expect(ran.calls.rewriter).toEqual([]);
    expect(ran.trace.retrieved_chunks).toEqual([traced(c1)]);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
  });

  test('T18 answer keeps the grade hitl_options but not its hitl_prompt', async () => {
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [chunk('c1')] }),
        grades: [grade('strong', 'sufficient', 'none', 'answer', 0.9, { hitl_options: ['z'], hitl_prompt: 'ignored' })],
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route]).toEqual(['completed', 'answer']);
    // spec §4.5.5: prompt "" for non-HITL routes; §4.5.6: options copied for every route.
    expect(ran.trace).toMatchObject({ hitl_prompt: '', hitl_options: ['z'] });
    expect(ran.outcome.hitl).toBeNull();
    expect(keysOf(ran.trace)).toEqual(keySet(K18, R23));
  });
});

describe('simple path with one rewrite (spec §4.7–§4.8, §5.7 rows 2–3)', () => {
  test('T09 step-back rewrite → answer after the second retrieval', async () => {
    const c1 = chunk('弱证据');
    const c2 = chunk('角色属性体系：湮灭、虚数……');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
        grades: [weakPartialRewrite(0.44), strongAnswer()],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    // spec §9 T09: retrieval for Q1 then the composed query; the rewriter and both grades get the original question.
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1, STEP_BACK_QUERY], grader: [Q1, Q1], rewriter: [Q1] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(ran.outcome.docs).toEqual([c2]);
    // spec §9 T09: K18 + SB4 + R23 = 45 keys; hyde_document and the raw-only rewrite_count absent.
    expect(keysOf(ran.trace)).toEqual(keySet(K18, SB4, R23));
    expect(keysOf(ran.trace)).toHaveLength(45);
    expect(ran.trace).not.toHaveProperty('rewrite_count');
    expect(ran.trace).toMatchObject({
      query: Q1,
      retrieval_stage: 'rewritten',
      rewrite_method: 'step_back',
      rewritten_query: STEP_BACK_QUERY,
      step_back_question: STEP_BACK,
      retrieved_chunks: [traced(c2)],
      initial_retrieved_chunks: [traced(c1)],
      rewrite_retrieved_chunks: [traced(c2)],
      route: 'answer',
      evidence_relevance: 'strong',
    });
    expect(pick(ran.trace, R23)).toEqual(m0R23(1));

    // spec §4.5 step 5, §4.7.1 steps 1 and 4, §4.8 steps 2 and 4.
    expect(stepsOf(ran.progress)).toEqual([
      specStep('🧭 正在分析问题复杂度...'),
      specStep('⚡ 快速判断为简单问题 → 走标准 RAG 流程'),
      ...initialRetrievalSteps(1),
      specStep('📊 正在评估证据质量...'),
      specStep('⚠️ 证据不足，将改写查询一次', '置信度: 0.44'),
      specStep('✏️ 正在重写查询...'),
      specStep('🧠 选择 Step-back / HyDE 重写方式'),
      specStep('✅ 已选择 Step-back 重写', '本轮只执行这一种重写检索'),
      specStep('🔄 使用 Step-back 查询重新检索...'),
      specStep('🧱 Step-back 三级检索', 'L3 召回，候选 24，合并替换 0'),
      specStep('✅ 重写检索完成，共 1 个片段'),
      specStep('📊 正在评估证据质量...'),
      specStep('✅ 证据足够，返回检索片段', '置信度: 0.90'),
    ]);
  });

  test('T10 HyDE rewrite → answer; the rewritten query uses the HyDE marker', async () => {
    const c1 = chunk('弱证据');
    const c2 = chunk('丹瑾：湮灭属性');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1], [HYDE_QUERY]: [c2] }),
        grades: [weakPartialRewrite(), strongAnswer()],
        rewritePlans: [hydePlan(HYDE)],
      },
    );

    expectOracleAgreement(ran);
    expect(ran.calls.retrieval).toEqual([Q1, HYDE_QUERY]);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, HY4, R23));
    expect(ran.trace).toMatchObject({
      retrieval_stage: 'rewritten',
      rewrite_method: 'hyde',
      rewritten_query: HYDE_QUERY,
      hyde_document: HYDE,
      retrieved_chunks: [traced(c2)],
      initial_retrieved_chunks: [traced(c1)],
      rewrite_retrieved_chunks: [traced(c2)],
    });
    expect(stepsOf(ran.progress).map((step) => step.label)).toEqual(
      expect.arrayContaining(['已选择 HyDE 重写', '使用 HyDE 查询重新检索...', 'HyDE 三级检索']),
    );
  });

  test('T11 rewrite suggested again with the budget used and partial evidence → clarify, snapshot rewrite_count 1', async () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
        grades: [weakPartialRewrite(), weakPartialRewrite()],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    // spec §4.5.3 rule 7, §4.5.5 rule 4.
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual([
      'awaiting_input', 'clarify', 'needs_clarification',
    ]);
    expect(ran.calls.rewriter).toHaveLength(1);
    expect(ran.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    expect(ran.outcome.hitl_resume_state).toEqual({
      question: Q1,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 1,
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      sub_questions: [],
    });
    expect(keysOf(ran.trace)).toEqual(keySet(K18, SB4, R23));
    expect(ran.trace.retrieved_chunks).toEqual([]);
    expect(ran.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(ran.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
  });

  test('T12 rewrite suggested again with no answerability → no_knowledge, rewritten chunks kept', async () => {
    const c2 = chunk('c2');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [chunk('c1')], [STEP_BACK_QUERY]: [c2] }),
        grades: [weakPartialRewrite(), grade('weak', 'none', 'none', 'rewrite', 0.3)],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'no_knowledge', 'no_knowledge']);
    expect(ran.outcome.docs).toEqual([]);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(ran.trace.retrieved_chunks).toEqual([traced(c2)]);
    expect(ran.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, SB4, R23));
  });

  test('T13 unsupported answer suggestion with partial evidence → rewrite, then clarify', async () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    const weakPartialAnswer = grade('weak', 'partial', 'none', 'answer', 0.5);
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
        grades: [weakPartialAnswer, weakPartialAnswer],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    // 1st grade: spec §4.5.3 rule 8 with budget 0 → rewrite; 2nd: rule 8 with budget 1 → clarify.
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1, STEP_BACK_QUERY], grader: [Q1, Q1], rewriter: [Q1] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['clarify', 'needs_clarification']);
    expect(ran.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    expect(ran.outcome.hitl_resume_state).toMatchObject({ route: 'clarify', rewrite_count: 1 });
    expect(keysOf(ran.trace)).toEqual(keySet(K18, SB4, R23));
    expect(ran.trace.retrieved_chunks).toEqual([]);
    expect(ran.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(ran.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
  });

  test('T17 rewritten retrieval finds nothing → no-docs short-circuit on the second grade', async () => {
    const c1 = chunk('c1');
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [] }),
        grades: [weakPartialRewrite()],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    // The grader is not called on the empty second retrieval (spec §4.5 step 2).
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1, STEP_BACK_QUERY], grader: [Q1], rewriter: [Q1] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(keysOf(ran.trace)).toEqual(keySet(K18, SB4, R23));
    expect(ran.trace).toMatchObject({
      evidence_reason: 'no_retrieved_documents',
      evidence_confidence: 1.0,
      retrieved_chunks: [],
      rewrite_retrieved_chunks: [],
      initial_retrieved_chunks: [traced(c1)],
      retrieval_empty: true,
    });
    expect(pick(ran.trace, R23)).toEqual(m0R23(0));
  });
});

describe('complex path: sub-question children and synthesis (spec §4.3, §4.9–§4.10, §5.7 rows 4–5)', () => {
  test('T19 synthesis of two answered sub-questions → answer, deduped and renumbered evidence', async () => {
    const ran = await runScenario(
      { ask: QC },
      { retrieve: subTable([A1, B], [A2, C]), grades: [strongAnswer(), strongAnswer()], planner: COMPLEX_PLAN },
    );

    expectOracleAgreement(ran);
    const { outcome, trace } = ran;
    // Node order classify → prepare → 2 sub-agents → synthesis: the planner once, one retrieval and grade per sub.
    expect(ran.calls.planner).toEqual([QC]);
    expect([...ran.calls.retrieval].sort()).toEqual([...SUBS].sort());
    expect([...ran.calls.grader].sort()).toEqual([...SUBS].sort());
    expect(ran.calls.rewriter).toEqual([]);
    expect([outcome.status, outcome.route, outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(outcome.hitl_resume_state).toBeNull();
    // spec §4.10 steps 3–4: A keeps its first position with the max score; rrf_rank renumbered 1..3.
    expect(outcome.docs).toEqual([
      { ...A1, score: 0.9, rrf_rank: 1 },
      { ...B, rrf_rank: 2 },
      { ...C, rrf_rank: 3 },
    ]);
    // spec §9 T19: SYN17, no R keys; evidence_confidence/ambiguity/reason/missing_slots/initial_retrieved_chunks absent.
    expect(keysOf(trace)).toEqual(keySet(SYN17));
    expect(trace).toMatchObject({
      query: QC,
      retrieval_stage: 'synthesis',
      complexity: 'complex',
      complexity_reason: '涉及多维度比较',
      sub_questions: SUBS,
      sub_agent_count: 2,
      synthesis_merged_count: 4,
      evidence_relevance: 'strong',
      evidence_answerability: 'sufficient',
      retrieved_chunks: [traced({ ...A1, score: 0.9, rrf_rank: 1 }), traced({ ...B, rrf_rank: 2 }), traced({ ...C, rrf_rank: 3 })],
    });
    // spec §5.7 row 4: 16 non-R keys + R per sub-trace, in sub-question order; DESIGN §4: own scores and ranks.
    expect(trace.sub_traces?.map((sub) => sub.query)).toEqual(SUBS);
    for (const subTrace of trace.sub_traces ?? []) expect(keysOf(subTrace)).toEqual(keySet(SUB16, R23));
    expect(trace.sub_traces?.[0]?.retrieved_chunks).toEqual([traced(A1), traced(B)]);
    expect(trace.sub_traces?.[1]?.retrieved_chunks).toEqual([traced(A2), traced(C)]);

    // spec §4.2 step 7, §4.3, §4.10: sub-question steps carry their group; children's steps follow in index order.
    const sub = (i: number) => ({ group: `子问题 ${i}`, group_label: SUBS[i - 1] as string });
    const subSteps = (i: number) => [
      ...initialRetrievalSteps(2, sub(i)),
      specStep('📊 正在评估证据质量...', '', sub(i)),
      specStep('✅ 证据足够，返回检索片段', '置信度: 0.90', sub(i)),
    ];
    expect(stepsOf(ran.progress)).toEqual([
      specStep('🧭 正在分析问题复杂度...'),
      specStep('🔀 复杂问题 → 将分解为子问题并行检索', '理由: 涉及多维度比较'),
      specStep('📌 子问题 1', '丹瑾的战斗定位 已加入并行检索'),
      specStep('📌 子问题 2', '卡卡罗的战斗定位 已加入并行检索'),
      ...subSteps(1),
      ...subSteps(2),
      specStep('🔬 正在合成 2 个子问题的检索结果...'),
      specStep('✅ 合成完成，共 3 个去重片段'),
    ]);

    // One child workflow per sub-question, named after its parent.
    const parentId = outcome.workflowId;
    for (const i of [1, 2]) {
      const child = await env.client.workflow.getHandle(`${parentId}/sub-${i}`).describe();
      expect([child.type, child.status.name, child.parentExecution?.workflowId]).toEqual(['subQuestionWorkflow', 'COMPLETED', parentId]);
    }
    await expect(env.client.workflow.getHandle(`${parentId}/sub-3`).describe()).rejects.toThrow();
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'completed', RagRoute: 'answer', RagComplexity: 'complex' });
  });

  test('T20 a partial sub-answer and an empty sub → answer/partial; sub-agents never rewrite', async () => {
    const ran = await runScenario(
      { ask: QC },
      { retrieve: subTable([A1], []), grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)], planner: COMPLEX_PLAN },
    );

    expectOracleAgreement(ran);
    // spec §4.5.3 rule 5: a sub-agent with partial evidence answers; the empty sub is not graded.
    expect(ran.calls.rewriter).toEqual([]);
    expect(ran.calls.grader).toEqual([SUBS[0]]);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'partial']);
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
    expect(ran.trace).toMatchObject({
      evidence_relevance: 'strong',
      evidence_answerability: 'partial',
      synthesis_merged_count: 1,
      sub_agent_count: 2,
    });
    expect(ran.trace.sub_traces?.map((sub) => [sub.route, sub.retrieval_status])).toEqual([
      ['answer', 'partial'],
      ['no_knowledge', 'no_knowledge'],
    ]);
  });

  test('T21 both sub retrievals empty → no_knowledge/no_knowledge with no evidence, grader never called', async () => {
    const ran = await runScenario({ ask: QC }, { retrieve: subTable([], []), planner: COMPLEX_PLAN });

    expectOracleAgreement(ran);
    expect(ran.calls.grader).toEqual([]);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'no_knowledge', 'no_knowledge']);
    expect(ran.outcome.docs).toEqual([]);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
    expect(ran.trace).toMatchObject({
      evidence_relevance: 'none',
      evidence_answerability: 'none',
      retrieved_chunks: [],
      hitl_prompt: '',
      hitl_options: [],
      synthesis_merged_count: 0,
      sub_agent_count: 2,
    });
    expect(stepsOf(ran.progress).at(-1)).toEqual(specStep('⛔ 所有子问题都没有可用证据'));
  });

  test('T22 sub clarify + sub scope_select without evidence → scope_select, prompts joined with "；", options deduped', async () => {
    const x = chunk('x');
    const ran = await runScenario(
      { ask: QC },
      {
        retrieve: subTable([x], [x]),
        grades: [
          grade('weak', 'none', 'missing_slot', 'clarify', 0.5, { hitl_prompt: 'P1', hitl_options: ['x'] }),
          grade('weak', 'none', 'multiple_candidates', 'scope_select', 0.5, { hitl_prompt: 'P2', hitl_options: ['x', 'y'] }),
        ],
        planner: COMPLEX_PLAN,
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual([
      'awaiting_input', 'scope_select', 'needs_scope_selection',
    ]);
    expect(ran.trace).toMatchObject({ hitl_prompt: 'P1；P2', hitl_options: ['x', 'y'] });
    expect(ran.outcome.hitl).toEqual({ prompt: 'P1；P2', options: ['x', 'y'], round: 1 });
    expect(ran.outcome.hitl_resume_state).toEqual({
      question: QC,
      route: 'scope_select',
      retrieval_status: 'needs_scope_selection',
      rewrite_count: 0,
      complexity: 'complex',
      complexity_reason: '涉及多维度比较',
      sub_questions: SUBS,
    });
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'awaiting_input', RagRoute: 'scope_select', RagComplexity: 'complex' });
  });

  test('T23 both subs clarify with the same prompt → clarify, prompt deduped', async () => {
    const x = chunk('x');
    const clarify = grade('weak', 'partial', 'missing_slot', 'clarify', 0.5, { hitl_prompt: '请补充版本' });
    const ran = await runScenario({ ask: QC }, { retrieve: subTable([x], [x]), grades: [clarify, clarify], planner: COMPLEX_PLAN });

    expectOracleAgreement(ran);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['clarify', 'needs_clarification']);
    expect(ran.trace.hitl_prompt).toBe('请补充版本');
    expect(ran.outcome.hitl_resume_state).toMatchObject({ question: QC, route: 'clarify', retrieval_status: 'needs_clarification' });
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
  });

  test('T24 one answered sub and one clarifying sub → answer; the sub HITL request is ignored', async () => {
    const ran = await runScenario(
      { ask: QC },
      {
        retrieve: subTable([A1], [C]),
        grades: [strongAnswer(), grade('weak', 'partial', 'missing_slot', 'clarify', 0.5, { hitl_prompt: 'P', hitl_options: ['o'] })],
        planner: COMPLEX_PLAN,
      },
    );

    expectOracleAgreement(ran);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(ran.trace).toMatchObject({ hitl_prompt: '', hitl_options: [], synthesis_merged_count: 1 });
    expect(ran.outcome.docs).toEqual([{ ...A1, rrf_rank: 1 }]);
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
  });

  test('T25 planner returns only blank sub-questions → the run fails with MODEL_OUTPUT_INVALID, no retrieval', async () => {
    const script = { retrieve: retrievalTable({}), planner: plannerResult('complex', 'r', ['', '  ']) };
    // The oracle raises the spec's error (spec §4.2 step 6).
    expect(() => runRag(scriptedModels(script), QC)).toThrow('Complexity planner returned no sub-questions');

    const { rag, calls } = worker.use(script);
    const startedAt = Date.now();
    const outcome = await rag.ask(QC, { sessionId: sessionId() });
    const elapsedMs = Date.now() - startedAt;

    // DESIGN §4: a reply that breaks its contract is retried twice (activities/model-output.ts), with the
    // backoff of workflows/activity-options.ts (1 s, then 2 s), then fails the run with a typed error.
    expect(calls).toEqual({ planner: [QC, QC, QC], retrieval: [], grader: [], rewriter: [] });
    expect(elapsedMs).toBeGreaterThanOrEqual(2_500);
    expect([outcome.status, outcome.route, outcome.retrieval_status, outcome.rag_trace]).toEqual(['failed', null, null, null]);
    expect(outcome.docs).toEqual([]);
    expect(outcome.error?.type).toBe('MODEL_OUTPUT_INVALID');
    expect(outcome.error?.message).toMatchInlineSnapshot(
      `"scripted-model returned output that violates complexity_result: Complexity planner returned no sub-questions"`,
    );
    expect(stepsOf(await rag.getProgress(outcome.workflowId))).toEqual([specStep('🧭 正在分析问题复杂度...')]);
    const description = await env.client.workflow.getHandle(outcome.workflowId).describe();
    expect(description.status.name).toBe('FAILED');
    expect(searchAttributesOf(description).RagStatus).toBe('failed');
  }, 30_000);

  test('T26 a single planned sub-question is accepted → sub_agent_count 1, answer', async () => {
    const ran = await runScenario(
      { ask: QC },
      { retrieve: retrievalTable({ 'only one': [chunk('only')] }), grades: [strongAnswer()], planner: plannerResult('complex', 'r', ['only one']) },
    );

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [QC], retrieval: ['only one'], grader: ['only one'], rewriter: [] });
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(ran.trace).toMatchObject({ sub_agent_count: 1, sub_questions: ['only one'], complexity_reason: 'r' });
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
    await env.client.workflow.getHandle(`${ran.outcome.workflowId}/sub-1`).describe();
    await expect(env.client.workflow.getHandle(`${ran.outcome.workflowId}/sub-2`).describe()).rejects.toThrow();
  });

  test('T27 weak+sufficient sub answers (sub rule 5); strong+partial missing-slot sub clarifies → top answer', async () => {
    const ran = await runScenario(
      { ask: QC },
      {
        retrieve: subTable([A1], [C]),
        grades: [grade('weak', 'sufficient', 'none', 'answer', 0.6), grade('strong', 'partial', 'missing_slot', 'clarify', 0.6)],
        planner: COMPLEX_PLAN,
      },
    );

    expectOracleAgreement(ran);
    expect(ran.trace.sub_traces?.map((sub) => [sub.route, sub.retrieval_status])).toEqual([
      ['answer', 'answerable'],
      ['clarify', 'needs_clarification'],
    ]);
    expect(ran.trace.sub_traces?.[1]?.retrieved_chunks).toEqual([]);
    expect(ran.trace.sub_traces?.[1]?.initial_retrieved_chunks).toEqual([traced(C)]);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(ran.trace).toMatchObject({ synthesis_merged_count: 1, hitl_prompt: '', hitl_options: [] });
    expect(keysOf(ran.trace)).toEqual(keySet(SYN17));
  });
});

describe('HITL resume (spec §4.11, §5.7 last row)', () => {
  test('T28 resume from a snapshot → targeted retrieval for q*, answer, no new snapshot', async () => {
    const r1 = chunk('r1');
    const ran = await runScenario(
      { resumeFrom: { snapshot: SNAPSHOT, answer: '丹瑾' } },
      { retrieve: retrievalTable({ [QH_REFINED]: [r1] }), grades: [strongAnswer()] },
    );

    expectOracleAgreement(ran);
    // One retrieval, for q*; never classified, never rewritten (spec §4.11.4).
    expect(ran.calls).toEqual({ planner: [], retrieval: [QH_REFINED], grader: [QH_REFINED], rewriter: [] });
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'answer', 'answerable']);
    expect(ran.outcome.docs).toEqual([r1]);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    // spec §9 T28: 23 non-R + 23 R = 46 keys; initial_retrieved_chunks and sub_questions absent.
    expect(keysOf(ran.trace)).toEqual(keySet(RESUME_KEYS, R23));
    expect(keysOf(ran.trace)).toHaveLength(46);
    expect(ran.trace).toMatchObject({
      query: QH_REFINED,
      hitl_resumed: true,
      hitl_answer: '丹瑾',
      hitl_resume_from_status: 'needs_clarification',
      hitl_resume_from_route: 'clarify',
      hitl_resume_strategy: 'targeted_retrieval',
      retrieval_stage: 'hitl_targeted_retrieval',
      retrieved_chunks: [traced(r1)],
      hitl_targeted_retrieved_chunks: [traced(r1)],
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
    });
    expect(pick(ran.trace, R23)).toEqual(m0R23(1));

    // spec §4.11.3 steps 1–2, §4.11.4 step 1.
    expect(stepsOf(ran.progress)).toEqual([
      specStep('▶️ 收到 HITL 补充，继续原 RAG 流程', '丹瑾'),
      specStep('🔎 使用 HITL 补充进行针对性检索', '跳过复杂度判断与子问题分解'),
      specStep('🧱 HITL 三级分块检索', '叶子层 L3 召回，候选 24'),
      specStep('🧩 Auto-merging 合并', '启用: True，应用: False，替换片段: 0'),
      specStep('✅ HITL 针对性检索完成，找到 1 个片段', '模式: hybrid'),
      specStep('📊 正在评估证据质量...'),
      specStep('✅ 证据足够，返回检索片段', '置信度: 0.90'),
    ]);
    // The answer came with the start, not as a clarification round of this run.
    expect(ran.outcome.rounds).toEqual([
      expect.objectContaining({ answer: '丹瑾', answered_via: 'resume_from', outcome: 'answered' }),
    ]);
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'completed', RagRoute: 'answer', RagHitlRounds: 0 });
  });

  test('T28 live: the run asks (T08) and the answer by update resumes it like the snapshot resume', async () => {
    const r1 = chunk('r1');
    const ran = await runScenario(
      { ask: QH, answers: ['丹瑾'] },
      {
        retrieve: retrievalTable({ [QH]: [chunk('c')], [QH_REFINED]: [r1] }),
        grades: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.9, { hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] }), strongAnswer()],
      },
    );

    // The oracle resumes from the first turn's snapshot (T08's, which is T28's snapshot) with the same answer.
    expectOracleAgreement(ran);
    expect(ran.outcomes[0]?.hitl_resume_state).toEqual({ ...SNAPSHOT });
    expect(ran.calls).toEqual({ planner: [], retrieval: [QH, QH_REFINED], grader: [QH, QH_REFINED], rewriter: [] });
    expect([ran.outcome.status, ran.outcome.route]).toEqual(['completed', 'answer']);
    expect(keysOf(ran.trace)).toEqual(keySet(RESUME_KEYS, R23));
    expect(ran.trace).toMatchObject({ query: QH_REFINED, hitl_answer: '丹瑾', hitl_targeted_retrieved_chunks: [traced(r1)] });
    expect(ran.outcome.rounds).toEqual([
      {
        round: 1,
        route: 'clarify',
        retrieval_status: 'needs_clarification',
        prompt: '请补充角色名',
        options: ['丹瑾', '丹恒'],
        answer: '丹瑾',
        answered_via: 'update',
        outcome: 'answered',
      },
    ]);
    expect(stepsOf(ran.progress).map((step) => step.label).slice(-7)).toEqual([
      '收到 HITL 补充，继续原 RAG 流程',
      '使用 HITL 补充进行针对性检索',
      'HITL 三级分块检索',
      'Auto-merging 合并',
      'HITL 针对性检索完成，找到 1 个片段',
      '正在评估证据质量...',
      '证据足够，返回检索片段',
    ]);
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'completed', RagRoute: 'answer', RagHitlRounds: 1 });
  });

  test('T29 an answer already contained in the question → retrieval for the unchanged question', async () => {
    const question = '丹瑾的属性是什么？';
    const ran = await runScenario(
      { resumeFrom: { snapshot: { ...SNAPSHOT, question }, answer: '丹瑾' } },
      { retrieve: retrievalTable({ [question]: [chunk('r1')] }), grades: [strongAnswer()] },
    );

    expectOracleAgreement(ran);
    expect(ran.calls.retrieval).toEqual([question]);
    expect(ran.trace.query).toBe(question);
    expect([ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['answer', 'answerable']);
    expect(keysOf(ran.trace)).toEqual(keySet(RESUME_KEYS, R23));
  });

  test('T30 resume graded rewrite with budget 0 → route rewrite returned, not executed, no snapshot', async () => {
    const r1 = chunk('r1');
    const ran = await runScenario(
      { resumeFrom: { snapshot: SNAPSHOT, answer: '丹瑾' } },
      { retrieve: retrievalTable({ [QH_REFINED]: [r1] }), grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)] },
    );

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [], retrieval: [QH_REFINED], grader: [QH_REFINED], rewriter: [] });
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'rewrite', 'needs_rewrite']);
    expect(ran.outcome.docs).toEqual([r1]);
    expect(ran.outcome.hitl_resume_state).toBeNull();
    expect(ran.trace).toMatchObject({ route: 'rewrite', retrieval_status: 'needs_rewrite', hitl_prompt: '', retrieved_chunks: [traced(r1)] });
    expect(keysOf(ran.trace)).toEqual(keySet(RESUME_KEYS, R23));
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'completed', RagRoute: 'rewrite' });
  });

  test('T30 live: a resumed rewrite route is returned, not executed, in the waiting run too', async () => {
    const r1 = chunk('r1');
    const ran = await runScenario(
      { ask: QH, answers: ['丹瑾'] },
      {
        retrieve: retrievalTable({ [QH]: [chunk('c')], [QH_REFINED]: [r1] }),
        grades: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.9, { hitl_prompt: '请补充角色名' }), grade('weak', 'partial', 'none', 'rewrite', 0.4)],
      },
    );

    expectOracleAgreement(ran);
    expect(ran.calls.rewriter).toEqual([]);
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['completed', 'rewrite', 'needs_rewrite']);
    expect(ran.outcome.docs).toEqual([r1]);
  });

  test('T31 resume with the budget used and partial evidence → clarify again with a snapshot on q*', async () => {
    const r1 = chunk('r1');
    const snapshot = { ...SNAPSHOT, rewrite_count: 1, complexity: 'complex', complexity_reason: 'cmp', sub_questions: ['s1', 's2'] };
    const ran = await runScenario(
      { resumeFrom: { snapshot, answer: '丹瑾' } },
      { retrieve: retrievalTable({ [QH_REFINED]: [r1] }), grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)] },
    );

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [], retrieval: [QH_REFINED], grader: [QH_REFINED], rewriter: [] });
    expect([ran.outcome.status, ran.outcome.route, ran.outcome.retrieval_status]).toEqual(['awaiting_input', 'clarify', 'needs_clarification']);
    expect(ran.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    // spec §4.11.4 step 3: the new snapshot's question is q*, so a third turn merges on top of it.
    expect(ran.outcome.hitl_resume_state).toEqual({
      question: QH_REFINED,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 1,
      complexity: 'complex',
      complexity_reason: 'cmp',
      sub_questions: ['s1', 's2'],
    });
    expect(keysOf(ran.trace)).toEqual(keySet(RESUME_KEYS, ['sub_questions'], R23));
    expect(ran.trace).toMatchObject({
      complexity: 'complex',
      complexity_reason: 'cmp',
      sub_questions: ['s1', 's2'],
      retrieved_chunks: [],
      hitl_targeted_retrieved_chunks: [traced(r1)],
    });
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'awaiting_input', RagRoute: 'clarify', RagComplexity: 'complex' });
  });

  test('T31 live: after T11 (budget used) the answer leads to a second clarification round on q*', async () => {
    const answer = '2.0版本';
    const refined = `${answer}：${Q1}`;
    const ran = await runScenario(
      { ask: Q1, answers: [answer] },
      {
        retrieve: retrievalTable({ [Q1]: [chunk('c1')], [STEP_BACK_QUERY]: [chunk('c2')], [refined]: [chunk('r1')] }),
        grades: [weakPartialRewrite(), weakPartialRewrite(), weakPartialRewrite()],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    expect(ran.calls).toEqual({ planner: [], retrieval: [Q1, STEP_BACK_QUERY, refined], grader: [Q1, Q1, refined], rewriter: [Q1] });
    expect([ran.outcome.status, ran.outcome.route]).toEqual(['awaiting_input', 'clarify']);
    expect(ran.outcome.hitl?.round).toBe(2);
    expect(ran.outcome.hitl_resume_state).toMatchObject({ question: refined, rewrite_count: 1 });
    expect(searchAttributesOf(ran.description)).toMatchObject({ RagStatus: 'awaiting_input', RagHitlRounds: 2 });
  });

  test('T32 an invalid snapshot (extra key, route "answer", empty question) fails the run before any retrieval', async () => {
    const bad = [
      { ...SNAPSHOT, extra: 1 },
      { ...SNAPSHOT, route: 'answer' },
      { ...SNAPSHOT, question: '' },
    ];
    for (const snapshot of bad) {
      expect(() => resumeRag(scriptedModels({ retrieve: retrievalTable({}) }), snapshot, '丹瑾')).toThrow('invalid HITL resume snapshot');
    }

    const { rag, calls } = worker.use({ retrieve: retrievalTable({}) });
    const messages: string[] = [];
    for (const snapshot of bad) {
      const outcome = await rag.ask(undefined, { sessionId: sessionId(), resumeFrom: { snapshot, answer: '丹瑾' } });
      expect([outcome.status, outcome.error?.type, outcome.rag_trace]).toEqual(['failed', 'INVALID_RESUME_STATE', null]);
      expect(await rag.getProgress(outcome.workflowId)).toEqual([]);
      messages.push(outcome.error?.message ?? '');
    }
    expect(calls).toEqual({ planner: [], retrieval: [], grader: [], rewriter: [] });
    expect(messages).toMatchInlineSnapshot(`
[
  "invalid HITL resume snapshot: ✖ Unrecognized key: "extra"",
  "invalid HITL resume snapshot: ✖ Invalid option: expected one of "clarify"|"scope_select" → at route",
  "invalid HITL resume snapshot: ✖ Too small: expected string to have >=1 characters → at question",
]
`);
  });
});

describe('defensive rewrite branch (spec §4.7.2)', () => {
  /*
   * T33 calls the rewrite node directly with a used budget. The workflow cannot reach that guard: resolveRoute never
   * returns rewrite with rewrite_count ≥ 1 (spec §4.5.3 rules 6–8), and a resume returns a rewrite route without
   * rewriting (T30). The guard itself is covered by the pure driver test (test/unit/core/graph-scenarios.test.ts).
   * Here: a second "rewrite" suggestion ends through the route rules, never through the guard.
   */
  test('T33 the budget guard is not reached on Temporal: a second rewrite suggestion ends by rule 7, not by the guard', async () => {
    const ran = await runScenario(
      { ask: Q1 },
      {
        retrieve: retrievalTable({ [Q1]: [chunk('c1')], [STEP_BACK_QUERY]: [chunk('c2')] }),
        grades: [weakPartialRewrite(), grade('weak', 'none', 'none', 'rewrite', 0.3, { reason: 'still weak' })],
        rewritePlans: [stepBackPlan(STEP_BACK)],
      },
    );

    expectOracleAgreement(ran);
    expect(ran.calls.rewriter).toHaveLength(1);
    expect(ran.outcome.route).toBe('no_knowledge');
    expect(ran.trace.evidence_reason).toBe('still weak');
    expect(stepsOf(ran.progress).map((step) => step.label)).not.toContain('改写预算已用完，停止检索');
  });
});
