import {
  FAST_PATH_SHORT_SINGLE_INTENT,
  FAST_PATH_SINGLE_FACT,
  simpleQuestionFastPathReason,
} from '../../../core/graph/fast-path';
import { formatDocs } from '../../../core/graph/format-docs';
import { cleanComplexityResult } from '../../../core/graph/plan-complexity';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';
import type { RetrievalResult } from '../../../core/trace/writers';
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
  rewriteStep,
  runRag,
  scriptedModels,
  stepBackPlan,
  traced,
} from '../../support/scenario';

/*
 * The graph scenarios of spec §9 (T01–T24, T26–T31, T33), run through the pure scenario driver of
 * test/support/scenario.ts. T25 (planner without sub-questions) and T32 (invalid snapshot) are pure single-function
 * cases tested with plan-complexity and hitl-resume.
 *
 * Unless a scenario says otherwise: retrieval meta is M0 (spec §9 conventions), and where the spec gives no grade
 * confidence we use 0.9 (any value in 0..1 would do; it is only copied into evidence_confidence).
 */

/** spec §9: Q1 is T01's question; the fast path takes it (属性 + 是什么 → single_fact_marker). */
const Q1 = '丹瑾是什么属性？';
/** spec §9 T19: the complex question; "比较" is a complex marker, so the planner decides. Also used as QC. */
const QC = '比较丹瑾与卡卡罗的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
const COMPLEX_PLAN = plannerResult('complex', '涉及多维度比较', SUBS);

/** spec §4.5.5 default prompts, as the spec writes them. */
const SCOPE_DEFAULT_PROMPT = '我在知识库中找到了多个可能相关的方向。你想问的是哪一个？';
const GENERIC_PROMPT = '我找到了相关内容，但证据不足以确定答案。请补充一下你具体想问的条件。';

const strongAnswer = (confidence = 0.9) => grade('strong', 'sufficient', 'none', 'answer', confidence);

function pick(source: object, keys: readonly string[]): Record<string, unknown> {
  const record = source as Record<string, unknown>;
  return Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
}

/** The R23 values of meta M0 as they appear in a normalized trace. */
const m0R23 = (n: number) => pick(metaM0(n), R23);

