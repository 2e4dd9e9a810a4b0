import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { RunClosure } from '../core/run/run-closure';
import type { ExecutionStatus } from '../core/schemas/run-cancellation';

/*
 * How Temporal closed a run from outside (issue 43 §6), read from the server: the execution's status and, from the
 * end of its history, the reason — a cancel request's `cause` (`ragtime cancel --reason`), a termination's `reason`.
 * Neither is a payload, so this reads with any codec keys, or none.
 */

const STATUS_WORDS: Record<string, ExecutionStatus> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

/** Temporal's status name (`describe().status.name`) in ragtime's words; an unknown one reads as failed. */
export const executionStatusOf = (name: string): ExecutionStatus => STATUS_WORDS[name] ?? 'failed';

/** History events read from the end, at most, to find the cancel request (a cancelled run's last events are its cleanup). */
const REASON_EVENTS_READ = 500;

/** The closure of a described run, or null when it runs, completed or failed on its own. */
export async function runClosureOf(temporal: Client, description: Pick<WorkflowExecutionDescription, 'workflowId' | 'runId' | 'status'>): Promise<RunClosure | null> {
  const status = executionStatusOf(description.status.name);
  if (status !== 'cancelled' && status !== 'terminated' && status !== 'timed_out') return null;
  // A run closed without a readable history (deleted since, no permission) still says how it closed.
  const reason = status === 'timed_out' ? null : await closureReason(temporal, description.workflowId, description.runId).catch(() => null);
  return { how: status, reason };
}

/** The reason of the last cancel request or of the termination, newest events first; null when none was given. */
async function closureReason(temporal: Client, workflowId: string, runId: string): Promise<string | null> {
  let nextPageToken: Uint8Array | undefined;
  let read = 0;
  do {
    const page = await temporal.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: temporal.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const event of page.history?.events ?? []) {
      read += 1;
      if (event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED) {
        return event.workflowExecutionTerminatedEventAttributes?.reason || null;
      }
      if (event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED) {
        return event.workflowExecutionCancelRequestedEventAttributes?.cause || null;
      }
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken && read < REASON_EVENTS_READ);
  return null;
}
