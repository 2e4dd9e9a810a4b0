import type { EvidenceGrade } from '../schemas/model-outputs';
import type { Route } from '../schemas/graph-values';

/** spec §3: the rewrite budget is one rewrite per run. */
export const REWRITE_BUDGET = 1;

export type RouteContext = {
  /** Whether the graded evidence list is non-empty. */
  hasDocs: boolean;
  rewriteCount: number;
  isSubAgent: boolean;
};

/** `_resolve_route` (spec §4.5.3): the model suggests a route; these rules decide it, first match wins. */
export function resolveRoute(grade: EvidenceGrade, context: RouteContext): Route {
  const suggested = grade.route;
  const supported = grade.relevance === 'strong' && grade.answerability === 'sufficient';
  const budgetLeft = context.rewriteCount < REWRITE_BUDGET;

  if (!context.hasDocs || grade.relevance === 'none') return 'no_knowledge';
  if (grade.ambiguity === 'missing_slot') return 'clarify';
  if (grade.ambiguity === 'multiple_candidates') return 'scope_select';
  if (suggested === 'answer' && supported) return 'answer';
  // Sub-agents never rewrite: any usable evidence is an answer (rule 5).
  if (context.isSubAgent) return grade.answerability === 'none' ? 'no_knowledge' : 'answer';
  if (suggested === 'rewrite') {
    if (budgetLeft) return 'rewrite';
    return grade.answerability === 'partial' ? 'clarify' : 'no_knowledge';
  }
  if (grade.answerability === 'partial') return budgetLeft ? 'rewrite' : 'clarify';
  if (supported) return 'answer';
  return 'no_knowledge';
}
