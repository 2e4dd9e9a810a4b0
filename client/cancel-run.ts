import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { RagError } from '../core/errors';
import { MAX_SUB_QUESTIONS } from '../core/schemas/model-outputs';
import type { ExecutionStatus, RunCancellation } from '../core/schemas/run-cancellation';
import { subQuestionWorkflowId } from '../workflows/messages';
import { toRagError } from './errors';
import { executionStatusOf, runClosureOf } from './run-closure';

export type CancelRunOptions = {
  /** Why: kept in the run's history (in clear) and shown by `trace` and the outcome. */
  reason?: string;
  /** How long to wait for the run to close once asked (ms); 0: do not wait. */
  waitMs?: number;
};

const SUB_QUESTION_WORKFLOW = 'subQuestionWorkflow';

/**
 * Asks a run to stop (Temporal cancellation, issue 43 §6). The run's cancellation scope is cancelled: its waiting
 * model and retrieval activities are cancelled (delivered at their next heartbeat, activities/heartbeats.ts), its
 * sub-question children are cancelled with it, and the run records a `cancelled` audit event and closes CANCELLED.
 * A run that has already closed is left as it is (`cancelled: false`). An unknown run is UNKNOWN_RUN; a sub-question
 * is refused (INVALID_INPUT): cancel its run, which cancels the child.
 */
export async function cancelRun(temporal: Client, workflowId: string, { reason, waitMs = 0 }: CancelRunOptions = {}): Promise<RunCancellation> {
  const handle = temporal.workflow.getHandle(workflowId);
  try {
    const before = await handle.describe();
    if (before.type === SUB_QUESTION_WORKFLOW) {
      throw new RagError('INVALID_INPUT', `"${workflowId}" is a sub-question of another run; cancel that run (${workflowId.replace(/\/sub-\d+$/, '')}), which cancels its sub-questions`);
    }
    if (before.status.name !== 'RUNNING') {
      // The server accepts a cancel request for a closed run too and does nothing: say so instead.
      const closure = await runClosureOf(temporal, before);
      return { workflowId, cancelled: false, status: executionStatusOf(before.status.name), reason: closure?.reason ?? null, children: await childrenOf(temporal, workflowId) };
    }
    await temporal.workflowService.requestCancelWorkflowExecution({
      namespace: temporal.options.namespace,
      identity: temporal.options.identity,
      requestId: randomUUID(),
      workflowExecution: { workflowId, runId: before.runId },
      ...(reason ? { reason } : {}),
    });
    const status = waitMs > 0 ? await statusWithin(temporal, workflowId, waitMs) : 'running';
    return { workflowId, cancelled: true, status, reason: reason ?? null, children: await childrenOf(temporal, workflowId) };
  } catch (error) {
    throw toRagError(error, workflowId);
  }
}

/** The run's status once it is no longer running, or `running` when `waitMs` passed first. */
async function statusWithin(temporal: Client, workflowId: string, waitMs: number): Promise<ExecutionStatus> {
  const until = Date.now() + waitMs;
  for (;;) {
    const status = executionStatusOf((await temporal.workflow.getHandle(workflowId).describe()).status.name);
    if (status !== 'running' || Date.now() >= until) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The run's sub-question children (ids <run>/sub-<i>) that exist, with their status. */
async function childrenOf(temporal: Client, workflowId: string): Promise<RunCancellation['children']> {
  const children: RunCancellation['children'] = [];
  for (let index = 1; index <= MAX_SUB_QUESTIONS; index += 1) {
    const childId = subQuestionWorkflowId(workflowId, index);
    const description = await temporal.workflow.getHandle(childId).describe().catch(() => null);
    if (!description) break; // children are numbered from 1 without gaps
    children.push({ workflowId: childId, status: executionStatusOf(description.status.name) });
  }
  return children;
}