describe('simple path, initial grade terminal (spec §4.4–§4.5, §5.7 row 1)', () => {
  test('T01 fast path single-fact question → answer after one retrieval, planner not called', () => {
    const c1 = chunk('丹瑾是湮灭属性角色。');
    const models = scriptedModels({ retrieve: retrievalTable({ [Q1]: [c1] }), grades: [strongAnswer(0.95)] });

    const run = runRag(models, Q1);

    expect(simpleQuestionFastPathReason(Q1)).toBe(FAST_PATH_SINGLE_FACT);
    expect(models.calls).toEqual({
      planner: [],
      retrieval: [Q1],
      // spec §4.4.2: the grader sees the formatted evidence.
      grader: [{ question: Q1, context: '[1] doc.pdf (Page 1):\n丹瑾是湮灭属性角色。' }],
      rewriter: [],
    });
    expect(run.route).toBe('answer');
    expect(run.retrievalStatus).toBe('answerable');
    expect(run.docs).toEqual([c1]);
    expect(run.snapshot).toBeNull();
    // spec §9 T01: K18 + R23 = 41 keys; sub_questions, rewrite_*, sub_traces, hitl_resume* absent.
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    expect(keysOf(run.trace)).toHaveLength(41);
    expect(pick(run.trace, R23)).toEqual(m0R23(1));
    // The whole external shape of a simple-path trace; runtime chunk keys (id, chunk_id, parent ids…) are stripped.
    expect(run.trace).toMatchInlineSnapshot(`
{
  "auto_merge_applied": false,
  "auto_merge_enabled": true,
  "auto_merge_replaced_chunks": 0,
  "auto_merge_steps": 0,
  "auto_merge_threshold": 2,
  "candidate_count": 1,
  "candidate_k": 24,
  "candidate_k_source": "multiplier",
  "complexity": "simple",
  "complexity_reason": "obvious_simple_fast_path:single_fact_marker",
  "evidence_ambiguity": "none",
  "evidence_answerability": "sufficient",
  "evidence_confidence": 0.95,
  "evidence_reason": "",
  "evidence_relevance": "strong",
  "hitl_options": [],
  "hitl_prompt": "",
  "initial_retrieved_chunks": [
    {
      "filename": "doc.pdf",
      "page_number": 1,
      "score": 0.03,
      "text": "丹瑾是湮灭属性角色。",
    },
  ],
  "leaf_retrieve_level": 3,
  "missing_slots": [],
  "post_merge_candidate_count": 1,
  "post_rerank_count": 1,
  "post_threshold_count": 1,
  "query": "丹瑾是什么属性？",
  "recall_count": 1,
  "rerank_applied": false,
  "rerank_enabled": false,
  "rerank_endpoint": "",
  "rerank_min_score": 0,
  "rerank_timeout_seconds": 5,
  "retrieval_candidate_multiplier": 3,
  "retrieval_empty": false,
  "retrieval_mode": "hybrid",
  "retrieval_pipeline": "recall_merge_rerank",
  "retrieval_stage": "initial",
  "retrieval_status": "answerable",
  "retrieval_top_k": 8,
  "retrieved_chunks": [
    {
      "filename": "doc.pdf",
      "page_number": 1,
      "score": 0.03,
      "text": "丹瑾是湮灭属性角色。",
    },
  ],
  "route": "answer",
  "tool_name": "search_knowledge_base",
  "tool_used": true,
}
`);
  });

  test('T02 fast path short single intent → answer', () => {
    const question = 'covered question';
    const c1 = chunk('c1');
    const models = scriptedModels({ retrieve: retrievalTable({ [question]: [c1] }), grades: [strongAnswer(0.95)] });

    const run = runRag(models, question);

    // 16 code points ≤ 18 and no marker (spec §4.2.1 rule 8).
    expect(simpleQuestionFastPathReason(question)).toBe(FAST_PATH_SHORT_SINGLE_INTENT);
    expect(models.calls.planner).toEqual([]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.trace.complexity_reason).toBe(FAST_PATH_SHORT_SINGLE_INTENT);
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });

  test('T03 planner says simple → planner called once, sub_questions [] in state, absent in trace', () => {
    const question = '请介绍一下这个系统的整体部署架构设计思路';
    const c1 = chunk('c1');
    const planned = plannerResult('simple', '单一事实查询', []);
    const models = scriptedModels({
      retrieve: retrievalTable({ [question]: [c1] }),
      grades: [strongAnswer()],
      planner: planned,
    });

    const run = runRag(models, question);

    // 20 code points, no marker: the fast path misses (spec §4.2.1 rule 9).
    expect(simpleQuestionFastPathReason(question)).toBeNull();
    expect(cleanComplexityResult(planned)).toEqual({ complexity: 'simple', complexityReason: '单一事实查询', subQuestions: [] });
    expect(models.calls.planner).toEqual([question]);
    expect(run.subQuestions).toEqual([]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.trace).toMatchObject({ complexity: 'simple', complexity_reason: '单一事实查询' });
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });

  test('T04 empty retrieval → no_knowledge without calling grader or rewriter', () => {
    const models = scriptedModels({ retrieve: retrievalTable({ [Q1]: [] }) });

    const run = runRag(models, Q1);

    expect(models.calls).toEqual({ planner: [], retrieval: [Q1], grader: [], rewriter: [] });
    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(run.docs).toEqual([]);
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    // spec §4.5.1: the no-docs constants.
    expect(run.trace).toMatchObject({
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
    expect(pick(run.trace, R23)).toEqual(m0R23(0));
  });

  test('T05 grade relevance none → no_knowledge; state docs emptied, trace keeps the rejected chunks', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('none', 'none', 'none', 'no_knowledge', 0.9)],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(run.docs).toEqual([]);
    expect(run.context).toBe('');
    expect(run.snapshot).toBeNull();
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    // spec §4.5 step 7: no_knowledge leaves T.retrieved_chunks as it was.
    expect(run.trace.retrieved_chunks).toEqual([traced(c1)]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
  });

  test('T06 missing slot → clarify with the missing-slots prompt and a snapshot', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { missing_slots: ['版本'] })],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(run.docs).toEqual([]);
    expect(run.trace.hitl_prompt).toBe('我找到了相关内容，但还缺少关键信息：版本');
    expect(run.snapshot).toEqual({
      question: Q1,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 0,
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      sub_questions: [],
    });
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    // spec §4.5 step 7: clarify empties the current evidence, the initial snapshot stays.
    expect(run.trace.retrieved_chunks).toEqual([]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
  });

  test('T07 multiple candidates → scope_select with the scope default prompt (beats missing slots)', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [
        grade('strong', 'partial', 'multiple_candidates', 'scope_select', 0.9, {
          hitl_options: ['A', 'B'],
          missing_slots: ['x'],
        }),
      ],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['scope_select', 'needs_scope_selection']);
    expect(run.trace).toMatchObject({ hitl_prompt: SCOPE_DEFAULT_PROMPT, hitl_options: ['A', 'B'], missing_slots: ['x'] });
    expect(run.snapshot).toMatchObject({ route: 'scope_select', retrieval_status: 'needs_scope_selection' });
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    expect(run.trace.retrieved_chunks).toEqual([]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
  });

  test('T08 clarify with the model prompt used verbatim; snapshot has exactly the 7 keys', () => {
    const question = '这个角色的属性是什么？';
    const c = chunk('c');
    const models = scriptedModels({
      retrieve: retrievalTable({ [question]: [c] }),
      grades: [
        grade('strong', 'partial', 'missing_slot', 'clarify', 0.9, {
          hitl_prompt: '请补充角色名',
          hitl_options: ['丹瑾', '丹恒'],
        }),
      ],
    });

    const run = runRag(models, question);

    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(run.trace).toMatchObject({ hitl_prompt: '请补充角色名', hitl_options: ['丹瑾', '丹恒'] });
    expect(Object.keys(run.snapshot ?? {})).toEqual([
      'question', 'route', 'retrieval_status', 'rewrite_count', 'complexity', 'complexity_reason', 'sub_questions',
    ]);
    expect(run.snapshot).toEqual({
      question,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 0,
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      sub_questions: [],
    });
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
    expect(run.trace.retrieved_chunks).toEqual([]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c)]);
  });

  test('T14 strong+sufficient with a clarify suggestion → answer (rule 9), hitl_prompt ""', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('strong', 'sufficient', 'none', 'clarify', 0.9, { hitl_prompt: '请补充' })],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.docs).toEqual([c1]);
    expect(run.trace.hitl_prompt).toBe('');
    expect(run.snapshot).toBeNull();
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });

  test('T15 strong+sufficient with a no_knowledge suggestion → answer (rule 9)', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('strong', 'sufficient', 'none', 'no_knowledge', 0.9)],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.trace.route).toBe('answer');
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });

  test('T16 weak+sufficient answer suggestion in the main path → no_knowledge (rule 10), trace keeps chunks', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('weak', 'sufficient', 'none', 'answer', 0.9)],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(run.docs).toEqual([]);
    expect(models.calls.rewriter).toEqual([]);
    expect(run.trace.retrieved_chunks).toEqual([traced(c1)]);
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });

  test('T18 answer keeps the grade hitl_options but not its hitl_prompt', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: [grade('strong', 'sufficient', 'none', 'answer', 0.9, { hitl_options: ['z'], hitl_prompt: 'ignored' })],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    // spec §4.5.5: prompt "" for non-HITL routes; §4.5.6: options copied for every route.
    expect(run.trace).toMatchObject({ hitl_prompt: '', hitl_options: ['z'] });
    expect(keysOf(run.trace)).toEqual(keySet(K18, R23));
  });
});

