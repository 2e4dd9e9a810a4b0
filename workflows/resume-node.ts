import { proxyActivities } from '@temporalio/workflow';
import type { RagActivities } from '../activities/contracts';
import { refinedQuestionForHitl } from '../core/graph/hitl-resume';
import { chosenScope } from '../core/graph/scope-pick';
import type { RagRun } from '../core/run/rag-run';
import * as steps from '../core/progress/step-messages';
import type { HitlResumeState } from '../core/schemas/hitl-resume-state';
import { resumeStartFragment, targetedRetrievalFragment } from '../core/trace/writers';
import { RETRIEVAL } from './activity-options';
import { gradeDocuments, retrievalTarget } from './graph-nodes';
import { stampNow } from './stamp-clock';

const retrieval = proxyActivities<RagActivities>(RETRIEVAL);

/**
 * `resume_rag_from_hitl` (spec §4.11): the refined question q*, a targeted retrieval, one grade, stop. It never
 * re-classifies, never fans out and never rewrites: a `rewrite` route is returned as it is.
 */
export async function resumeWithAnswer(run: RagRun, snapshot: HitlResumeState, rawAnswer: string): Promise<void> {
  // Issue 32 §2: an answer to scope_select that names one of the documents offered (its title, file name or id)
  // limits the targeted retrieval to it, and the refined question carries its title. A run resumed from a snapshot
  // has no documents: the answer is taken as typed.
  const scope = snapshot.route === 'scope_select' ? chosenScope(rawAnswer, run.scopeCandidates) : null;
  run.scope = scope;
  const refined = refinedQuestionForHitl(snapshot, scope?.title ?? rawAnswer);
  run.question = refined;
  run.rewriteCount = snapshot.rewrite_count;
  run.complexity = snapshot.complexity;
  run.complexityReason = snapshot.complexity_reason;
  run.subQuestions = [...snapshot.sub_questions];
  run.docs = [];
  run.route = null;
  run.retrievalStatus = null;
  run.applyTrace(resumeStartFragment(snapshot, refined, rawAnswer));
  run.step(steps.resumeReceived(rawAnswer), stampNow(run));

  run.step(steps.targetedRetrievalStarted(), stampNow(run));
  run.audit.beginInvocation('hitl_targeted', refined, stampNow(run));
  const result = await retrieval.retrieve.executeWithOptions({ ...RETRIEVAL, summary: 'hitl_targeted_retrieval' }, [
    { query: refined, purpose: 'hitl_targeted', ...retrievalTarget(run), ...(scope ? { docIds: scope.docIds } : {}) },
  ]);
  run.retrieved(result.data, 'hitl_targeted');
  run.docs = result.data.docs;
  run.applyTrace(targetedRetrievalFragment(refined, run.docs), result.traceFragment);
  run.step(steps.targetedRetrievalDone(result.data.meta, run.docs.length), stampNow(run));
  await gradeDocuments(run, false);
}
