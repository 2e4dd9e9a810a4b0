import type { SubResult } from '../core/graph/synthesis';
import type { RagStep } from '../core/progress/rag-step';
import { RagRun } from '../core/run/rag-run';
import { gradeDocuments, retrieveInitial } from './graph-nodes';

export type SubQuestionInput = { question: string; index: number };
export type SubQuestionOutput = { subResult: SubResult; steps: RagStep[] };

/**
 * `rag_sub_agent` (spec §4.9): retrieve and grade one sub-question, with sub-agent routing (never a rewrite).
 * A fresh state: no complexity, no budget, no trace inherited from the parent.
 */
export async function subQuestionWorkflow(input: SubQuestionInput): Promise<SubQuestionOutput> {
  const run = new RagRun(Date.now());
  run.question = input.question;
  const group = { group: `子问题 ${input.index}`, groupLabel: input.question };
  await retrieveInitial(run, group);
  await gradeDocuments(run, true, group);
  return {
    subResult: {
      question: input.question,
      docs: run.docs,
      retrieval_status: run.retrievalStatus,
      route: run.route,
      rag_trace: run.trace,
    },
    steps: run.steps(),
  };
}
