import { z } from 'zod';
import { Ambiguity, Answerability, Relevance, RetrievalStatus, Route } from './graph-values';
import { RagSubTrace, RagTrace, RETRIEVAL_META_FIELDS } from './rag-trace';
import { ModelCallRecord } from './model-call';
import { RetrievalDiagnostics } from './retrieval-diagnostics';
import { Chunk } from './retrieved-chunk';
import { HitlRound, RagOutcome } from './run-io';

/*
 * Everything the console shows about one run (issue 16), read from its outcome and its Temporal history: the route
 * it took as a graph, each retrieval with its diagnostics (legs, fusion, merge, rerank, threshold, attempts), the
 * activities on a time line, the grades and the clarification rounds. Read-only; built by RagClient.getRunDetail.
 */

/** The graph's nodes a run can pass (spec §4): the planner or fast path, retrievals, grades, rewrite, HITL, answer. */
export const RouteNodeKind = z.enum([
  'question',
  'fast_path',
  'planner',
  'retrieve',
  'grade',
  'rewrite',
  'sub_question',
  'synthesis',
  'hitl',
  'answer',
  'stop',
]);
export type RouteNodeKind = z.infer<typeof RouteNodeKind>;

/** One step actually taken. `id` is stable for one run's path ("retrieve-initial", "sub-2", "hitl-1"). */
export const RouteNode = z.object({
  id: z.string(),
  label: z.string(),
  kind: RouteNodeKind,
  /** A line more: the query retrieved, the grade's route, the person's answer; null when there is nothing to add. */
  detail: z.string().nullable(),
});
export type RouteNode = z.infer<typeof RouteNode>;

export const RouteEdge = z.object({ from: z.string(), to: z.string() });
export type RouteEdge = z.infer<typeof RouteEdge>;

/** The nodes and edges a run took, in the order it took them (computed by core/trace/route-path.ts `routePathOf`). */
export const RoutePath = z.object({ nodes: z.array(RouteNode), edges: z.array(RouteEdge) });
export type RoutePath = z.infer<typeof RoutePath>;

/** The 26 retrieval-meta fields of the trace (spec §6.9): counts after threshold and rerank, modes, auto-merge. */
export const RetrievalMetaView = RagSubTrace.pick(Object.fromEntries(RETRIEVAL_META_FIELDS.map((field) => [field, true])) as { [K in (typeof RETRIEVAL_META_FIELDS)[number]]: true });
export type RetrievalMetaView = z.infer<typeof RetrievalMetaView>;

/**
 * One retrieval of the run or of a sub-question child, as its retrieve activity returned it. `diagnostics` is null
 * for retrievals recorded before diagnostics existed; `docs` are the documents it kept (after merge, rerank and
 * threshold).
 */
export const RunRetrieval = z.object({
  workflowId: z.string(),
  purpose: z.string().describe('initial | rewritten | sub_question | hitl_targeted'),
  query: z.string(),
  docs: z.array(Chunk),
  meta: RetrievalMetaView,
  diagnostics: RetrievalDiagnostics.nullable(),
});
export type RunRetrieval = z.infer<typeof RunRetrieval>;

export const StageKind = z.enum(['activity', 'child_workflow']);
export const StageStatus = z.enum(['scheduled', 'running', 'completed', 'failed', 'timed_out', 'cancelled']);
export type StageStatus = z.infer<typeof StageStatus>;

/**
 * One bar of the waterfall: an activity (or a sub-question child) of the run, its times in ms from the run's start.
 * `startedAtMs`/`closedAtMs` are null while it has not started / closed; `attempt` is the attempt that closed it
 * (1 when the first one did).
 */
export const Stage = z.object({
  kind: StageKind,
  type: z.string().describe('the activity type (retrieve, gradeEvidence, …) or the child workflow type'),
  workflowId: z.string(),
  scheduledAtMs: z.number().min(0),
  startedAtMs: z.number().min(0).nullable(),
  closedAtMs: z.number().min(0).nullable(),
  attempt: z.number().int().min(1),
  status: StageStatus,
});
export type Stage = z.infer<typeof Stage>;

/** One grade of the evidence (a gradeEvidence activity): the model's verdict and the route it resolved to. */
export const RunGrade = z.object({
  workflowId: z.string(),
  question: z.string(),
  relevance: Relevance,
  answerability: Answerability,
  ambiguity: Ambiguity,
  confidence: z.number(),
  reason: z.string(),
  route: Route,
  retrievalStatus: RetrievalStatus,
});
export type RunGrade = z.infer<typeof RunGrade>;

/** One model call of the run or of a sub-question child (issue 24): the activity that made it and how it asked. */
export const RunModelCall = ModelCallRecord.extend({ workflowId: z.string(), activity: z.string() });
export type RunModelCall = z.infer<typeof RunModelCall>;

export const RunDetail = z.object({
  /** The question the run was started with (its workflow input); null for a run resumed from a snapshot. */
  question: z.string().nullable(),
  outcome: RagOutcome,
  /** The normalized trace (spec §5.6); null when the run has none yet. */
  trace: RagTrace.nullable(),
  path: RoutePath,
  /** In history order; a complex run's children after the parent's own (by sub-question). */
  retrievals: z.array(RunRetrieval),
  /** Ordered by scheduledAtMs. */
  timings: z.array(Stage),
  grades: z.array(RunGrade),
  /** In history order; empty for the offline provider (it calls no model) and for runs recorded before issue 24. */
  modelCalls: z.array(RunModelCall),
  hitl: z.array(HitlRound),
  /** From the run's first history event to its last, ms. */
  durationMs: z.number().min(0),
  /** The run in the Temporal Web UI; null when the reader was not told where that UI is. */
  temporalUiUrl: z.string().nullable(),
});
export type RunDetail = z.infer<typeof RunDetail>;
