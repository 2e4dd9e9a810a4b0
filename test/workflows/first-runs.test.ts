import { K18, R23, chunk, grade, keySet, keysOf, retrievalTable, stepBackPlan } from '../support/scenario';
import { openWorkflowEnv, sessionId, withWorker, type WorkflowEnv } from './harness';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await openWorkflowEnv();
}, 120_000);
afterAll(async () => env?.close());

const Q1 = '丹瑾是什么属性？';

test('T01 on Temporal: fast path answer', async () => {
  const c1 = chunk('丹瑾是湮灭属性角色。');
  await withWorker(env, { retrieve: retrievalTable({ [Q1]: [c1] }), grades: { [Q1]: [grade('strong', 'sufficient', 'none', 'answer', 0.95)] } }, async (rag, calls) => {
    const outcome = await rag.ask(Q1, { sessionId: sessionId() });
    expect(outcome.status).toBe('completed');
    expect(outcome.route).toBe('answer');
    expect(keysOf(outcome.rag_trace ?? {})).toEqual(keySet(K18, R23));
    expect(calls.planner).toEqual([]);
    const progress = await rag.getProgress(outcome.workflowId);
    expect(progress.map((step) => step.label)).toContain('快速判断为简单问题 → 走标准 RAG 流程');
  });
});

test('T11 on Temporal: rewrite then clarify, answered by update', async () => {
  const c1 = chunk('弱证据');
  const c2 = chunk('第二次');
  const rewritten = `${Q1}\n\n退步问题：角色属性体系是什么？`;
  const refined = '丹瑾：丹瑾是什么属性？';
  await withWorker(
    env,
    {
      retrieve: retrievalTable({ [Q1]: [c1], [rewritten]: [c2], ['v2：丹瑾是什么属性？']: [c2] }),
      grades: {
        [Q1]: [grade('weak', 'partial', 'none', 'rewrite', 0.44), grade('weak', 'partial', 'none', 'rewrite', 0.4)],
        ['v2：丹瑾是什么属性？']: [grade('strong', 'sufficient', 'none', 'answer', 0.9)],
      },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    },
    async (rag, calls) => {
      const first = await rag.ask(Q1, { sessionId: sessionId() });
      expect(first.status).toBe('awaiting_input');
      expect(first.route).toBe('clarify');
      expect(first.hitl?.round).toBe(1);
      expect(first.hitl_resume_state?.rewrite_count).toBe(1);
      const second = await rag.answer(first.workflowId, 'v2');
      expect(second.status).toBe('completed');
      expect(second.route).toBe('answer');
      expect(second.rag_trace?.hitl_answer).toBe('v2');
      expect(calls.rewriter).toHaveLength(1);
      expect(refined).toBeDefined();
    },
  );
});
