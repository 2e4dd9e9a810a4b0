import type { temporal } from '@temporalio/proto';
import type { Stage, StageStatus } from '../core/schemas/run-detail';

/*
 * The bars of a run's waterfall (issue 16), read from one workflow's history: each activity and each child
 * workflow it started, with the times the server recorded (scheduled, started, closed). Times stay absolute (ms since
 * the epoch) here; the reader subtracts the run's start.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export const eventMillis = (time: HistoryEvent['eventTime']): number =>
  time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;

const closing = (event: HistoryEvent): { id: string; status: StageStatus } | null => {
  const activity =
    (event.activityTaskCompletedEventAttributes && ['completed', event.activityTaskCompletedEventAttributes] as const) ||
    (event.activityTaskFailedEventAttributes && ['failed', event.activityTaskFailedEventAttributes] as const) ||
    (event.activityTaskTimedOutEventAttributes && ['timed_out', event.activityTaskTimedOutEventAttributes] as const) ||
    (event.activityTaskCanceledEventAttributes && ['cancelled', event.activityTaskCanceledEventAttributes] as const);
  if (activity) return { id: String(activity[1].scheduledEventId), status: activity[0] };
  const child =
    (event.childWorkflowExecutionCompletedEventAttributes && ['completed', event.childWorkflowExecutionCompletedEventAttributes] as const) ||
    (event.childWorkflowExecutionFailedEventAttributes && ['failed', event.childWorkflowExecutionFailedEventAttributes] as const) ||
    (event.childWorkflowExecutionTimedOutEventAttributes && ['timed_out', event.childWorkflowExecutionTimedOutEventAttributes] as const) ||
    (event.childWorkflowExecutionCanceledEventAttributes && ['cancelled', event.childWorkflowExecutionCanceledEventAttributes] as const) ||
    (event.childWorkflowExecutionTerminatedEventAttributes && ['cancelled', event.childWorkflowExecutionTerminatedEventAttributes] as const);
  return child ? { id: String(child[1].initiatedEventId), status: child[0] } : null;
};

/** One stage per activity scheduled and per child started, in history order, keyed by their scheduling event id. */
export function stagesOf(events: HistoryEvent[], workflowId: string): Map<string, Stage> {
  const stages = new Map<string, Stage>();
  for (const event of events) {
    const at = eventMillis(event.eventTime);
    const id = String(event.eventId);
    const scheduled = event.activityTaskScheduledEventAttributes;
    const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (scheduled || initiated) {
      stages.set(id, {
        kind: scheduled ? 'activity' : 'child_workflow',
        type: (scheduled ? scheduled.activityType?.name : initiated?.workflowType?.name) ?? '',
        workflowId: scheduled ? workflowId : (initiated?.workflowId ?? ''),
        scheduledAtMs: at,
        startedAtMs: null,
        closedAtMs: null,
        attempt: 1,
        status: 'scheduled',
      });
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    const childStarted = event.childWorkflowExecutionStartedEventAttributes;
    const startedStage = started ? stages.get(String(started.scheduledEventId)) : childStarted ? stages.get(String(childStarted.initiatedEventId)) : undefined;
    if (startedStage) {
      startedStage.startedAtMs = at;
      startedStage.status = 'running';
      // Written once, when the attempt that closes the activity started: its attempt number is the final one.
      startedStage.attempt = Math.max(1, started?.attempt ?? 1);
      continue;
    }
    const closed = closing(event);
    const closedStage = closed ? stages.get(closed.id) : undefined;
    if (closed && closedStage) {
      closedStage.closedAtMs = at;
      closedStage.status = closed.status;
    }
  }
  return stages;
}
