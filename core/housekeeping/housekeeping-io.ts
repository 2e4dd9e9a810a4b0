import { z } from 'zod';

/*
 * Housekeeping (issue 35 §1, docs/OPERATIONS.md "Retention"): what the scheduled housekeeping run deletes, and what it
 * reports. One run prunes the answer stream of settled runs always, and the audit rows and session turns older than
 * the retention when one is set.
 */

/** How long after a run's last streamed event its answer stream is kept: its listeners have long had the end. */
export const ANSWER_STREAM_KEEP_MINUTES = 10;
/** How often the housekeeping schedule runs. */
export const HOUSEKEEPING_EVERY = '10 minutes';

export const HousekeepingInput = z.object({
  /** RAGTIME_RETENTION_DAYS; null: audit rows and session turns are kept. */
  retentionDays: z.number().int().min(1).nullable(),
  answerStreamKeepMinutes: z.number().int().min(1).default(ANSWER_STREAM_KEEP_MINUTES),
});
export type HousekeepingInput = z.input<typeof HousekeepingInput>;

/** What one housekeeping run removed, per store (0 where it keeps everything), and the cut-offs it used. */
export type HousekeepingReport = {
  retentionDays: number | null;
  /** Rows created before this time went (ISO); null without a retention. */
  retainedSince: string | null;
  answerStreamQuietSince: string;
  answerStreamEvents: number;
  auditInvocations: number;
  auditEvents: number;
  sessionTurns: number;
};

/** The schedule's id for a task queue: one per deployment, so two checkouts on one server keep their own. */
export const housekeepingScheduleId = (taskQueue: string): string => `ragtime-housekeeping-${taskQueue}`;

/** The cut-offs of a housekeeping run at `now` (ms): whole days of retention, minutes of the answer stream. */
export function housekeepingCutoffs(input: z.output<typeof HousekeepingInput>, now: number): { retainedSince: number | null; answerStreamQuietSince: number } {
  return {
    retainedSince: input.retentionDays === null ? null : now - input.retentionDays * 86_400_000,
    answerStreamQuietSince: now - input.answerStreamKeepMinutes * 60_000,
  };
}
