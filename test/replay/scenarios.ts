import { chunk, grade, hydePlan, plannerResult, retrievalTable, stepBackPlan } from '../support/scenario';
import type { AdapterScript } from '../workflows/harness';
import type { RagClient } from '../../client/rag-client';
import type { RagOutcome } from '../../core/schemas/run-io';

/*
 * One run per path of the graph, recorded as histories for the replay test (test/replay/replay.test.ts). A change of
 * workflow code that alters the commands these histories recorded fails replay: put it behind patched().
 */

export type ReplayScenario = {
  name: string;
  script: AdapterScript;
  /** The worker keeps session turns (an in-memory store), so a later run of the session is a follow-up. */
  withTurns?: boolean;
  run: (rag: RagClient, sessionId: string) => Promise<RagOutcome>;
};

const Q1 = '丹瑾是什么属性？';
const QC = '比较丹瑾与卡卡罗的战斗定位';
const SUBS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
const strong = grade('strong', 'sufficient', 'none', 'answer', 0.95);
const weakRewrite = grade('weak', 'partial', 'none', 'rewrite', 0.44);
const clarify = grade('strong', 'partial', 'missing_slot', 'clarify', 0.6, { missing_slots: ['版本'] });
const c1 = chunk('丹瑾是湮灭属性角色。');
const c2 = chunk('角色属性体系。');

const QF1 = '丹瑾的属性是什么？';
const QF2 = '它的战斗定位呢？';
const QF2_STANDALONE = '丹瑾的战斗定位呢？';

