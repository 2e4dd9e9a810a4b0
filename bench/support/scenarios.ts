import type { ChatModels, Retriever } from '../../activities/ports';
import { ComplexityResult, EvidenceGrade } from '../../core/schemas/model-outputs';
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
/** spec §9 T19: "比较" is a complex marker, so the planner decides: 2 sub-question children, then synthesis. */
export const COMPLEX_QUESTION = '比较丹瑾与卡卡罗的战斗定位';
export const SUB_QUESTIONS = ['丹瑾的战斗定位', '卡卡罗的战斗定位'];
/** spec §9 T28's question: fast path; its grade is a missing-slot clarify (spec §9 T06), so the run parks. */
export const PARK_QUESTION = '这个角色的属性是什么？';
/** The person's answer: the resume (spec §4.11) retrieves and grades q* = "丹瑾：这个角色的属性是什么？" → answer. */
export const PARK_ANSWER = '丹瑾';

export type ScenarioName = 'simple' | 'complex';
export const SCENARIOS: Record<ScenarioName, { question: string; what: string }> = {
  simple: { question: SIMPLE_QUESTION, what: 'fast path → 1 retrieval → 1 grade → answer' },
  complex: { question: COMPLEX_QUESTION, what: 'planner → 2 sub-question children (retrieve + grade each) → synthesis' },
};

/** Raw model replies, as a provider would return them before the activity validates them. */
const PLAN_REPLY = { complexity: 'complex', reason: '涉及多维度比较', sub_questions: SUB_QUESTIONS };
const ANSWER_GRADE = { relevance: 'strong', answerability: 'sufficient', ambiguity: 'none', route: 'answer', confidence: 0.9 };
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
  if (question !== COMPLEX_QUESTION) throw new Error(`bench planner asked about an unexpected question: ${question}`);
  return PLAN_REPLY;
}

const gradeReply = (question: string): unknown => (question === PARK_QUESTION ? CLARIFY_GRADE : ANSWER_GRADE);

/** The adapters of the Temporal side: the real activity code (validation, routing, trace fragments) runs on them. */
export function zeroLatencyAdapters(): { models: ChatModels; retriever: Retriever } {
  return {
    models: {
      describe: 'bench zero-latency',
      planComplexity: async (question) => planReply(question),
      gradeEvidence: async (question) => gradeReply(question),
      planRewrite: async () => {
        throw new Error('bench scenarios never rewrite');
      },
      answerModel: 'bench extractive',
      writeAnswer: offlineWriteAnswer,
    },
    retriever: { retrieve: async (query) => instantRetrieval(query) },
  };
}

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
    grade: (question) => EvidenceGrade.parse(gradeReply(question)),
    rewrite: () => {
      throw new Error('bench scenarios never rewrite');
    },
  };
}

/** One in-process run; throws unless it ends as the Temporal run does (route answer). */
export function runInProcess(models: Models, question: string): RunOutcome {
  const outcome = runRag(models, question);
  if (outcome.route !== 'answer') throw new Error(`in-process run ended with route ${outcome.route}, expected answer`);
  return outcome;
}
