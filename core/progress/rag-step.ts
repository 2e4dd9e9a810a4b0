import { z } from 'zod';

/** One progress event (spec §4.13): what the graph is doing, for a live view. Not part of the trace. */
export const RagStep = z.object({
  icon: z.string(),
  label: z.string(),
  detail: z.string(),
  group: z.string().optional(),
  group_label: z.string().optional(),
  /** ms since the run started (workflow time). */
  elapsed_ms: z.number().int().min(0),
  /** ms since the previous step (or the start). */
  stage_elapsed_ms: z.number().int().min(0),
});
export type RagStep = z.infer<typeof RagStep>;

/** A step before it is stamped with times and its group. */
export type StepMessage = Pick<RagStep, 'icon' | 'label' | 'detail'>;

export type StepGroup = { group: string; groupLabel: string } | null;

/**
 * Keeps a run's steps with their times. `now` is workflow time, passed in so that core/ stays clock-free.
 * Append-only: a step's index is its id in the progress stream, given when it is recorded and never changed, and
 * steps adopted from sub-questions are appended, so they get new, larger indexes (issue 14 §12, stableSteps).
 */
export class ProgressLog {
  private readonly steps: RagStep[] = [];
  private lastAt: number;

  constructor(private readonly startedAt: number) {
    this.lastAt = startedAt;
  }

  add(message: StepMessage, now: number, group: StepGroup = null): RagStep {
    const step: RagStep = {
      ...message,
      ...(group?.group ? { group: group.group } : {}),
      ...(group?.groupLabel ? { group_label: group.groupLabel } : {}),
      elapsed_ms: Math.max(0, Math.round(now - this.startedAt)),
      stage_elapsed_ms: Math.max(0, Math.round(now - this.lastAt)),
    };
    this.lastAt = now;
    this.steps.push(step);
    return step;
  }

  /** Appends steps recorded elsewhere (a sub-question's run), keeping their own times; they get the next indexes. */
  append(steps: readonly RagStep[]): void {
    this.steps.push(...steps);
  }

  all(): RagStep[] {
    return [...this.steps];
  }
}