export const REPLAY_SCENARIOS: ReplayScenario[] = [
  {
    // Issue 44 §5 (INTENT_PATCH): a greeting is answered without retrieval — no activity of the graph is scheduled.
    name: 'greeting',
    script: { retrieve: retrievalTable({}) },
    run: (rag, sessionId) => rag.ask('你好', { sessionId }),
  },
  {
    // Issue 44 §5: a question about the conversation, answered from the session's turns without retrieval.
    name: 'conversation-meta',
    withTurns: true,
    script: { retrieve: retrievalTable({ [QF1]: [c1] }), planner: plannerResult('simple', '单一事实查询', []), grades: { [QF1]: [strong] } },
    run: async (rag, sessionId) => {
      await rag.ask(QF1, { sessionId });
      return rag.ask('我刚才问了什么？', { sessionId });
    },
  },
  {
    // Issue 25 §1: the second turn of a session, condensed by the offline rules before the graph runs on it.
    name: 'follow-up',
    withTurns: true,
    script: {
      retrieve: retrievalTable({ [QF1]: [c1], [QF2_STANDALONE]: [c1] }),
      planner: plannerResult('simple', '单一事实查询', []),
      grades: { [QF1]: [strong], [QF2_STANDALONE]: [strong] },
    },
    run: async (rag, sessionId) => {
      await rag.ask(QF1, { sessionId });
      return rag.ask(QF2, { sessionId });
    },
  },
  {
    name: 'simple-answer',
    script: { retrieve: retrievalTable({ [Q1]: [c1] }), grades: { [Q1]: [strong] } },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId }),
  },
  {
    name: 'simple-no-docs',
    script: { retrieve: retrievalTable({ [Q1]: [] }) },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId }),
  },
  {
    name: 'planner-simple',
    script: {
      retrieve: retrievalTable({ '请介绍一下这个系统的整体部署架构设计思路': [c1] }),
      planner: plannerResult('simple', '单一事实查询', []),
      grades: { '请介绍一下这个系统的整体部署架构设计思路': [strong] },
    },
    run: (rag, sessionId) => rag.ask('请介绍一下这个系统的整体部署架构设计思路', { sessionId }),
  },
  {
    name: 'step-back-rewrite',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`${Q1}\n\n退步问题：角色属性体系是什么？`]: [c2] }),
      grades: { [Q1]: [weakRewrite, strong] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId }),
  },
  {
    name: 'hyde-rewrite',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`${Q1}\n\n假设性答案文档：丹瑾是一名湮灭属性角色。`]: [c2] }),
      grades: { [Q1]: [weakRewrite, strong] },
      rewritePlans: [hydePlan('丹瑾是一名湮灭属性角色。')],
    },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId }),
  },
  {
    name: 'complex-synthesis',
    script: {
      retrieve: retrievalTable({ [SUBS[0] as string]: [c1], [SUBS[1] as string]: [c2] }),
      planner: plannerResult('complex', '涉及多维度比较', SUBS),
      grades: { [SUBS[0] as string]: [strong], [SUBS[1] as string]: [strong] },
    },
    run: (rag, sessionId) => rag.ask(QC, { sessionId }),
  },
  {
    name: 'hitl-answered-by-update',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`v2：${Q1}`]: [c2] }),
      grades: { [Q1]: [clarify], [`v2：${Q1}`]: [strong] },
    },
    run: async (rag, sessionId) => {
      const first = await rag.ask(Q1, { sessionId });
      return rag.answer(first.workflowId, 'v2');
    },
  },
  {
    name: 'hitl-timeout',
    script: { retrieve: retrievalTable({ [Q1]: [c1] }), grades: { [Q1]: [clarify] } },
    run: async (rag, sessionId) => {
      const first = await rag.ask(Q1, { sessionId, hitl: { answerTimeoutMs: 1000 } });
      for (;;) {
        const outcome = await rag.getOutcome(first.workflowId);
        if (outcome.status !== 'awaiting_input') return outcome;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  },
  {
    // The run is cancelled while it waits (an MCP client cancelled its tool call): a `cancelled` audit event, CANCELLED.
    name: 'hitl-cancelled',
    script: { retrieve: retrievalTable({ [Q1]: [c1] }), grades: { [Q1]: [clarify] } },
    run: async (rag, sessionId) => {
      const first = await rag.ask(Q1, { sessionId });
      await rag.cancel(first.workflowId);
      return first;
    },
  },
  {
    name: 'resume-from-snapshot',
    script: { retrieve: retrievalTable({ [`丹瑾：这个角色的属性是什么？`]: [c1] }), grades: { ['丹瑾：这个角色的属性是什么？']: [strong] } },
    run: (rag, sessionId) =>
      rag.ask(undefined, {
        sessionId,
        resumeFrom: {
          snapshot: {
            question: '这个角色的属性是什么？', route: 'clarify', retrieval_status: 'needs_clarification', rewrite_count: 0,
            complexity: 'simple', complexity_reason: 'obvious_simple_fast_path:single_fact_marker', sub_questions: [],
          },
          answer: '丹瑾',
        },
      }),
  },
  {
    name: 'invalid-resume-snapshot',
    script: { retrieve: retrievalTable({}) },
    run: (rag, sessionId) => rag.ask(undefined, { sessionId, resumeFrom: { snapshot: { question: 'q', route: 'answer' }, answer: 'x' } }),
  },
  // Speculation (issue 17 §2, SPECULATION_PATCH) at its highest level: what runs beside the planner and the grader.
  {
    // The planner says simple: the retrieval, grade and answer draft started beside it are used.
    name: 'speculative-planner',
    script: {
      retrieve: retrievalTable({ '请介绍一下这个系统的整体部署架构设计思路': [c1] }),
      planner: plannerResult('simple', '单一事实查询', []),
      grades: { '请介绍一下这个系统的整体部署架构设计思路': [strong] },
    },
    run: (rag, sessionId) => rag.ask('请介绍一下这个系统的整体部署架构设计思路', { sessionId, speculation: 'answer' }),
  },
  {
    // Issue 26 §5: the planner's first reply breaks its schema; the workflow sees the failed attempt, drops what ran
    // beside it, and tries again after the backoff; the second reply plans.
    name: 'speculative-planner-retried',
    script: {
      retrieve: retrievalTable({ '请介绍一下这个系统的整体部署架构设计思路': [c1] }),
      retrieveDelayMs: 300,
      plannerReplies: [{ complexity: 'medium', reason: '?', sub_questions: [] }],
      planner: plannerResult('simple', '单一事实查询', []),
      grades: { '请介绍一下这个系统的整体部署架构设计思路': [strong] },
    },
    run: (rag, sessionId) => rag.ask('请介绍一下这个系统的整体部署架构设计思路', { sessionId, speculation: 'answer' }),
  },
  {
    // The planner says complex: what ran beside it is cancelled and dropped.
    name: 'speculative-complex',
    script: {
      retrieve: retrievalTable({ [QC]: [c1], [SUBS[0] as string]: [c1], [SUBS[1] as string]: [c2] }),
      planner: plannerResult('complex', '涉及多维度比较', SUBS),
      grades: { [QC]: [strong], [SUBS[0] as string]: [strong], [SUBS[1] as string]: [strong] },
    },
    run: (rag, sessionId) => rag.ask(QC, { sessionId, speculation: 'answer' }),
  },
  {
    // The first grade rewrites: its draft is dropped; the draft beside the second grade is used.
    name: 'speculative-rewrite',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`${Q1}\n\n退步问题：角色属性体系是什么？`]: [c2] }),
      grades: { [Q1]: [weakRewrite, strong] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId, speculation: 'answer' }),
  },
  {
    // The grade asks a person: its draft is dropped; after the answer, the draft beside the resume's grade is used.
    name: 'speculative-hitl',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`v2：${Q1}`]: [c2] }),
      grades: { [Q1]: [clarify], [`v2：${Q1}`]: [strong] },
    },
    run: async (rag, sessionId) => {
      const first = await rag.ask(Q1, { sessionId, speculation: 'answer' });
      return rag.answer(first.workflowId, 'v2');
    },
  },
  {
    // Level rewrite: the rewrite planned and retrieved beside the first grade is used when that grade rewrites.
    name: 'speculative-rewrite-level',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1], [`${Q1}\n\n退步问题：角色属性体系是什么？`]: [c2] }),
      grades: { [Q1]: [weakRewrite, strong] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId, speculation: 'rewrite' }),
  },
  {
    // Level rewrite: the grade answers at once, so the rewrite started beside it is dropped (cancelled).
    name: 'speculative-rewrite-dropped',
    script: {
      retrieve: retrievalTable({ [Q1]: [c1] }),
      grades: { [Q1]: [strong] },
      rewritePlans: [stepBackPlan('角色属性体系是什么？')],
    },
    run: (rag, sessionId) => rag.ask(Q1, { sessionId, speculation: 'rewrite' }),
  },
];