describe('simple path with one rewrite (spec §4.7–§4.8, §5.7 rows 2–3)', () => {
  /** spec §4.7.1: original question + blank line + marker + text. */
  const STEP_BACK = '角色属性体系是什么？';
  const STEP_BACK_QUERY = `${Q1}\n\n退步问题：${STEP_BACK}`;
  const HYDE = '丹瑾是一名湮灭属性角色……';
  const HYDE_QUERY = `${Q1}\n\n假设性答案文档：${HYDE}`;
  const weakPartialRewrite = (confidence = 0.44) => grade('weak', 'partial', 'none', 'rewrite', confidence);

  test('T09 step-back rewrite → answer after second retrieval', () => {
    const c1 = chunk('弱证据');
    const c2 = chunk('角色属性体系：湮灭、虚数……');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
      grades: [weakPartialRewrite(0.44), strongAnswer()],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    expect(models.calls.retrieval).toEqual([Q1, STEP_BACK_QUERY]);
    // spec §4.7.1 step 2: the rewriter gets the original question; §4.8: the grader too, with the new context.
    expect(models.calls.rewriter).toEqual([Q1]);
    expect(models.calls.grader).toEqual([
      { question: Q1, context: formatDocs([c1]) },
      { question: Q1, context: formatDocs([c2]) },
    ]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.docs).toEqual([c2]);
    expect(run.rewriteCount).toBe(1);
    // spec §4.7.1 step 5: the raw-only rewrite_count, dropped by normalization (spec §5.1).
    expect(run.rawTrace.rewrite_count).toBe(1);
    expect(run.trace).not.toHaveProperty('rewrite_count');
    // spec §9 T09: K18 + SB4 + R23 = 45 keys; hyde_document absent.
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
    expect(keysOf(run.trace)).toHaveLength(45);
    expect(run.trace).toMatchObject({
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
    expect(pick(run.trace, R23)).toEqual(m0R23(1));
  });

  test('T10 HyDE rewrite → answer; rewritten query uses the HyDE marker', () => {
    const c1 = chunk('弱证据');
    const c2 = chunk('丹瑾：湮灭属性');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [HYDE_QUERY]: [c2] }),
      grades: [weakPartialRewrite(), strongAnswer()],
      rewritePlans: [hydePlan(HYDE)],
    });

    const run = runRag(models, Q1);

    expect(models.calls.retrieval).toEqual([Q1, HYDE_QUERY]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(keysOf(run.trace)).toEqual(keySet(K18, HY4, R23));
    expect(run.trace).toMatchObject({
      retrieval_stage: 'rewritten',
      rewrite_method: 'hyde',
      rewritten_query: HYDE_QUERY,
      hyde_document: HYDE,
      retrieved_chunks: [traced(c2)],
      initial_retrieved_chunks: [traced(c1)],
      rewrite_retrieved_chunks: [traced(c2)],
    });
  });

  test('T11 rewrite suggested again with the budget used and partial evidence → clarify, snapshot rewrite_count 1', () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
      grades: [weakPartialRewrite(), weakPartialRewrite()],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    // spec §4.5.3 rule 7, §4.5.5 rule 4.
    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(models.calls.rewriter).toHaveLength(1);
    expect(run.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    expect(run.snapshot).toEqual({
      question: Q1,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 1,
      complexity: 'simple',
      complexity_reason: FAST_PATH_SINGLE_FACT,
      sub_questions: [],
    });
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
    expect(run.trace.retrieved_chunks).toEqual([]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(run.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
  });

  test('T12 rewrite suggested again with no answerability → no_knowledge, rewritten chunks kept', () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
      grades: [weakPartialRewrite(), grade('weak', 'none', 'none', 'rewrite', 0.3)],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(run.docs).toEqual([]);
    expect(run.snapshot).toBeNull();
    expect(run.trace.retrieved_chunks).toEqual([traced(c2)]);
    expect(run.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
  });

  test('T13 unsupported answer suggestion with partial evidence → rewrite, then clarify', () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    const weakPartialAnswer = grade('weak', 'partial', 'none', 'answer', 0.5);
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [c2] }),
      grades: [weakPartialAnswer, weakPartialAnswer],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    // 1st grade: spec §4.5.3 rule 8 with budget 0 → rewrite; 2nd: rule 8 with budget 1 → clarify.
    expect(models.calls.rewriter).toEqual([Q1]);
    expect(models.calls.retrieval).toEqual([Q1, STEP_BACK_QUERY]);
    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(run.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    expect(run.snapshot).toMatchObject({ route: 'clarify', rewrite_count: 1 });
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
    expect(run.trace.retrieved_chunks).toEqual([]);
    expect(run.trace.initial_retrieved_chunks).toEqual([traced(c1)]);
    expect(run.trace.rewrite_retrieved_chunks).toEqual([traced(c2)]);
  });

  test('T17 rewritten retrieval finds nothing → no-docs short-circuit on the second grade', () => {
    const c1 = chunk('c1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [Q1]: [c1], [STEP_BACK_QUERY]: [] }),
      grades: [weakPartialRewrite()],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    expect(models.calls.grader).toHaveLength(1);
    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
    expect(run.trace).toMatchObject({
      evidence_reason: 'no_retrieved_documents',
      evidence_confidence: 1.0,
      retrieved_chunks: [],
      rewrite_retrieved_chunks: [],
      initial_retrieved_chunks: [traced(c1)],
      retrieval_empty: true,
    });
    expect(pick(run.trace, R23)).toEqual(m0R23(0));
  });

  test('T09 variant — ragtime differs (DESIGN §4, spec §10.3): the rewritten retrieval replaces the whole R group, no stale rerank keys', () => {
    const c1 = chunk('c1');
    const c2 = chunk('c2');
    // The first retrieval had a failing reranker and a bad candidate-K setting (spec §6.9: 23 + 3 keys).
    const failingMeta = {
      ...metaM0(1),
      rerank_enabled: true,
      rerank_applied: true,
      rerank_model: 'bge-reranker',
      rerank_endpoint: 'https://h/v1/rerank',
      rerank_error: 'HTTP 500: boom',
      candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K',
    };
    const retrieve = (query: string): RetrievalResult =>
      query === Q1 ? { docs: [c1], meta: failingMeta } : { docs: [c2], meta: metaM0(1) };
    const models = scriptedModels({
      retrieve,
      grades: [weakPartialRewrite(), strongAnswer()],
      rewritePlans: [stepBackPlan(STEP_BACK)],
    });

    const run = runRag(models, Q1);

    // Had the first grade answered, the trace would show the first retrieval's meta as produced (spec §6.9: 26 keys).
    const answeredFirst = runRag(scriptedModels({ retrieve, grades: [strongAnswer()] }), Q1);
    expect(keysOf(answeredFirst.trace)).toEqual(keySet(K18, R23, ['rerank_model', 'rerank_error', 'candidate_k_config_error']));
    expect(answeredFirst.trace.rerank_error).toBe('HTTP 500: boom');

    // The original keeps rerank_model, rerank_error and candidate_k_config_error from the first retrieval (48 keys);
    // ragtime shows exactly the second retrieval's meta (45 keys).
    expect(keysOf(run.trace)).toEqual(keySet(K18, SB4, R23));
    expect(run.trace).not.toHaveProperty('rerank_error');
    expect(run.trace).not.toHaveProperty('rerank_model');
    expect(run.trace).not.toHaveProperty('candidate_k_config_error');
    expect(pick(run.trace, R23)).toEqual(m0R23(1));
  });
});

