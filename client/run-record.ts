import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { RetrievalStatus, Route } from '../core/schemas/graph-values';
import type { EvidenceGrade } from '../core/schemas/model-outputs';
import type { ModelCallRecord } from '../core/schemas/model-call';
import type { RunGrade, RunModelCall, Stage } from '../core/schemas/run-detail';
import type { RetrievalResult } from '../core/trace/writers';
import { eventMillis, stagesOf } from './history-stages';

/*
 * What a run's history records beyond its outcome: every retrieval with its docs, meta and diagnostics (the retrieve
 * activities' results, decoded with the client's data converter, so encrypted histories read too), the activities
 * it scheduled (with their times, for a waterfall), the grades, and how long it took. Read by `ragtime eval` and
 * RagClient.getRunDetail; sub-question children are read as well.
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
  /** The question of the run's input; null for a run started from a resume snapshot. */
  question: string | null;
  /** Every activity and sub-question child, the children's activities too, in ms from the run's first event. */
  stages: Stage[];
  /** Every grade the grader model gave (grades of empty evidence call no model and are not here), in history order. */
  grades: RunGrade[];
  /** How each model call asked (rung, temperature) and what it changed, from the model activities' results (issue 24). */
  modelCalls: RunModelCall[];
};

const MODEL_ACTIVITIES = new Set(['planComplexity', 'gradeEvidence', 'planRewrite', 'generateAnswer']);

/** How many model calls a record's activities hold (planner, grader, rewriter, answer writer; retries not counted). */
export const modelCallsOf = (record: RunRecord): number =>
  Object.entries(record.activities).reduce((sum, [type, n]) => sum + (MODEL_ACTIVITIES.has(type) ? n : 0), 0);

/** What a gradeEvidence activity returns (activities/contracts.ts GradeEvidenceData), as far as it is read here. */
type GradeData = { route: Route; retrievalStatus: RetrievalStatus; grade: EvidenceGrade };
type ActivityInput = { query?: string; purpose?: string; question?: string };
/** The activities whose input and result the record decodes. */
const DECODED = new Set(['retrieve', 'gradeEvidence']);

type OneWorkflow = { retrievals: RetrievalRecord[]; grades: RunGrade[]; modelCalls: RunModelCall[]; activities: Record<string, number>; events: HistoryEvent[]; stages: Stage[] };

async function readOne(client: Client, workflowId: string): Promise<OneWorkflow> {
  const converter = client.options.loadedDataConverter;
  const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; input: ActivityInput | null }>();
  const activities: Record<string, number> = {};
  const retrievals: RetrievalRecord[] = [];
  const grades: RunGrade[] = [];
  const modelCalls: RunModelCall[] = [];
  for (const event of events) {
    const start = event.activityTaskScheduledEventAttributes;
    if (start) {
      const type = start.activityType?.name ?? '';
      activities[type] = (activities[type] ?? 0) + 1;
      const input = DECODED.has(type) ? await decodeFromPayloadsAtIndex<ActivityInput>(converter, 0, start.input?.payloads) : null;
      scheduled.set(String(event.eventId), { type, input });
    }
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      const what = scheduled.get(String(done.scheduledEventId));
      if (what && MODEL_ACTIVITIES.has(what.type)) {
        const result = await decodeFromPayloadsAtIndex<{ modelCalls?: ModelCallRecord[] }>(converter, 0, done.result?.payloads);
        // Results recorded before issue 24 have no records.
        for (const call of result?.modelCalls ?? []) modelCalls.push({ workflowId, activity: what.type, ...call });
      }
      if (what?.type === 'retrieve') {
        const result = await decodeFromPayloadsAtIndex<{ data: RetrievalResult }>(converter, 0, done.result?.payloads);
        retrievals.push({ workflowId, purpose: what.input?.purpose ?? '', query: what.input?.query ?? '', result: result.data });
      } else if (what?.type === 'gradeEvidence') {
        const { data } = await decodeFromPayloadsAtIndex<{ data: GradeData }>(converter, 0, done.result?.payloads);
        const { grade } = data;
        grades.push({
          workflowId,
          question: what.input?.question ?? '',
          relevance: grade.relevance,
          answerability: grade.answerability,
          ambiguity: grade.ambiguity,
          confidence: grade.confidence,
          reason: grade.reason,
          route: data.route,
          retrievalStatus: data.retrievalStatus,
        });
      }
    }
  }
  return { retrievals, grades, modelCalls, activities, events, stages: [...stagesOf(events, workflowId).values()] };
}

async function questionOf(client: Client, events: HistoryEvent[]): Promise<string | null> {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started?.input?.payloads?.length) return null;
  const input = await decodeFromPayloadsAtIndex<{ question?: string }>(client.options.loadedDataConverter, 0, started.input.payloads);
  return typeof input?.question === 'string' ? input.question : null;
}

const relativeTo = (origin: number) => (stage: Stage): Stage => ({
  ...stage,
  scheduledAtMs: Math.max(0, stage.scheduledAtMs - origin),
  startedAtMs: stage.startedAtMs === null ? null : Math.max(0, stage.startedAtMs - origin),
  closedAtMs: stage.closedAtMs === null ? null : Math.max(0, stage.closedAtMs - origin),
});

export async function readRunRecord(client: Client, workflowId: string): Promise<RunRecord> {
  const parent = await readOne(client, workflowId);
  const children = parent.events
    .flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])
    .sort();
  const retrievals = [...parent.retrievals];
  const grades = [...parent.grades];
  const modelCalls = [...parent.modelCalls];
  const stages = [...parent.stages];
  const activities = { ...parent.activities };
  for (const child of children) {
    const record = await readOne(client, child);
    retrievals.push(...record.retrievals);
    grades.push(...record.grades);
    modelCalls.push(...record.modelCalls);
    stages.push(...record.stages);
    for (const [type, n] of Object.entries(record.activities)) activities[type] = (activities[type] ?? 0) + n;
  }
  const first = eventMillis(parent.events[0]?.eventTime);
  const last = eventMillis(parent.events.at(-1)?.eventTime);
  return {
    retrievals,
    activities,
    durationMs: Math.max(0, last - first),
    question: await questionOf(client, parent.events),
    stages: stages.map(relativeTo(first)).sort((a, b) => a.scheduledAtMs - b.scheduledAtMs),
    grades,
    modelCalls,
  };
}
