import type { EvidenceGrade } from '../schemas/model-outputs';
import type { RetrievalStatus, Route } from '../schemas/graph-values';
import type { Chunk } from '../schemas/retrieved-chunk';
import type { TraceFragment } from '../trace/fragment';
import { gradeFragment } from '../trace/writers';
import { gradeUpdate, type GradeUpdate } from './grade-update';
import { resolveRoute } from './resolve-route';

export type GradeStepInput = {
  grade: EvidenceGrade;
  docs: Chunk[];
  rewriteCount: number;
  isSubAgent: boolean;
};

export type GradeStepResult = {
  route: Route;
  retrievalStatus: RetrievalStatus;
  update: GradeUpdate;
  /** The evidence after grading: emptied for no_knowledge, clarify and scope_select (spec §4.5 step 7). */
  docs: Chunk[];
  traceFragment: TraceFragment;
};

const DROPS_EVIDENCE: ReadonlySet<Route> = new Set<Route>(['no_knowledge', 'clarify', 'scope_select']);

/** The evidence a route keeps: answer and rewrite keep it, the others empty it (spec §4.5 step 7). */
export function evidenceAfterRoute(route: Route, docs: Chunk[]): Chunk[] {
  return DROPS_EVIDENCE.has(route) ? [] : docs;
}

/** What `grade_documents_node` decides from a grade (spec §4.5 steps 3–7), without the model call. */
export function gradeStep(input: GradeStepInput): GradeStepResult {
  const hasDocs = input.docs.length > 0;
  const route = resolveRoute(input.grade, {
    hasDocs,
    rewriteCount: input.rewriteCount,
    isSubAgent: input.isSubAgent,
  });
  const update = gradeUpdate(input.grade, route);
  return {
    route,
    retrievalStatus: update.retrieval_status,
    update,
    docs: evidenceAfterRoute(route, input.docs),
    traceFragment: gradeFragment(update, hasDocs),
  };
}
