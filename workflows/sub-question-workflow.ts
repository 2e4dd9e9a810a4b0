import { setHandler, workflowInfo } from '@temporalio/workflow';
import type { SubResult } from '../core/graph/synthesis';
import type { FilterClause, MetadataFilters } from '../core/retrieval/metadata-filter';
import type { RetrievalHealthReport } from '../core/run/retrieval-health';
import type { RagStep } from '../core/progress/rag-step';
import type { ToolInvocationRecord } from '../core/schemas/audit';
import { subQuestionGroup } from '../core/progress/step-messages';
import { RagRun } from '../core/run/rag-run';
import { gradeDocuments, retrieveInitial } from './graph-nodes';
import { progressQuery } from './messages';
import { publishMemo } from './publish-state';
import { takeOnePatchFromParent } from './start-patches';

export type SubQuestionInput = {
  question: string;
  index: number;
  /** The parent run's start (workflow time), so the steps' elapsed_ms count from the request (spec §4.13). */
  progressOrigin?: number;
  /** The parent run's knowledge base (absent: the worker's default). */
  kb?: string;
  /** The parent run's filters and forced clauses (issue 44; absent: none). */
  filters?: MetadataFilters;
  forced?: FilterClause[];
  /** The parent recorded ONE_PATCH: this run asks no patch either (absent in children started before it). */
  onePatch?: boolean;
};
export type SubQuestionOutput = {
  subResult: SubResult;
  steps: RagStep[];
  /**
   * The sub-question's audit row (step "sub-<index>"), recorded by the parent under its own ids. Absent in results
   * recorded before the audit existed. Filling it creates no command, so it needs no patch.
   */
  audit?: ToolInvocationRecord;
  /** Its retrievals and whether they read the knowledge base (absent in older results; no command, no patch). */
  retrievalHealth?: RetrievalHealthReport;
  /** The knowledge base its retrieval read (absent in older results, or when it did not say; no command, no patch). */
  kbRead?: string;
};

/**
 * `rag_sub_agent` (spec §4.9): retrieve and grade one sub-question, with sub-agent routing (never a rewrite).
 * A fresh state: no complexity, no budget, no trace inherited from the parent.
 */
export async function subQuestionWorkflow(input: SubQuestionInput): Promise<SubQuestionOutput> {
  const run = new RagRun(input.progressOrigin ?? Date.now());
  run.question = input.question;
  run.kb = input.kb ?? null;
  run.filters = input.filters ?? null;
  run.forced = input.forced ?? [];
  if (input.onePatch) takeOnePatchFromParent(run);
  run.audit.forSubQuestion(input.index);
  // Message handlers
  setHandler(progressQuery, () => run.steps());

  const group = { group: subQuestionGroup(input.index), groupLabel: input.question };
  await retrieveInitial(run, group);
  await gradeDocuments(run, true, group);
  publishMemo(run);
  const info = workflowInfo();
  // Keyed with the child's ids here; the parent re-keys it with its own (it knows the session, the child does not).
  const audit = run.audit.take({ sessionId: '', workflowId: info.workflowId, runId: info.runId })?.invocations[0];
  return {
    subResult: {
      question: input.question,
      docs: run.docs,
      retrieval_status: run.retrievalStatus,
      route: run.route,
      rag_trace: run.trace,
    },
    steps: run.steps(),
    ...(audit ? { audit } : {}),
    retrievalHealth: run.retrievalHealth.report(),
    ...(run.kbRead === null ? {} : { kbRead: run.kbRead }),
  };
}
