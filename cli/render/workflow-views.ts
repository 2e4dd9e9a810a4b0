import type { WorkflowHandle } from '@temporalio/client';
import type { RagStep } from '../../core/progress/rag-step';
import type { IngestBatchResult, IngestProgress } from '../../core/ingest/ingest-io';
import { normalizeRagTrace } from '../../core/trace/normalize';
import type { SubQuestionOutput } from '../../workflows/sub-question-workflow';
import { ingestProgressQuery, progressQuery } from '../../workflows/messages';
import { readIngestAttempts } from '../ingest-attempts';
import { renderIngestProgress, renderIngestSummary } from './ingest';
import { renderStep } from './progress';
import { renderTraceTree } from './trace-tree';

/*
 * `ragtime trace` of the workflows ragtime starts besides runs (issue 14 §11): a sub-question child
 * (`<run>/sub-<n>`) and an ingest batch. Each reads what its workflow has — its result once closed, its progress
 * query while it runs — and prints it in the words of `ask` and `ingest`.
 */

export type WorkflowState = { status: string; type: string; handle: WorkflowHandle };

const header = (kind: string, id: string, status: string) => `${kind} ${id}  ${status.toLowerCase()}`;

export async function renderSubQuestion({ status, handle }: WorkflowState): Promise<{ text: string; json: unknown }> {
  const id = handle.workflowId;
  const parent = id.replace(/\/sub-\d+$/, '');
  if (status === 'COMPLETED') {
    const output = (await handle.result()) as SubQuestionOutput;
    const { subResult } = output;
    const lines = [
      header('sub-question', id, status),
      `  of run ${parent}: "${subResult.question}"`,
      `  route=${subResult.route ?? '-'}  status=${subResult.retrieval_status ?? '-'}  evidence ${subResult.docs.length} chunk(s)${subResult.docs[0]?.filename ? `, top ${subResult.docs[0].filename}` : ''}`,
      renderTraceTree(normalizeRagTrace(subResult.rag_trace)),
    ];
    return { text: lines.join('\n'), json: output };
  }
  const steps: RagStep[] = status === 'RUNNING' ? await handle.query(progressQuery).catch(() => []) : [];
  const lines = [header('sub-question', id, status), `  of run ${parent}`, ...steps.map((step) => `  ${renderStep(step)}`)];
  return { text: lines.join('\n'), json: { workflowId: id, status: status.toLowerCase(), steps } };
}

export async function renderIngestBatch({ status, handle }: WorkflowState): Promise<{ text: string; json: unknown }> {
  const id = handle.workflowId;
  if (status === 'COMPLETED') {
    const result = (await handle.result()) as IngestBatchResult;
    return { text: `${header('ingest batch', id, status)}\n${renderIngestSummary(result)}`, json: result };
  }
  if (status === 'RUNNING') {
    const progress: IngestProgress = await handle.query(ingestProgressQuery);
    // What each running file waits on (issue 14 §5); the batch's progress stands without it.
    const attempts = await readIngestAttempts(handle).catch(() => []);
    return { text: `${header('ingest batch', id, status)}\n${renderIngestProgress(progress, attempts)}`, json: { workflowId: id, status: 'running', progress, attempts } };
  }
  return { text: `${header('ingest batch', id, status)}\n  (the batch did not complete: see its page in the Temporal UI)`, json: { workflowId: id, status: status.toLowerCase() } };
}
