import type { Client } from '@temporalio/client';
import type { SyncPassReport } from '../../core/sync/sync-io';
import { syncScheduleId } from '../../core/sync/sync-io';
import { pollUntil } from './services';

/*
 * Waiting on a synced source's passes (issue 46) in tests: the schedule starts them, so a test learns a pass's
 * workflow id from the schedule's recent actions and waits for its result.
 */

/**
 * A pass the schedule started. Its workflow id is the schedule's id and the second it was due, so two passes in one
 * second share it (the second starts once the first has closed): a pass is told apart by its run id.
 */
export type PassRun = { workflowId: string; runId: string };

/** The passes the source's schedule has started so far (its recent actions). */
export async function passIds(temporal: Client, source: string): Promise<PassRun[]> {
  const description = await temporal.schedule.getHandle(syncScheduleId(source)).describe();
  return description.info.recentActions.map(({ action }) => ({ workflowId: action.workflow.workflowId, runId: action.workflow.firstExecutionRunId }));
}

/** Waits until the schedule has started `count` passes after those in `before`; oldest first. */
export async function newPasses(temporal: Client, source: string, before: readonly PassRun[], count = 1): Promise<PassRun[]> {
  const seen = new Set(before.map((run) => run.runId));
  return pollUntil(`${count} new pass(es) of ${source}`, async () => {
    const started = (await passIds(temporal, source)).filter((run) => !seen.has(run.runId));
    return started.length >= count ? started : undefined;
  }, { timeoutMs: 60_000, intervalMs: 200 });
}

/** The pass's report, or the error it failed with (`{ failure }`). */
export async function passOutcome(temporal: Client, run: PassRun): Promise<SyncPassReport | { failure: { type: string; message: string } }> {
  try {
    return (await temporal.workflow.getHandle(run.workflowId, run.runId).result()) as SyncPassReport;
  } catch (error) {
    const cause = (error as { cause?: { type?: string; message?: string } }).cause;
    return { failure: { type: cause?.type ?? 'UNKNOWN', message: cause?.message ?? String(error) } };
  }
}
