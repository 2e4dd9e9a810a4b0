import { z } from 'zod';

/*
 * What changed between two runs (issue 16): typically one question asked before and after a knowledge change, or
 * two questions side by side. Built by core/compare/compare-runs.ts `compareRuns` from two RunDetails. Lists hold
 * only differences, so two identical runs compare to empty lists and `changed: false`.
 */

/** One run of the pair, in a line. */
export const ComparedRun = z.object({
  workflowId: z.string(),
  question: z.string().nullable(),
  kb: z.string().nullable(),
  status: z.string(),
  route: z.string().nullable(),
  durationMs: z.number().min(0),
  /** The route path's labels in order (RoutePath nodes), e.g. ["question", "fast path", "retrieve (initial)", …]. */
  path: z.array(z.string()),
});
export type ComparedRun = z.infer<typeof ComparedRun>;

const side = z.union([z.string(), z.number(), z.boolean()]).nullable();

/** A value that differs: a route, a status, a trace field (`field` names it). */
export const FieldChange = z.object({ field: z.string(), a: side, b: side });
export type FieldChange = z.infer<typeof FieldChange>;

/** The n-th grade of each run (by workflow role and order), with the fields that differ; a missing side is null. */
export const GradeChange = z.object({
  /** "run" or "sub-<n>", and the grade's ordinal within it: "run#1", "sub-2#1". */
  position: z.string(),
  changes: z.array(FieldChange),
});
export type GradeChange = z.infer<typeof GradeChange>;

/** A document of the final evidence, keyed by chunk id (else document id, else file name). */
export const EvidenceRef = z.object({
  key: z.string(),
  filename: z.string().nullable(),
  doc_id: z.string().nullable(),
  /** 1-based position in that run's final evidence; null on the side it is absent from. */
  rankA: z.number().int().min(1).nullable(),
  rankB: z.number().int().min(1).nullable(),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;

export const EvidenceChange = z.object({
  entered: z.array(EvidenceRef).describe('in b\'s final evidence, not in a\'s'),
  left: z.array(EvidenceRef).describe('in a\'s final evidence, not in b\'s'),
  moved: z.array(EvidenceRef).describe('in both, at another position'),
});
export type EvidenceChange = z.infer<typeof EvidenceChange>;

export const RankLeg = z.enum(['dense', 'bm25', 'dense_fallback', 'fused', 'reranked']);
export type RankLeg = z.infer<typeof RankLeg>;

/** A candidate whose rank in one leg differs: null on the side that did not recall it; delta = rankB − rankA. */
export const RankMove = z.object({
  chunk_id: z.string(),
  filename: z.string(),
  rankA: z.number().int().min(1).nullable(),
  rankB: z.number().int().min(1).nullable(),
  delta: z.number().int().nullable(),
});
export type RankMove = z.infer<typeof RankMove>;

/** The rank movements of one leg of one retrieval pair (paired by workflow role, purpose and order). */
export const LegMovement = z.object({
  /** "run:initial#1", "sub-2:sub_question#1". */
  retrieval: z.string(),
  leg: RankLeg,
  moves: z.array(RankMove),
});
export type LegMovement = z.infer<typeof LegMovement>;

/** Time spent per activity type (summed over its stages, scheduled → closed), where it differs. */
export const TimingChange = z.object({
  type: z.string().describe('an activity type, a child workflow type, or "total" for the whole run'),
  aMs: z.number().min(0).nullable(),
  bMs: z.number().min(0).nullable(),
  deltaMs: z.number().nullable(),
  countA: z.number().int().min(0),
  countB: z.number().int().min(0),
});
export type TimingChange = z.infer<typeof TimingChange>;

export const RunComparison = z.object({
  a: ComparedRun,
  b: ComparedRun,
  sameQuestion: z.boolean(),
  /** False when nothing but timings differs. */
  changed: z.boolean(),
  /** Whether the route path differs, and the outcome/trace fields that differ (status, route, complexity, rewrite…). */
  routeChanged: z.boolean(),
  changes: z.array(FieldChange),
  grades: z.array(GradeChange),
  evidence: EvidenceChange,
  ranks: z.array(LegMovement),
  timings: z.array(TimingChange),
});
export type RunComparison = z.infer<typeof RunComparison>;