describe('complex path: sub-agents and synthesis (spec §4.3, §4.9–§4.10, §5.7 rows 4–5)', () => {
  const A1 = chunk('A', { chunk_id: 'a', score: 0.8 });
  const B = chunk('B', { chunk_id: 'b', score: 0.6 });
  const A2 = chunk('A', { chunk_id: 'a', score: 0.9 });
  const C = chunk('C', { chunk_id: 'c', score: 0.5 });

  const subTable = (first: Chunk[], second: Chunk[]) =>
    retrievalTable({ [SUBS[0] as string]: first, [SUBS[1] as string]: second });

  test('T19 synthesis of two answered sub-questions → answer, deduped and renumbered evidence', () => {
    const models = scriptedModels({
      retrieve: subTable([A1, B], [A2, C]),
      grades: [strongAnswer(), strongAnswer()],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    expect(simpleQuestionFastPathReason(QC)).toBeNull();
    expect(models.calls.planner).toEqual([QC]);
    expect(models.calls.retrieval).toEqual(SUBS);
    expect(models.calls.grader.map((call) => call.question)).toEqual(SUBS);
    expect(models.calls.rewriter).toEqual([]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.snapshot).toBeNull();
    // spec §4.10 steps 3–4: A keeps its first position with the max score; rrf_rank renumbered 1..3.
    expect(run.docs).toEqual([
      { ...A1, score: 0.9, rrf_rank: 1 },
      { ...B, rrf_rank: 2 },
      { ...C, rrf_rank: 3 },
    ]);
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
    expect(run.trace).toMatchObject({
      retrieval_stage: 'synthesis',
      complexity: 'complex',
      complexity_reason: '涉及多维度比较',
      sub_questions: SUBS,
      sub_agent_count: 2,
      synthesis_merged_count: 4,
      evidence_relevance: 'strong',
      evidence_answerability: 'sufficient',
    });
    // spec §5.7 row 4: each sub-trace has 16 non-R keys + the R keys of its retrieval; no complexity keys.
    expect(run.trace.sub_traces).toHaveLength(2);
    for (const subTrace of run.trace.sub_traces ?? []) {
      expect(keysOf(subTrace)).toEqual(keySet(SUB16, R23));
    }
    // The whole external shape of a synthesis trace (spec §4.10 step 8, §5.7): 17 top-level keys, no R group, no
    // evidence_confidence (written null), sub-traces without complexity keys and with their own chunk values.
    expect(run.trace).toMatchInlineSnapshot(`
{
  "complexity": "complex",
  "complexity_reason": "涉及多维度比较",
  "evidence_answerability": "sufficient",
  "evidence_relevance": "strong",
  "hitl_options": [],
  "hitl_prompt": "",
  "query": "比较丹瑾与卡卡罗的战斗定位",
  "retrieval_stage": "synthesis",
  "retrieval_status": "answerable",
  "retrieved_chunks": [
    {
      "filename": "doc.pdf",
      "page_number": 1,
      "rrf_rank": 1,
      "score": 0.9,
      "text": "A",
    },
    {
      "filename": "doc.pdf",
      "page_number": 1,
      "rrf_rank": 2,
      "score": 0.6,
      "text": "B",
    },
    {
      "filename": "doc.pdf",
      "page_number": 1,
      "rrf_rank": 3,
      "score": 0.5,
      "text": "C",
    },
  ],
  "route": "answer",
  "sub_agent_count": 2,
  "sub_questions": [
    "丹瑾的战斗定位",
    "卡卡罗的战斗定位",
  ],
  "sub_traces": [
    {
      "auto_merge_applied": false,
      "auto_merge_enabled": true,
      "auto_merge_replaced_chunks": 0,
      "auto_merge_steps": 0,
      "auto_merge_threshold": 2,
      "candidate_count": 2,
      "candidate_k": 24,
      "candidate_k_source": "multiplier",
      "evidence_ambiguity": "none",
      "evidence_answerability": "sufficient",
      "evidence_confidence": 0.9,
      "evidence_reason": "",
      "evidence_relevance": "strong",
      "hitl_options": [],
      "hitl_prompt": "",
      "initial_retrieved_chunks": [
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.8,
          "text": "A",
        },
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.6,
          "text": "B",
        },
      ],
      "leaf_retrieve_level": 3,
      "missing_slots": [],
      "post_merge_candidate_count": 2,
      "post_rerank_count": 2,
      "post_threshold_count": 2,
      "query": "丹瑾的战斗定位",
      "recall_count": 2,
      "rerank_applied": false,
      "rerank_enabled": false,
      "rerank_endpoint": "",
      "rerank_min_score": 0,
      "rerank_timeout_seconds": 5,
      "retrieval_candidate_multiplier": 3,
      "retrieval_empty": false,
      "retrieval_mode": "hybrid",
      "retrieval_pipeline": "recall_merge_rerank",
      "retrieval_stage": "initial",
      "retrieval_status": "answerable",
      "retrieval_top_k": 8,
      "retrieved_chunks": [
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.8,
          "text": "A",
        },
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.6,
          "text": "B",
        },
      ],
      "route": "answer",
      "tool_name": "search_knowledge_base",
      "tool_used": true,
    },
    {
      "auto_merge_applied": false,
      "auto_merge_enabled": true,
      "auto_merge_replaced_chunks": 0,
      "auto_merge_steps": 0,
      "auto_merge_threshold": 2,
      "candidate_count": 2,
      "candidate_k": 24,
      "candidate_k_source": "multiplier",
      "evidence_ambiguity": "none",
      "evidence_answerability": "sufficient",
      "evidence_confidence": 0.9,
      "evidence_reason": "",
      "evidence_relevance": "strong",
      "hitl_options": [],
      "hitl_prompt": "",
      "initial_retrieved_chunks": [
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.9,
          "text": "A",
        },
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.5,
          "text": "C",
        },
      ],
      "leaf_retrieve_level": 3,
      "missing_slots": [],
      "post_merge_candidate_count": 2,
      "post_rerank_count": 2,
      "post_threshold_count": 2,
      "query": "卡卡罗的战斗定位",
      "recall_count": 2,
      "rerank_applied": false,
      "rerank_enabled": false,
      "rerank_endpoint": "",
      "rerank_min_score": 0,
      "rerank_timeout_seconds": 5,
      "retrieval_candidate_multiplier": 3,
      "retrieval_empty": false,
      "retrieval_mode": "hybrid",
      "retrieval_pipeline": "recall_merge_rerank",
      "retrieval_stage": "initial",
      "retrieval_status": "answerable",
      "retrieval_top_k": 8,
      "retrieved_chunks": [
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.9,
          "text": "A",
        },
        {
          "filename": "doc.pdf",
          "page_number": 1,
          "score": 0.5,
          "text": "C",
        },
      ],
      "route": "answer",
      "tool_name": "search_knowledge_base",
      "tool_used": true,
    },
  ],
  "synthesis_merged_count": 4,
  "tool_name": "search_knowledge_base",
  "tool_used": true,
}
`);
  });

  test('T19 variant — ragtime differs (DESIGN §4, spec §10.2): sub-traces keep their own scores and ranks after synthesis', () => {
    const models = scriptedModels({
      retrieve: subTable([A1, B], [A2, C]),
      grades: [strongAnswer(), strongAnswer()],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    // The original mutates shared chunk objects: sub1's A would show score 0.9 and sub2's C rrf_rank 3.
    const [sub1, sub2] = run.trace.sub_traces ?? [];
    expect(sub1?.retrieved_chunks).toEqual([traced(A1), traced(B)]);
    expect(sub1?.retrieved_chunks?.[0]?.score).toBe(0.8);
    expect(sub2?.retrieved_chunks).toEqual([traced(A2), traced(C)]);
    expect(sub2?.retrieved_chunks?.[1]).not.toHaveProperty('rrf_rank');
    // The sub-agents' own chunk objects are untouched too.
    expect(A1.score).toBe(0.8);
    expect(C).not.toHaveProperty('rrf_rank');
    expect(run.subResults[0]?.docs).toEqual([A1, B]);
  });

  test('T20 a partial sub-answer and an empty sub → answer/partial; sub-agents never rewrite', () => {
    const models = scriptedModels({
      retrieve: subTable([A1], []),
      grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    // spec §4.5.3 rule 5: a sub-agent with partial evidence answers.
    expect(run.subResults.map((sub) => [sub.route, sub.retrieval_status])).toEqual([
      ['answer', 'partial'],
      ['no_knowledge', 'no_knowledge'],
    ]);
    expect(models.calls.rewriter).toEqual([]);
    expect(models.calls.grader).toHaveLength(1);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'partial']);
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
    expect(run.trace).toMatchObject({
      evidence_relevance: 'strong',
      evidence_answerability: 'partial',
      synthesis_merged_count: 1,
      sub_agent_count: 2,
    });
    expect(run.trace.sub_traces?.map((sub) => sub.retrieval_status)).toEqual(['partial', 'no_knowledge']);
  });

  test('T21 both sub retrievals empty → no_knowledge/no_knowledge with no evidence', () => {
    const models = scriptedModels({ retrieve: subTable([], []), planner: COMPLEX_PLAN });

    const run = runRag(models, QC);

    expect(models.calls.grader).toEqual([]);
    expect([run.route, run.retrievalStatus]).toEqual(['no_knowledge', 'no_knowledge']);
    expect(run.docs).toEqual([]);
    expect(run.snapshot).toBeNull();
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
    expect(run.trace).toMatchObject({
      evidence_relevance: 'none',
      evidence_answerability: 'none',
      retrieved_chunks: [],
      hitl_prompt: '',
      hitl_options: [],
      synthesis_merged_count: 0,
      sub_agent_count: 2,
    });
  });

  test('T22 sub clarify + sub scope_select without evidence → scope_select, prompts joined with "；", options deduped', () => {
    const x = chunk('x');
    const models = scriptedModels({
      retrieve: subTable([x], [x]),
      grades: [
        grade('weak', 'none', 'missing_slot', 'clarify', 0.5, { hitl_prompt: 'P1', hitl_options: ['x'] }),
        grade('weak', 'none', 'multiple_candidates', 'scope_select', 0.5, { hitl_prompt: 'P2', hitl_options: ['x', 'y'] }),
      ],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    expect([run.route, run.retrievalStatus]).toEqual(['scope_select', 'needs_scope_selection']);
    expect(run.trace).toMatchObject({ hitl_prompt: 'P1；P2', hitl_options: ['x', 'y'] });
    expect(run.snapshot).toEqual({
      question: QC,
      route: 'scope_select',
      retrieval_status: 'needs_scope_selection',
      rewrite_count: 0,
      complexity: 'complex',
      complexity_reason: '涉及多维度比较',
      sub_questions: SUBS,
    });
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
  });

  test('T23 both subs clarify with the same prompt → clarify, prompt deduped', () => {
    const x = chunk('x');
    const clarify = grade('weak', 'partial', 'missing_slot', 'clarify', 0.5, { hitl_prompt: '请补充版本' });
    const models = scriptedModels({ retrieve: subTable([x], [x]), grades: [clarify, clarify], planner: COMPLEX_PLAN });

    const run = runRag(models, QC);

    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(run.trace.hitl_prompt).toBe('请补充版本');
    expect(run.snapshot).toMatchObject({ question: QC, route: 'clarify', retrieval_status: 'needs_clarification' });
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
  });

  test('T24 one answered sub and one clarifying sub → answer; the sub HITL request is ignored', () => {
    const models = scriptedModels({
      retrieve: subTable([A1], [C]),
      grades: [strongAnswer(), grade('weak', 'partial', 'missing_slot', 'clarify', 0.5, { hitl_prompt: 'P', hitl_options: ['o'] })],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.snapshot).toBeNull();
    expect(run.trace).toMatchObject({ hitl_prompt: '', hitl_options: [], synthesis_merged_count: 1 });
    expect(run.docs).toEqual([{ ...A1, rrf_rank: 1 }]);
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
  });

  test('T26 a single planned sub-question is accepted → sub_agent_count 1, answer', () => {
    const only = chunk('only');
    const models = scriptedModels({
      retrieve: retrievalTable({ 'only one': [only] }),
      grades: [strongAnswer()],
      planner: plannerResult('complex', 'r', ['only one']),
    });

    const run = runRag(models, QC);

    expect(models.calls.retrieval).toEqual(['only one']);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.trace).toMatchObject({ sub_agent_count: 1, sub_questions: ['only one'], complexity_reason: 'r' });
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
  });

  test('T27 weak+sufficient sub answers (sub rule 5); strong+partial missing-slot sub clarifies → top answer', () => {
    const models = scriptedModels({
      retrieve: subTable([A1], [C]),
      grades: [grade('weak', 'sufficient', 'none', 'answer', 0.6), grade('strong', 'partial', 'missing_slot', 'clarify', 0.6)],
      planner: COMPLEX_PLAN,
    });

    const run = runRag(models, QC);

    expect(run.subResults.map((sub) => [sub.route, sub.retrieval_status])).toEqual([
      ['answer', 'answerable'],
      ['clarify', 'needs_clarification'],
    ]);
    const sub2 = run.trace.sub_traces?.[1];
    expect(sub2?.retrieved_chunks).toEqual([]);
    expect(sub2?.initial_retrieved_chunks).toEqual([traced(C)]);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.trace).toMatchObject({ synthesis_merged_count: 1, hitl_prompt: '', hitl_options: [] });
    expect(keysOf(run.trace)).toEqual(keySet(SYN17));
  });
});

describe('HITL resume (spec §4.11, §5.7 last row)', () => {
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
  };
  /** spec §9 T28: 23 non-R keys. */
  const RESUME_KEYS = [
    'tool_used', 'tool_name', 'query', ...RES, 'retrieval_stage', 'retrieved_chunks', 'complexity', 'complexity_reason',
    ...GRADE10,
  ];

  test('T28 resume with an answer → targeted retrieval for q*, answer, no new snapshot', () => {
    const r1 = chunk('r1');
    const models = scriptedModels({ retrieve: retrievalTable({ [QH_REFINED]: [r1] }), grades: [strongAnswer()] });

    const run = resumeRag(models, SNAPSHOT, '丹瑾');

    expect(models.calls).toEqual({
      planner: [],
      retrieval: [QH_REFINED],
      grader: [{ question: QH_REFINED, context: formatDocs([r1]) }],
      rewriter: [],
    });
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(run.docs).toEqual([r1]);
    expect(run.snapshot).toBeNull();
    // spec §9 T28: 23 non-R + 23 R = 46 keys; initial_retrieved_chunks and sub_questions absent.
    expect(keysOf(run.trace)).toEqual(keySet(RESUME_KEYS, R23));
    expect(keysOf(run.trace)).toHaveLength(46);
    expect(run.trace).toMatchObject({
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
    expect(pick(run.trace, R23)).toEqual(m0R23(1));
  });

  test('T29 an answer already contained in the question → retrieval for the unchanged question', () => {
    const question = '丹瑾的属性是什么？';
    const r1 = chunk('r1');
    const models = scriptedModels({ retrieve: retrievalTable({ [question]: [r1] }), grades: [strongAnswer()] });

    const run = resumeRag(models, { ...SNAPSHOT, question }, '丹瑾');

    expect(models.calls.retrieval).toEqual([question]);
    expect(run.trace.query).toBe(question);
    expect([run.route, run.retrievalStatus]).toEqual(['answer', 'answerable']);
    expect(keysOf(run.trace)).toEqual(keySet(RESUME_KEYS, R23));
  });

  test('T30 resume graded rewrite with budget 0 → route rewrite returned, not executed, no snapshot', () => {
    const r1 = chunk('r1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [QH_REFINED]: [r1] }),
      grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)],
    });

    const run = resumeRag(models, SNAPSHOT, '丹瑾');

    expect(models.calls.rewriter).toEqual([]);
    expect(models.calls.retrieval).toEqual([QH_REFINED]);
    expect([run.route, run.retrievalStatus]).toEqual(['rewrite', 'needs_rewrite']);
    expect(run.docs).toEqual([r1]);
    expect(run.snapshot).toBeNull();
    expect(run.trace).toMatchObject({ route: 'rewrite', retrieval_status: 'needs_rewrite', hitl_prompt: '' });
    expect(run.trace.retrieved_chunks).toEqual([traced(r1)]);
    expect(keysOf(run.trace)).toEqual(keySet(RESUME_KEYS, R23));
  });

  test('T31 resume with the budget used and partial evidence → clarify again with a snapshot on q*', () => {
    const r1 = chunk('r1');
    const models = scriptedModels({
      retrieve: retrievalTable({ [QH_REFINED]: [r1] }),
      grades: [grade('weak', 'partial', 'none', 'rewrite', 0.4)],
    });
    const snapshot = { ...SNAPSHOT, rewrite_count: 1, complexity: 'complex', complexity_reason: 'cmp', sub_questions: ['s1', 's2'] };

    const run = resumeRag(models, snapshot, '丹瑾');

    expect([run.route, run.retrievalStatus]).toEqual(['clarify', 'needs_clarification']);
    expect(run.trace.hitl_prompt).toBe(GENERIC_PROMPT);
    // spec §4.11.4 step 3: the new snapshot's question is q*, so a third turn merges on top of it.
    expect(run.snapshot).toEqual({
      question: QH_REFINED,
      route: 'clarify',
      retrieval_status: 'needs_clarification',
      rewrite_count: 1,
      complexity: 'complex',
      complexity_reason: 'cmp',
      sub_questions: ['s1', 's2'],
    });
    expect(keysOf(run.trace)).toEqual(keySet(RESUME_KEYS, ['sub_questions'], R23));
    expect(run.trace).toMatchObject({
      complexity: 'complex',
      complexity_reason: 'cmp',
      sub_questions: ['s1', 's2'],
      retrieved_chunks: [],
      hitl_targeted_retrieved_chunks: [traced(r1)],
    });
  });
});

describe('defensive rewrite branch (spec §4.7.2)', () => {
  test('T33 rewrite node with the budget used → terminal no_knowledge, evidence_reason rewrite_budget_exhausted', () => {
    const models = scriptedModels({ retrieve: retrievalTable({}) });

    const step = rewriteStep(models, Q1, 1, { query: Q1 });

    expect(models.calls).toEqual({ planner: [], retrieval: [], grader: [], rewriter: [] });
    expect(step).toEqual({
      kind: 'budget_exhausted',
      route: 'no_knowledge',
      retrievalStatus: 'no_knowledge',
      docs: [],
      context: '',
      rawTrace: {
        query: Q1,
        retrieval_status: 'no_knowledge',
        route: 'no_knowledge',
        evidence_reason: 'rewrite_budget_exhausted',
      },
    });
  });
});
