/*
 * A history in the shape a loaded worker records now and then: a local activity's marker closes one workflow task,
 * and what the workflow did after it was sent in the next task (seen under load: rag-mcp-…, make test, 2026-12-04).
 * A patched() call made right after such a local activity is not known to be present while that point replays, so
 * the replay fails with "Non-deprecated patch marker encountered … no corresponding change command". The replay test
 * cuts committed histories this way to prove which code paths replay in that shape.
 */

type HistoryEvent = { eventId: string; eventTime?: string; eventType: string; [attributes: string]: unknown };
type HistoryJson = { events: HistoryEvent[] };

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

function localActivityTypeOf(event: HistoryEvent): string | null {
  const marker = event.markerRecordedEventAttributes as { markerName?: string; details?: Record<string, { payloads?: Array<{ data?: string }> }> } | undefined;
  if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return null;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return null;
  const parsed = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { activity_type?: string };
  return parsed.activity_type ?? null;
}

/** Adds `shift` to every event id reference (fields named …EventId) at or past `from`, in place. */
function shiftReferences(value: unknown, from: number, shift: number): void {
  if (Array.isArray(value)) {
    for (const item of value) shiftReferences(item, from, shift);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const [key, field] of Object.entries(record)) {
    if (key.endsWith('EventId') && typeof field === 'string' && Number(field) >= from) record[key] = String(Number(field) + shift);
    else shiftReferences(field, from, shift);
  }
}

/** The history's local activities, in order: the event id of each one's marker and its activity type. */
export function localActivities(json: HistoryJson): Array<{ eventId: string; activityType: string }> {
  return json.events.flatMap((event) => {
    const activityType = localActivityTypeOf(event);
    return activityType === null ? [] : [{ eventId: event.eventId, activityType }];
  });
}

/**
 * The history with a workflow task boundary right after the marker of a local activity (the first of
 * `activityType`, or the one recorded as event `eventId`): the events after it belong to a new task (scheduled,
 * started and completed just after the marker), as when a loaded worker completed the task with the local activity's
 * result and sent the rest in the next one.
 */
export function splitAfterLocalActivity(json: HistoryJson, activity: string | { eventId: string }): HistoryJson {
  const copy = JSON.parse(JSON.stringify(json)) as HistoryJson;
  const at = copy.events.findIndex((event) =>
    typeof activity === 'string' ? localActivityTypeOf(event) === activity : event.eventId === activity.eventId && localActivityTypeOf(event) !== null,
  );
  if (at < 0) throw new Error(`the history has no local activity ${JSON.stringify(activity)}`);
  const marker = copy.events[at]!;
  const firstAfter = Number(marker.eventId) + 1;
  const completedBefore = (marker.markerRecordedEventAttributes as { workflowTaskCompletedEventId: string }).workflowTaskCompletedEventId;
  const byId = (id: string) => copy.events.find((event) => event.eventId === id)!;
  const completed = byId(completedBefore);
  const started = byId((completed.workflowTaskCompletedEventAttributes as { startedEventId: string }).startedEventId);
  const scheduled = byId((completed.workflowTaskCompletedEventAttributes as { scheduledEventId: string }).scheduledEventId);
  const after = copy.events.slice(at + 1);
  for (const event of after) event.eventId = String(Number(event.eventId) + 3);
  shiftReferences(after, firstAfter, 3);
  const ids = { scheduled: String(firstAfter), started: String(firstAfter + 1), completed: String(firstAfter + 2) };
  // The commands sent with the first task after the marker now belong to the new task.
  for (const event of after) {
    for (const attributes of Object.values(event)) {
      const record = attributes as { workflowTaskCompletedEventId?: string } | null;
      if (record && typeof record === 'object' && record.workflowTaskCompletedEventId === String(Number(completedBefore))) {
        record.workflowTaskCompletedEventId = ids.completed;
      }
    }
  }
  const boundary: HistoryEvent[] = [
    { ...scheduled, eventId: ids.scheduled, eventTime: marker.eventTime },
    {
      ...started,
      eventId: ids.started,
      eventTime: marker.eventTime,
      workflowTaskStartedEventAttributes: { ...(started.workflowTaskStartedEventAttributes as object), scheduledEventId: ids.scheduled },
    },
    {
      ...completed,
      eventId: ids.completed,
      eventTime: marker.eventTime,
      workflowTaskCompletedEventAttributes: { ...(completed.workflowTaskCompletedEventAttributes as object), scheduledEventId: ids.scheduled, startedEventId: ids.started },
    },
  ];
  copy.events = [...copy.events.slice(0, at + 1), ...boundary, ...after];
  return copy;
}
