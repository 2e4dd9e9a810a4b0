import { WorkflowFailedError, type Client, type ScheduleDescription } from '@temporalio/client';
import type { SyncPassInput, SyncPassReport, SyncProgress } from '../core/sync/sync-io';
import { syncScheduleId } from '../core/sync/sync-io';
import { syncProgressQuery } from '../workflows/messages';
import { SYNC_MEMO } from './sync-schedule';

/*
 * What `ragtime sync list | status` show (issue 46 §2, §4): each source's settings and schedule from Temporal, the
 * pass running now with its progress (a query), and the last pass's report — the result of the schedule's latest
 * finished run (a failed pass: its error). The worker also keeps each report in SQL (sync_pass), which outlives
 * Temporal's retention; the HTTP API reads that.
 */

export type SyncSourceStatus = {
  source: string;
  scheduleId: string;
  settings: SyncPassInput;
  every: string;
  paused: boolean;
  nextPassAt: string | null;
  /** The pass running now, with its progress (null when none runs or it cannot answer yet). */
  running: { workflowId: string; progress: SyncProgress | null } | null;
  /** The last pass that ended: its report, or its failure when it failed before reporting. */
  lastPass: { workflowId: string; report: SyncPassReport | null; error: string | null } | null;
};

const everyOf = (description: ScheduleDescription): string => {
  const interval = description.spec.intervals?.[0]?.every;
  return typeof interval === 'number' ? `${Math.round(interval / 1000)}s` : String(interval ?? '');
};

async function lastPassOf(temporal: Client, description: ScheduleDescription): Promise<SyncSourceStatus['lastPass']> {
  const running = new Set(description.info.runningActions.map((action) => action.workflow.workflowId));
  const ended = [...description.info.recentActions].reverse().find((action) => !running.has(action.action.workflow.workflowId));
  if (!ended) return null;
  const { workflowId, firstExecutionRunId } = ended.action.workflow;
  try {
    const report = (await temporal.workflow.getHandle(workflowId, firstExecutionRunId).result()) as SyncPassReport;
    return { workflowId, report, error: null };
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? (error.cause?.message ?? error.message) : error instanceof Error ? error.message : String(error);
    return { workflowId, report: null, error: cause };
  }
}

/**
 * A source's settings, schedule, running pass and last pass.
 *
 * @example
 * const status = await syncSourceStatus(client, 'handbook');
 * console.log(status.lastPass?.report?.changed, status.running?.progress?.ingested);
 */
export async function syncSourceStatus(temporal: Client, source: string): Promise<SyncSourceStatus> {
  const scheduleId = syncScheduleId(source);
  const description = await temporal.schedule.getHandle(scheduleId).describe();
  const action = description.action as { args?: unknown[] };
  const current = description.info.runningActions.at(-1);
  let running: SyncSourceStatus['running'] = null;
  if (current) {
    const { workflowId, firstExecutionRunId } = current.workflow;
    const progress = await temporal.workflow.getHandle(workflowId, firstExecutionRunId).query(syncProgressQuery).catch(() => null);
    running = { workflowId, progress };
  }
  return {
    source,
    scheduleId,
    settings: (action.args?.[0] ?? {}) as SyncPassInput,
    every: everyOf(description),
    paused: description.state.paused,
    nextPassAt: description.info.nextActionTimes[0]?.toISOString() ?? null,
    running,
    lastPass: await lastPassOf(temporal, description),
  };
}

/** The synced sources of this Temporal namespace (schedules marked by their memo), by name. */
export async function listSyncSources(temporal: Client): Promise<string[]> {
  const sources: string[] = [];
  for await (const schedule of temporal.schedule.list()) {
    const memo = schedule.memo as { ragtime?: string; source?: string } | undefined;
    if (memo?.ragtime === SYNC_MEMO && typeof memo.source === 'string') sources.push(memo.source);
  }
  return sources.sort();
}
