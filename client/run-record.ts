import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { RetrievalResult } from '../core/trace/writers';

/*
 * What a run's history records beyond its outcome: every retrieval with its docs, meta and diagnostics (the retrieve
 * activities' results, decoded with the client's data converter, so encrypted histories read too), the activities
 * it scheduled, and how long it took. Read by `ragtime eval`; sub-question children are read as well.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export type RetrievalRecord = { workflowId: string; purpose: string; query: string; result: RetrievalResult };

export type RunRecord = {
  /** In history order; a complex run's children after the parent's own (by sub-question). */
  retrievals: RetrievalRecord[];
  /** Activities scheduled, by type, over the run and its children. */
  activities: Record<string, number>;
  /** From the first event to the last (the run's close when it closed), ms. */
  durationMs: number;
};

const MODEL_ACTIVITIES = new Set(['planComplexity', 'gradeEvidence', 'planRewrite', 'generateAnswer']);

/** How many model calls a record's activities hold (planner, grader, rewriter, answer writer; retries not counted). */
export const modelCallsOf = (record: RunRecord): number =>
  Object.entries(record.activities).reduce((sum, [type, n]) => sum + (MODEL_ACTIVITIES.has(type) ? n : 0), 0);

const millis = (time: temporal.api.history.v1.IHistoryEvent['eventTime']): number =>
  time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : 0;

async function readOne(client: Client, workflowId: string): Promise<{ retrievals: RetrievalRecord[]; activities: Record<string, number>; events: HistoryEvent[] }> {
  const converter = client.options.loadedDataConverter;
  const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; input: { query?: string; purpose?: string } | null }>();
  const activities: Record<string, number> = {};
  const retrievals: RetrievalRecord[] = [];
  for (const event of events) {
    const start = event.activityTaskScheduledEventAttributes;
    if (start) {
      const type = start.activityType?.name ?? '';
      activities[type] = (activities[type] ?? 0) + 1;
      const input = type === 'retrieve' ? await decodeFromPayloadsAtIndex<{ query?: string; purpose?: string }>(converter, 0, start.input?.payloads) : null;
      scheduled.set(String(event.eventId), { type, input });
    }
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      const what = scheduled.get(String(done.scheduledEventId));
      if (what?.type !== 'retrieve') continue;
      const result = await decodeFromPayloadsAtIndex<{ data: RetrievalResult }>(converter, 0, done.result?.payloads);
      retrievals.push({ workflowId, purpose: what.input?.purpose ?? '', query: what.input?.query ?? '', result: result.data });
    }
  }
  return { retrievals, activities, events };
}

export async function readRunRecord(client: Client, workflowId: string): Promise<RunRecord> {
  const parent = await readOne(client, workflowId);
  const children = parent.events
    .flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])
    .sort();
  const retrievals = [...parent.retrievals];
  const activities = { ...parent.activities };
  for (const child of children) {
    const record = await readOne(client, child);
    retrievals.push(...record.retrievals);
    for (const [type, n] of Object.entries(record.activities)) activities[type] = (activities[type] ?? 0) + n;
  }
  const first = millis(parent.events[0]?.eventTime);
  const last = millis(parent.events.at(-1)?.eventTime);
  return { retrievals, activities, durationMs: Math.max(0, last - first) };
}
