import type { RunDetail } from '../schemas/run-detail';
import type { ComparedRun, FieldChange, GradeChange, RunComparison } from '../schemas/run-comparison';
import { compareEvidence } from './compare-evidence';
import { compareRanks } from './compare-ranks';
import { compareTimings } from './compare-timings';
import { byPosition, roleOf, unionKeys } from './positions';

/*
 * What changed between two runs (issue 16), typically one question before and after a knowledge change: the route
 * taken, the outcome and trace fields that decide it, every grade, the final evidence, each leg's ranks and the time
 * spent per activity. Lists hold differences only, so a run compared with itself gives empty lists.
 */

type Value = FieldChange['a'];

/** A change when the two values differ (null and absent are the same). */
export function fieldChange(field: string, a: Value | undefined, b: Value | undefined): FieldChange[] {
  const left = a ?? null;
  const right = b ?? null;
  return left === right ? [] : [{ field, a: left, b: right }];
}

function summary(detail: RunDetail): ComparedRun {
  const { outcome } = detail;
  return {
    workflowId: outcome.workflowId,
    question: detail.question,
    kb: outcome.kb,
    status: outcome.status,
    route: outcome.route,
    durationMs: detail.durationMs,
    path: detail.path.nodes.map((node) => node.label),
  };
}

function outcomeChanges(a: RunDetail, b: RunDetail): FieldChange[] {
  const [x, y] = [a.outcome, b.outcome];
  const [s, t] = [a.trace, b.trace];
  return [
    ...fieldChange('question', a.question, b.question),
    ...fieldChange('kb', x.kb, y.kb),
    ...fieldChange('status', x.status, y.status),
    ...fieldChange('route', x.route, y.route),
    ...fieldChange('retrieval_status', x.retrieval_status, y.retrieval_status),
    ...fieldChange('complexity', s?.complexity, t?.complexity),
    ...fieldChange('rewrite_method', s?.rewrite_method, t?.rewrite_method),
    ...fieldChange('retrieval_mode', s?.retrieval_mode, t?.retrieval_mode),
    ...fieldChange('sub_agent_count', s?.sub_agent_count, t?.sub_agent_count),
    ...fieldChange('hitl_rounds', a.hitl.filter((r) => r.round >= 1).length, b.hitl.filter((r) => r.round >= 1).length),
    ...fieldChange('evidence_count', x.docs.length, y.docs.length),
    ...fieldChange('answer_null_reason', x.answer_null_reason, y.answer_null_reason),
    ...fieldChange('answer_verification', x.answer?.verification.status, y.answer?.verification.status),
    ...fieldChange('degraded', x.degraded?.component, y.degraded?.component),
    ...fieldChange('error', x.error?.type, y.error?.type),
  ];
}

const GRADE_FIELDS = ['question', 'relevance', 'answerability', 'ambiguity', 'confidence', 'reason', 'route', 'retrievalStatus'] as const;

function gradeChanges(a: RunDetail, b: RunDetail): GradeChange[] {
  const left = byPosition(a.grades, (grade) => roleOf(a, grade.workflowId));
  const right = byPosition(b.grades, (grade) => roleOf(b, grade.workflowId));
  const positions = unionKeys(left, right);
  return positions.flatMap((position) => {
    const [x, y] = [left.get(position), right.get(position)];
    const changes = GRADE_FIELDS.flatMap((field) => fieldChange(field, x?.[field], y?.[field]));
    return changes.length > 0 ? [{ position, changes }] : [];
  });
}

/** What differs between run `a` and run `b` (b − a for deltas). */
export function compareRuns(a: RunDetail, b: RunDetail): RunComparison {
  const [pathA, pathB] = [summary(a).path, summary(b).path];
  const routeChanged = pathA.join('\u0000') !== pathB.join('\u0000');
  const changes = outcomeChanges(a, b);
  const grades = gradeChanges(a, b);
  const evidence = compareEvidence(a.outcome.docs, b.outcome.docs);
  const ranks = compareRanks(a, b);
  const evidenceChanged = evidence.entered.length + evidence.left.length + evidence.moved.length > 0;
  return {
    a: summary(a),
    b: summary(b),
    sameQuestion: a.question === b.question,
    changed: routeChanged || changes.length > 0 || grades.length > 0 || evidenceChanged || ranks.length > 0,
    routeChanged,
    changes,
    grades,
    evidence,
    ranks,
    timings: compareTimings(a, b),
  };
}
