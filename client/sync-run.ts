import { ScheduleOverlapPolicy, WorkflowFailedError, type Client } from '@temporalio/client';
import { RagError } from '../core/errors';
import { syncScheduleId, type SyncPassReport, type SyncProgress } from '../core/sync/sync-io';
import { syncProgressQuery } from '../workflows/messages';

/*
 * `ragtime sync run --wait` (issue 46 §4): start a pass and follow it to its report. The schedule starts the pass, so
 * it is found among the schedule's actions as the first one not there before (told apart by run id: two passes in
 * one second share a workflow id), then its progress is queried until it closes.
 */

type PassRun = { workflowId: string; runId: string };

const actionsOf = async (temporal: Client, source: string): Promise<PassRun[]> => {
  const info = (await temporal.schedule.getHandle(syncScheduleId(source)).describe()).info;
  return [...info.recentActions.map((a) => a.action), ...info.runningActions].map((action) => ({ workflowId: action.workflow.workflowId, runId: action.workflow.firstExecutionRunId }));
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Triggers a pass (BUFFER_ONE: after the running one) and resolves to its report; `onProgress` gets each new
 * progress. A pass that fails rejects with its error code (SOURCE_UNAVAILABLE, MASS_DELETE_REFUSED, …).
 *
 * @example
 * const report = await runSyncAndWait(client, 'handbook', (p) => console.error(`${p.ingested}/${p.to_ingest}`));
 */
export async function runSyncAndWait(temporal: Client, source: string, onProgress: (progress: SyncProgress) => void = () => undefined, options: { pollMs?: number; timeoutMs?: number } = {}): Promise<SyncPassReport> {
  const { pollMs = 500, timeoutMs = 6 * 3600_000 } = options;
  const deadline = Date.now() + timeoutMs;
  const before = new Set((await actionsOf(temporal, source)).map((run) => run.runId));
  await temporal.schedule.getHandle(syncScheduleId(source)).trigger(ScheduleOverlapPolicy.BUFFER_ONE);
  let pass: PassRun | undefined;
  while (!pass) {
    if (Date.now() > deadline) throw new RagError('SERVICE_UNAVAILABLE', `no pass of ${source} started; is a ragtime worker polling the task queue?`);
    await sleep(pollMs);
    pass = (await actionsOf(temporal, source)).find((run) => !before.has(run.runId));
  }
  const handle = temporal.workflow.getHandle(pass.workflowId, pass.runId);
  let last = '';
  for (;;) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') break;
    const progress = await handle.query(syncProgressQuery).catch(() => null);
    if (progress && JSON.stringify(progress) !== last) {
      last = JSON.stringify(progress);
      onProgress(progress);
    }
    await sleep(pollMs);
  }
  // A pass that ended before the first look still shows where it got to (a closed run answers the query too).
  if (last === '') {
    const progress = await handle.query(syncProgressQuery).catch(() => null);
    if (progress) onProgress(progress);
  }
  try {
    return (await handle.result()) as SyncPassReport;
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? (error.cause as { type?: string; message?: string } | undefined) : undefined;
    throw new RagError(cause?.type === 'SOURCE_UNAVAILABLE' || cause?.type === 'MASS_DELETE_REFUSED' ? cause.type : 'INTERNAL', cause?.message ?? String(error), { cause: error });
  }
}
