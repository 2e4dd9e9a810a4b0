import type { WorkflowHandle } from '@temporalio/client';
import { pollUntil } from './services';

/**
 * The status a run closed with, read until Temporal no longer lists it RUNNING. A cancellation is a request: the
 * audit (and the caller) see it at once, Temporal closes the run when a workflow task has processed it — a moment
 * later on a busy machine, where a single describe() read RUNNING once under make test's load.
 */
export async function closedStatus(handle: Pick<WorkflowHandle, 'describe'>, timeoutMs = 20_000): Promise<string> {
  return pollUntil('the run closed', async () => {
    const { status } = await handle.describe();
    return status.name === 'RUNNING' ? undefined : status.name;
  }, { timeoutMs, intervalMs: 100 });
}
