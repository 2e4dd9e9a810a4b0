import { z } from 'zod';

/*
 * Speculative execution (issue 17 §2, DESIGN §3): work the graph would otherwise do after a model call, started
 * beside it, and kept or dropped once the call answers. Each level includes the ones before it:
 *   retrieve  fast path missed: the question's retrieval runs beside the planner (kept when the planner says simple)
 *   grade     … and its grading, once retrieved
 *   answer    whenever evidence is retrieved for the top-level question: the answer draft runs beside the grader
 *             (released only when the grade routes to `answer` for the question and evidence the draft was written from)
 *   rewrite   … and the rewrite (its plan, then the rewritten question's retrieval) beside every grade that could
 *             route to `rewrite` (the top-level question, evidence to grade, the rewrite budget unspent); kept only
 *             when it does. Not a default: it costs a model call and a retrieval on every question answered at once.
 * The 59-field trace and the outcome's route, evidence and answer are the same at every level; only the time differs,
 * and the outcome's `speculation` says what was tried, kept and wasted.
 */

export const SPECULATION_LEVELS = ['off', 'retrieve', 'grade', 'answer', 'rewrite'] as const;
export const SpeculationLevel = z.enum(SPECULATION_LEVELS);
export type SpeculationLevel = z.infer<typeof SpeculationLevel>;

/** What a run does when nothing names a level (SPECULATION unset): chosen from bench/side-by-side.ts (docs/PERFORMANCE.md). */
export const DEFAULT_SPECULATION: SpeculationLevel = 'answer';

/** Whether `level` speculates at `step` (each level includes the ones before). */
export const speculatesAt = (level: SpeculationLevel, step: Exclude<SpeculationLevel, 'off'>): boolean =>
  SPECULATION_LEVELS.indexOf(level) >= SPECULATION_LEVELS.indexOf(step);

/**
 * One speculative activity: what it was, whether its result was used, and what it cost — `modelCalls` the workflow
 * started (a retrieval starts none; a discarded one still counts, although one dropped in the workflow task that
 * started it is never sent: an upper bound), and `ms` of workflow time from its start until it was used or dropped.
 */
export const SpeculationRecord = z.object({
  kind: z.enum(['retrieve', 'grade', 'answer', 'rewrite']),
  question: z.string(),
  outcome: z.enum(['used', 'discarded']),
  /** Why it was dropped (the planner said complex, the grade routed elsewhere, …); null when used. */
  reason: z.string().nullable(),
  modelCalls: z.number().int().min(0),
  ms: z.number().min(0),
});
export type SpeculationRecord = z.infer<typeof SpeculationRecord>;

/** The outcome's diagnostics of speculation: present on runs that speculate (level other than off). */
export const SpeculationReport = z.object({
  level: SpeculationLevel,
  records: z.array(SpeculationRecord),
  used: z.number().int().min(0),
  discarded: z.number().int().min(0),
  /** Model calls whose result was dropped: the price of the level on this run. */
  wastedModelCalls: z.number().int().min(0),
});
export type SpeculationReport = z.infer<typeof SpeculationReport>;

/** The report of a run's records so far. */
export function speculationReport(level: SpeculationLevel, records: readonly SpeculationRecord[]): SpeculationReport {
  const discarded = records.filter((record) => record.outcome === 'discarded');
  return {
    level,
    records: records.map((record) => ({ ...record })),
    used: records.length - discarded.length,
    discarded: discarded.length,
    wastedModelCalls: discarded.reduce((sum, record) => sum + record.modelCalls, 0),
  };
}
