import { simpleQuestionFastPathReason } from '../core/graph/fast-path';
import type { RagRun } from '../core/run/rag-run';
import { callGrader, callInitialRetrieval, speculateDraft, speculateRewrite, type GradeResult, type RetrieveResult } from './graph-nodes';
import { speculatorOf, type Speculative } from './speculation';

/** What runs beside the planner: the question's retrieval and, at level `grade`, its grade. */
export type AheadOfPlanner = { retrieval: Speculative<RetrieveResult>; grade: Speculative<GradeResult> | null; discard(reason: string): void };

/**
 * When the fast path misses (spec §4.2.1) the planner model decides, and the graph waits on it before its first
 * retrieval. At speculation level `retrieve` that retrieval of the question starts now, beside the planner; at `grade`
 * its grade follows as soon as the evidence is in (at `answer`, the answer draft beside the grade; at `rewrite`, the
 * rewrite too). A planner that
 * says simple gets them as the steps it would have run next (with the same inputs, so the same results and trace);
 * one that says complex drops them. Null when nothing is speculated.
 */
export function speculateAheadOfPlanner(run: RagRun): AheadOfPlanner | null {
  const speculator = speculatorOf(run);
  if (!speculator?.reaches('retrieve') || simpleQuestionFastPathReason(run.question)) return null;
  const question = run.question;
  const retrieval = speculator.start('retrieve', question, 0, () => callInitialRetrieval(run, null, true));
  let grade: Speculative<GradeResult> | null = null;
  grade = !speculator.reaches('grade')
    ? null
    : speculator.start<GradeResult>('grade', question, 0, async () => {
        const retrieved = await retrieval.settled;
        if (!retrieved.ok) throw retrieved.error;
        const { docs } = retrieved.value.data;
        // No evidence: the grader is not called (spec §4.5.1); gradeDocuments applies the no-docs constants. Dropped
        // meanwhile (the planner said complex): nothing more starts.
        if (docs.length === 0 || grade?.closed) return null;
        speculateDraft(speculator, run, question, docs);
        speculateRewrite(speculator, run, question, docs);
        // The planner has not answered, so the run's state is still the question's first pass: rewriteCount 0. The
        // call counts from here: a grade dropped while its retrieval still ran has sent nothing.
        if (grade) grade.modelCalls = 1;
        return callGrader(run, docs, false, null, true);
      });
  return {
    retrieval,
    grade,
    discard(reason) {
      grade?.discard(reason);
      retrieval.discard(reason);
      speculator.discardPending(reason);
    },
  };
}
