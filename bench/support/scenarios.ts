import type { ChatModels, Retriever } from '../../activities/ports';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../../core/schemas/model-outputs';
import { ZERO_LATENCY, isZeroLatency, providerDelays, type LatencyModel } from './latency';
import { offlineWriteAnswer } from '../../activities/adapters/offline-chat-models';
import type { RetrievalResult } from '../../core/trace/writers';
import { chunk, metaM0, runRag, type Calls, type Models, type RunOutcome } from '../../test/support/scenario';

/*
 * The benchmark scenarios, with zero-latency adapters: retrieval and every model reply are answered at once, so a
 * run costs only the graph code plus whatever carries it (Temporal, or nothing for the in-process comparison).
 *
 * The adapters are stateless — the reply depends only on the question — so any number of runs may share them at any
 * concurrency (the test harness queues grades per question instead, which only works for one run at a time).
 */

/** spec §9 Q1: takes the fast path (属性 + 是什么 → single_fact_marker): one retrieval, one grade → answer. */
export const SIMPLE_QUESTION = '丹瑾是什么属性？';
/** No marker of the fast path (spec §4.2.1) and longer than 18 characters: the planner decides, and says simple. */
export const PLANNER_QUESTION = '请详细介绍一下丹瑾在队伍里的常见配队思路';
/** Fast path; its first grade asks for a rewrite (step back), the grade of the rewritten retrieval answers. */
export const REWRITE_QUESTION = '卡卡罗是什么属性？';
export const REWRITE_STEP_BACK = '卡卡罗的基础资料';
/** "比较" and "与" are complex markers, so the planner decides: 3 sub-question children, then synthesis. */
export const COMPLEX_QUESTION = '比较丹瑾、卡卡罗与维里奈的战斗定位';
export const SUB_QUESTIONS = ['丹瑾的战斗定位', '卡卡罗的战斗定位', '维里奈的战斗定位'];
/** spec §9 T28's question: fast path; its grade is a missing-slot clarify (spec §9 T06), so the run parks. */
export const PARK_QUESTION = '这个角色的属性是什么？';
/** The person's answer: the resume (spec §4.11) retrieves and grades q* = "丹瑾：这个角色的属性是什么？" → answer. */
export const PARK_ANSWER = '丹瑾';

/** The peer's scenario names (../shared/peers/langgraph-bench/bench.mjs), each the same path through the graph. */
export type ScenarioName = 'fast' | 'planner' | 'rewrite' | 'complex' | 'hitl';
export const SCENARIOS: Record<ScenarioName, { question: string; what: string; answer?: string }> = {
  fast: { question: SIMPLE_QUESTION, what: 'fast path → retrieve → grade → answer' },
  planner: { question: PLANNER_QUESTION, what: 'planner says simple → retrieve → grade → answer' },
  rewrite: { question: REWRITE_QUESTION, what: 'fast path → retrieve → grade says rewrite → rewrite → retrieve → grade → answer' },
  complex: { question: COMPLEX_QUESTION, what: 'planner → 3 sub-question children (retrieve + grade each) → synthesis → answer' },
  hitl: { question: PARK_QUESTION, answer: PARK_ANSWER, what: 'fast path → retrieve → grade says clarify → wait; answer → retrieve → grade → answer' },
};
/** Earlier name of `fast` (the numbers of 2026-11-30 call it simple). */
export const SCENARIO_ALIASES: Record<string, ScenarioName> = { simple: 'fast' };

/** Raw model replies, as a provider would return them before the activity validates them. */
const PLAN_REPLY = { complexity: 'complex', reason: '涉及多维度比较', sub_questions: SUB_QUESTIONS };
const SIMPLE_PLAN_REPLY = { complexity: 'simple', reason: '单一主题', sub_questions: [] };
const ANSWER_GRADE = { relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: 0.9 };
const REWRITE_GRADE = { relevance: 'weak', answerability: 'partial', ambiguity: 'none', route: 'rewrite', confidence: 0.4 };
const REWRITE_PLAN = { method: 'step_back', step_back_question: REWRITE_STEP_BACK, hyde_document: '' };
const CLARIFY_GRADE = {
  relevance: 'strong',
  answerability: 'partial',
  ambiguity: 'missing_slot',
  route: 'clarify',
  confidence: 0.6,
  missing_slots: ['角色'],
  hitl_prompt: '请补充角色名',
};

