import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import { describeZodError, RagError } from '../core/errors';
import { DEFAULT_SYNC_EVERY, SyncPassInput, syncScheduleId } from '../core/sync/sync-io';
import type { syncPassWorkflow } from '../workflows/sync-pass-workflow';

/*
 * Synced sources' schedules (issue 46 §1–§2): one Temporal Schedule per source, starting a syncPassWorkflow every
 * `every`. Its overlap policy is BUFFER_ONE: a pass due while the last one runs waits for it (one at most), so two
 * passes of one source never overlap and a change made during a pass is seen right after it. `runSyncNow` triggers
 * with the same policy — Temporal's trigger defaults to ALLOW_ALL, which would overlap.
 */

/** How often a source is synced: a number and a unit (s, m, h, d), at least 10 s. */
export const SyncEvery = z
  .string()
  .trim()
  .regex(/^\d+(s|m|h|d)$/, 'every is a number and a unit: 30s, 10m, 1h, 1d')
  .refine((every) => Number(every.slice(0, -1)) * { s: 1, m: 60, h: 3600, d: 86400 }[every.slice(-1) as 's' | 'm' | 'h' | 'd'] >= 10, { message: 'every is at least 10s' });

export const SyncSourceSettings = SyncPassInput.and(z.object({ every: SyncEvery.default(DEFAULT_SYNC_EVERY) }));
export type SyncSourceSettings = z.input<typeof SyncSourceSettings>;

/** The memo that marks a schedule as a synced source's, so `listSyncSources` finds them among others. */
export const SYNC_MEMO = 'sync';

const parseSettings = (raw: SyncSourceSettings) => {
  const parsed = SyncSourceSettings.safeParse(raw);
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError('invalid sync source', parsed.error));
  return parsed.data;
};

/** What `addSyncSource` did: created the schedule, or updated the source's settings. */
export type AddedSyncSource = { scheduleId: string; created: boolean };

/**
 * Creates the source's schedule (or updates its settings when it exists); its first pass starts at once.
 *
 * @example
 * await addSyncSource(client, 'ragtime', { source: 'handbook', path: '/srv/handbook', kb: 'handbook', every: '10m' });
 */
export async function addSyncSource(temporal: Client, taskQueue: string, raw: SyncSourceSettings): Promise<AddedSyncSource> {
  const { every: everyText, ...input } = parseSettings(raw);
  const every = everyText as Duration; // checked by SyncEvery: a number and a unit
  const scheduleId = syncScheduleId(input.source);
  const action = {
    type: 'startWorkflow',
    workflowType: 'syncPassWorkflow',
    workflowId: scheduleId,
    taskQueue,
    args: [input],
    // A pass that no worker takes ends instead of piling up; the next one catches up.
    workflowExecutionTimeout: '6 hours',
  } satisfies ScheduleOptionsStartWorkflowAction<typeof syncPassWorkflow>;
  const memo = { ragtime: SYNC_MEMO, source: input.source, taskQueue };
  try {
    await temporal.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '1 minute' },
      memo,
    });
    await temporal.schedule.getHandle(scheduleId).trigger(ScheduleOverlapPolicy.BUFFER_ONE);
    return { scheduleId, created: true };
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await temporal.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec: { intervals: [{ every }] }, action }));
  return { scheduleId, created: false };
}

/** Runs the source's handle through `use`, UNKNOWN_RUN naming the source when it has no schedule. */
async function withSource<T>(temporal: Client, source: string, use: (handle: ReturnType<Client['schedule']['getHandle']>) => Promise<T>): Promise<T> {
  try {
    return await use(temporal.schedule.getHandle(syncScheduleId(source)));
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) throw new RagError('UNKNOWN_RUN', `no synced source ${JSON.stringify(source)}; \`ragtime sync list\` lists them`, { cause: error });
    throw error;
  }
}

/** Starts a pass now; while one runs, it waits for it (BUFFER_ONE), never beside it. */
export const runSyncNow = (temporal: Client, source: string): Promise<void> => withSource(temporal, source, (handle) => handle.trigger(ScheduleOverlapPolicy.BUFFER_ONE));
/** Stops scheduling passes (a running pass finishes). */
export const pauseSyncSource = (temporal: Client, source: string): Promise<void> => withSource(temporal, source, (handle) => handle.pause(`ragtime sync pause ${source}`));
export const resumeSyncSource = (temporal: Client, source: string): Promise<void> => withSource(temporal, source, (handle) => handle.unpause(`ragtime sync resume ${source}`));
/** Deletes the schedule; the source's documents stay in the knowledge base (remove them with `ragtime docs rm`). */
export const removeSyncSource = (temporal: Client, source: string): Promise<void> => withSource(temporal, source, (handle) => handle.delete());
