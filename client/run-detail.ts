import type { RunDetail, RunRetrieval } from '../core/schemas/run-detail';
import type { RagOutcome } from '../core/schemas/run-io';
import { routePathOf } from '../core/trace/route-path';
import type { RetrievalRecord, RunRecord } from './run-record';

/*
 * A run's detail (issue 16) from the two places that know it: the outcome (route, evidence, rounds, trace) and the
 * history record (retrievals with diagnostics, stage times, grades). Pure: the reading happens in RagClient.
 */

const retrievalOf = (record: RetrievalRecord): RunRetrieval => ({
  workflowId: record.workflowId,
  purpose: record.purpose,
  query: record.query,
  docs: record.result.docs,
  meta: record.result.meta,
  diagnostics: record.result.diagnostics ?? null,
});

/** The run in the Temporal Web UI, as the CLI links it. */
export const temporalUiUrlOf = (baseUrl: string, namespace: string, workflowId: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;

export function runDetailOf(outcome: RagOutcome, record: RunRecord, temporalUiUrl: string | null): RunDetail {
  return {
    question: record.question,
    outcome,
    trace: outcome.rag_trace,
    path: routePathOf(outcome, record.question),
    retrievals: record.retrievals.map(retrievalOf),
    timings: record.stages,
    grades: record.grades,
    modelCalls: record.modelCalls,
    hitl: outcome.rounds,
    durationMs: record.durationMs,
    temporalUiUrl,
  };
}
