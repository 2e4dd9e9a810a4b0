import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/*
 * What one run leaves in Temporal, counted from its history and its children's (issue 36 §1): workflow tasks,
 * activity tasks, local activities (core's markers), child workflows, search-attribute and memo upserts, events, the
 * history's encoded bytes, and the bytes of the payloads in it (encrypted or not, as stored).
 */

export type RunCounts = {
  workflows: number;
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
  /** Activity and local activity calls by activity type. */
  byActivity: Record<string, number>;
  searchAttributeUpserts: number;
  memoUpserts: number;
  events: number;
  historyBytes: number;
  payloadBytes: number;
};

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export const emptyCounts = (): RunCounts => ({
  workflows: 0,
  workflowTasks: 0,
  activityTasks: 0,
  localActivities: 0,
  byActivity: {},
  searchAttributeUpserts: 0,
  memoUpserts: 0,
  events: 0,
  historyBytes: 0,
  payloadBytes: 0,
});

async function historyOf(connection: Connection, namespace: string, workflowId: string): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId }, nextPageToken });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Bytes of every Payload (data and metadata) anywhere in `value`: a payload is an object with `data` and `metadata`. */
function payloadBytesIn(value: unknown): number {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return 0;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && typeof record.metadata === 'object' && record.metadata !== null) {
    const metadata = Object.entries(record.metadata as Record<string, Uint8Array>).reduce((sum, [key, bytes]) => sum + key.length + (bytes?.length ?? 0), 0);
    return record.data.length + metadata;
  }
  return Object.values(record).reduce<number>((sum, child) => sum + payloadBytesIn(child), 0);
}

/** The activity type a local activity marker records (core writes its marker data as JSON). */
function localActivityType(event: HistoryEvent): string {
  const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  if (!data) return 'local activity';
  try {
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string };
    return parsed.activity_type ?? 'local activity';
  } catch {
    return 'local activity';
  }
}

/** Adds the counts of one workflow's history to `into`; returns the child workflow ids it started. */
function countHistory(events: HistoryEvent[], into: RunCounts): string[] {
  const children: string[] = [];
  into.workflows += 1;
  into.events += events.length;
  into.historyBytes += temporal.api.history.v1.History.encode({ events }).finish().length;
  for (const event of events) {
    into.payloadBytes += payloadBytesIn(event);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        into.workflowTasks += 1;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        into.activityTasks += 1;
        const name = event.activityTaskScheduledEventAttributes?.activityType?.name ?? 'activity';
        into.byActivity[name] = (into.byActivity[name] ?? 0) + 1;
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED:
        if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
          into.localActivities += 1;
          const name = `${localActivityType(event)} (local)`;
          into.byActivity[name] = (into.byActivity[name] ?? 0) + 1;
        }
        break;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        into.searchAttributeUpserts += 1;
        break;
      case EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
        into.memoUpserts += 1;
        break;
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED: {
        const id = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
        if (id) children.push(id);
        break;
      }
      default:
        break;
    }
  }
  return children;
}

/** The counts of one run: its workflow and every child it started, recursively; `workflowIds` lists them all. */
export async function countRun(connection: Connection, namespace: string, workflowId: string): Promise<{ counts: RunCounts; workflowIds: string[] }> {
  const counts = emptyCounts();
  const workflowIds: string[] = [];
  const queue = [workflowId];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    workflowIds.push(id);
    queue.push(...countHistory(await historyOf(connection, namespace, id), counts));
  }
  return { counts, workflowIds };
}

/** The mean of several runs' counts, field by field. */
export function meanCounts(runs: RunCounts[]): RunCounts {
  const mean = emptyCounts();
  const n = Math.max(1, runs.length);
  for (const run of runs) {
    for (const key of Object.keys(mean) as Array<keyof RunCounts>) {
      if (key === 'byActivity') {
        for (const [name, count] of Object.entries(run.byActivity)) mean.byActivity[name] = (mean.byActivity[name] ?? 0) + count / n;
      } else {
        mean[key] += run[key] / n;
      }
    }
  }
  return mean;
}
