import { z } from 'zod';

/** A step's label and detail as a person reads them. */
export const StepReading = z.object({ label: z.string(), detail: z.string() });
export type StepReading = z.infer<typeof StepReading>;

/** One progress event (spec §4.13): what the graph is doing, for a live view. Not part of the trace. */
export const RagStep = z.object({
  icon: z.string(),
  label: z.string(),
  detail: z.string(),
  /**
   * The step as the person who asked reads it (issue 33 §6): in English when the question is not in Chinese, or with
   * words for the spec's Python-style True/False; absent when the spec's label and detail are that. Views show it
   * (shownStep); label and detail stay the spec's exact texts.
   */
  shown: StepReading.optional(),
  group: z.string().optional(),
  group_label: z.string().optional(),
  /** ms since the run started (workflow time). */
  elapsed_ms: z.number().int().min(0),
  /** ms since the previous step (or the start). */
  stage_elapsed_ms: z.number().int().min(0),
});
export type RagStep = z.infer<typeof RagStep>;

/** A step before it is stamped with times and its group, with its readings in each language it has. */
export type StepMessage = Pick<RagStep, 'icon' | 'label' | 'detail'> & { readings?: { en?: StepReading; zh?: StepReading } };

/** The language a run's steps are shown in: the question's (core/text/language.ts). */
export type StepLanguage = 'zh' | 'en';

/** A step's label and detail as views show them: its reading, else the spec's texts. */
export const shownStep = (step: Pick<RagStep, 'label' | 'detail' | 'shown'>): StepReading => step.shown ?? { label: step.label, detail: step.detail };

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

  add(message: StepMessage, now: number, group: StepGroup = null, language: StepLanguage = 'zh'): RagStep {
    const { readings, ...texts } = message;
    const shown = readings?.[language];
    const step: RagStep = {
      ...texts,
      ...(shown ? { shown } : {}),
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