/** Two leaf chunks with meta M0, whatever the query: a fresh copy per call, as a real retrieval returns. */
export function instantRetrieval(query: string): RetrievalResult {
  return {
    docs: [chunk(`${query}：湮灭属性。`, { score: 0.9 }), chunk(`${query}：资料二。`, { score: 0.6 })],
    meta: metaM0(2),
  };
}

function planReply(question: string): unknown {
  if (question === COMPLEX_QUESTION) return PLAN_REPLY;
  if (question === PLANNER_QUESTION) return SIMPLE_PLAN_REPLY;
  throw new Error(`bench planner asked about an unexpected question: ${question}`);
}

/** The reply depends on the question and on whether the evidence (its formatted context) names the rewritten query. */
function gradeReply(question: string, context: string): unknown {
  if (question === PARK_QUESTION) return CLARIFY_GRADE;
  if (question === REWRITE_QUESTION && !context.includes(REWRITE_STEP_BACK)) return REWRITE_GRADE;
  return ANSWER_GRADE;
}

function rewriteReply(question: string): unknown {
  if (question !== REWRITE_QUESTION) throw new Error(`bench rewriter asked about an unexpected question: ${question}`);
  return REWRITE_PLAN;
}

/**
 * The adapters of the Temporal side: the real activity code (validation, routing, trace fragments, the extractive
 * answer writer) runs on them; each call first sleeps as the latency model says (support/latency.ts).
 */
export function benchAdapters(latency: LatencyModel = ZERO_LATENCY): { models: ChatModels; retriever: Retriever } {
  const delays = providerDelays(latency);
  return {
    models: {
      describe: isZeroLatency(latency) ? 'bench zero-latency' : `bench llm=${latency.llmMs}ms embed=${latency.embedMs}ms search=${latency.searchMs}ms jitter=${latency.jitter}`,
      planComplexity: async (question) => {
        await delays.llm();
        return planReply(question);
      },
      gradeEvidence: async (question, context) => {
        await delays.llm();
        return gradeReply(question, context);
      },
      planRewrite: async (question) => {
        await delays.llm();
        return rewriteReply(question);
      },
      answerModel: 'bench extractive',
      writeAnswer: async (request) => {
        await delays.llm();
        return offlineWriteAnswer(request);
      },
    },
    retriever: {
      retrieve: async (query) => {
        await delays.retrieval();
        return instantRetrieval(query);
      },
    },
  };
}

export const zeroLatencyAdapters = () => benchAdapters(ZERO_LATENCY);

/**
 * The in-process side: the pure scenario driver `runRag` (test/support/scenario.ts), the same graph composed from the
 * same core/ functions without Temporal. Its models validate the raw replies with the same zod schemas the activities
 * use, so both sides do the same work per model reply.
 */
export function inProcessModels(): Models {
  const calls: Calls = { planner: [], retrieval: [], grader: [], rewriter: [] };
  return {
    calls,
    plan: (question) => ComplexityResult.parse(planReply(question)),
    retrieve: (query) => instantRetrieval(query),
    grade: (question, context) => EvidenceGrade.parse(gradeReply(question, context)),
    rewrite: (question) => RewritePlan.parse(rewriteReply(question)),
  };
}

/** One in-process run; throws unless it ends as the Temporal run does (route answer). */
export function runInProcess(models: Models, question: string): RunOutcome {
  const outcome = runRag(models, question);
  if (outcome.route !== 'answer') throw new Error(`in-process run ended with route ${outcome.route}, expected answer`);
  return outcome;
}
