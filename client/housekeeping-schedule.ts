import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { HOUSEKEEPING_EVERY, HousekeepingInput, housekeepingScheduleId } from '../core/housekeeping/housekeeping-io';
import type { housekeepingWorkflow } from '../workflows/housekeeping-workflow';

/*
 * The deployment's housekeeping schedule (issue 35 §1): a Temporal Schedule, so it survives restarts of workers and
 * of the server, runs once whichever worker is up, and is listed (with its recent passes) in the Temporal UI. The
 * worker keeps it at start-up with its own settings; a changed RAGTIME_RETENTION_DAYS updates it.
 */

export type HousekeepingSchedule = { scheduleId: string; created: boolean; input: HousekeepingInput };

/** Creates the task queue's housekeeping schedule, or updates the one that exists to `input`. */
export async function keepHousekeepingSchedule(temporal: Client, taskQueue: string, rawInput: HousekeepingInput): Promise<HousekeepingSchedule> {
  const input = HousekeepingInput.parse(rawInput);
  const scheduleId = housekeepingScheduleId(taskQueue);
  const action = {
    type: 'startWorkflow',
    workflowType: 'housekeepingWorkflow',
    workflowId: scheduleId,
    taskQueue,
    args: [input],
    // A pass that no worker takes (all stopped) ends instead of piling up; the next one catches up.
    workflowExecutionTimeout: '30 minutes',
  } satisfies ScheduleOptionsStartWorkflowAction<typeof housekeepingWorkflow>;
  try {
    await temporal.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: HOUSEKEEPING_EVERY }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { ragtime: 'housekeeping', taskQueue },
    });
    return { scheduleId, created: true, input };
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await temporal.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, action }));
  return { scheduleId, created: false, input };
}

/** The schedule's settings as the worker's start-up line says them. */
export const describeHousekeeping = (schedule: HousekeepingSchedule): string =>
  `schedule ${schedule.scheduleId} every ${HOUSEKEEPING_EVERY} (${schedule.created ? 'created' : 'kept'}): answer stream of runs quiet ${schedule.input.answerStreamKeepMinutes ?? 10} min` +
  `, audit rows and session turns ${schedule.input.retentionDays === null ? 'kept (RAGTIME_RETENTION_DAYS unset)' : `older than ${schedule.input.retentionDays} days`}`;
