import { scopeCandidates } from '../core/graph/scope-pick';
import { proxyActivities } from '@temporalio/workflow';
import type { ActivityResult, RagActivities } from '../activities/contracts';
import type { ComplexityPlan } from '../core/graph/plan-complexity';
import { evidenceAfterRoute, gradeStep } from '../core/graph/grade-step';
import { gradeForNoDocs } from '../core/graph/grade-update';
import { REWRITE_BUDGET } from '../core/graph/resolve-route';
import { simpleQuestionFastPathReason } from '../core/graph/fast-path';
import type { RagRun } from '../core/run/rag-run';
import type { FilterClause, MetadataFilters } from '../core/retrieval/metadata-filter';
import type { StepGroup } from '../core/progress/rag-step';
import * as steps from '../core/progress/step-messages';
import {
  initialRetrievalFragment,
  rewriteBudgetExhaustedFragment,
  rewrittenRetrievalFragment,
} from '../core/trace/writers';
import { MODEL_CALL, RETRIEVAL } from './activity-options';
import { noteModels } from './publish-state';
import { speculatorOf, type Speculative, type Speculator } from './speculation';
import { stampNow } from './stamp-clock';

export type RetrieveResult = Awaited<ReturnType<RagActivities['retrieve']>>;
/** A grade of the evidence, or null when there was none to grade (the no-docs constants apply, spec §4.5.1). */
export type GradeResult = Awaited<ReturnType<RagActivities['gradeEvidence']>> | null;

/*
 * The nodes of the graph (spec §4), each a small function over the run's state. Activity calls carry the node's
 * name as their summary, so a history in the Temporal UI reads like the graph.
 */

const models = proxyActivities<RagActivities>(MODEL_CALL);

/** What every retrieval of the run reads: its knowledge base, its filters and its forced clauses (issue 44), when set. */
export const retrievalTarget = (run: RagRun): { kb?: string; filters?: MetadataFilters; forced?: FilterClause[] } => ({
  ...(run.kb === null ? {} : { kb: run.kb }),
  ...(run.filters === null ? {} : { filters: run.filters }),
  ...(run.forced.length === 0 ? {} : { forced: run.forced }),
});
const retrieval = proxyActivities<RagActivities>(RETRIEVAL);

/** `classify_complexity` (spec §4.2): the fast path in workflow code, else the planner model. */
/** The planner's activity call: Temporal's retries by default; the workflow's own when speculation needs to see attempts. */
export type PlannerCall = (question: string) => Promise<ActivityResult<ComplexityPlan>>;

export async function classifyComplexity(run: RagRun, callPlanner?: PlannerCall): Promise<void> {
  run.step(steps.classifyStarted(), stampNow(run));
  const fastPathReason = simpleQuestionFastPathReason(run.question);
  if (fastPathReason) {
    run.complexity = 'simple';
    run.complexityReason = fastPathReason;
    run.step(steps.fastPathSimple(), stampNow(run));
    return;
  }
  const plan = callPlanner
    ? await callPlanner(run.question)
    : await models.planComplexity.executeWithOptions({ ...MODEL_CALL, summary: 'classify_complexity' }, [{ question: run.question }]);
  noteModels(run, plan.producedBy);
  run.applyTrace(plan.traceFragment);
  run.complexity = plan.data.complexity;
  run.complexityReason = plan.data.complexityReason;
  run.subQuestions = plan.data.subQuestions;
  run.step(steps.plannedComplexity(plan.data.complexity, plan.data.complexityReason), stampNow(run));
}

/** The activity call of `retrieve_initial` for the run's question (speculation starts it before the planner answers). */
export const callInitialRetrieval = (run: RagRun, group: StepGroup = null, speculative = false): Promise<RetrieveResult> =>
  retrieval.retrieve.executeWithOptions(
    { ...RETRIEVAL, summary: `${speculative ? 'speculative ' : ''}${group ? `retrieve (${group.group})` : 'retrieve_initial'}` },
    [{ query: run.question, purpose: group ? 'sub_question' : 'initial', ...retrievalTarget(run) }],
  );

/** The grader's activity call on `docs` for the run's question (speculation starts it before the planner answers). */
export const callGrader = (run: RagRun, docs: RagRun['docs'], isSubAgent: boolean, group: StepGroup = null, speculative = false) =>
  models.gradeEvidence.executeWithOptions(
    { ...MODEL_CALL, summary: `${speculative ? 'speculative ' : ''}${group ? `grade_documents (${group.group})` : 'grade_documents'}` },
    [{ docs, rewriteCount: run.rewriteCount, isSubAgent, question: run.question, ...(run.scope ? { scope: run.scope.title } : {}) }],
  );

/** The answer writer's first call (`generate_answer`); a speculative one runs beside the grader. */
/** `generate_answer`'s activity call; on a turn with history the writer also sees the conversation (issue 25 §1). */
export const callAnswerWriter = (run: RagRun, question: string, docs: RagRun['docs'], generation: string, speculative = false) =>
  models.generateAnswer.executeWithOptions({ ...MODEL_CALL, summary: `${speculative ? 'speculative ' : ''}generate_answer` }, [
    // The activity input is not part of what replay compares: naming the stream changes no command (issue 25 §2).
    { question, docs, stream: { generation }, ...(run.answerConversation ? { conversation: run.answerConversation } : {}) },
  ]);

/** At speculation level `answer`: the draft beside the grader, under a generation of its own (shown only if taken). */
export function speculateDraft(speculator: Speculator, run: RagRun, question: string, docs: RagRun['docs']): void {
  const generation = run.newAnswerGeneration();
  speculator.draftFor(question, docs, () => callAnswerWriter(run, question, docs, generation, true), generation);
}

/** `rewrite_question`'s activity call; a speculative one runs beside the grader (level `rewrite`). */
const callRewritePlan = (question: string, rewriteCount: number, speculative = false) =>
  models.planRewrite.executeWithOptions({ ...MODEL_CALL, summary: `${speculative ? 'speculative ' : ''}rewrite_question` }, [{ question, rewriteCount }]);

/** `retrieve_rewritten`'s activity call for the rewritten query. */
const callRewrittenRetrieval = (run: RagRun, query: string, speculative = false): Promise<RetrieveResult> =>
  retrieval.retrieve.executeWithOptions({ ...RETRIEVAL, summary: `${speculative ? 'speculative ' : ''}retrieve_rewritten` }, [{ query, purpose: 'rewritten', ...retrievalTarget(run) }]);

/** A rewrite started beside the grader: its plan, and the rewritten query's retrieval already running. */
type RewriteAhead = { plan: Awaited<ReturnType<typeof callRewritePlan>>; retrieved: Promise<RetrieveResult> };

async function rewriteAhead(run: RagRun, question: string, rewriteCount: number): Promise<RewriteAhead> {
  const plan = await callRewritePlan(question, rewriteCount, true);
  const retrieved = callRewrittenRetrieval(run, plan.data.rewritten_query, true);
  retrieved.catch(() => undefined); // awaited by the rewrite node when used; a dropped one is cancelled
  return { plan, retrieved };
}

/**
 * At level `rewrite`: the rewrite beside a grade of `docs` for the top-level question, when that grade could route to
 * rewrite (spec §4.5.3: evidence to grade, the rewrite budget unspent). Started once per question.
 */
export function speculateRewrite(speculator: Speculator, run: RagRun, question: string, docs: RagRun['docs']): void {
  const rewriteCount = run.rewriteCount;
  if (docs.length > 0 && rewriteCount < REWRITE_BUDGET) speculator.rewriteFor(question, () => rewriteAhead(run, question, rewriteCount));
}

/**
 * `retrieve_initial` (spec §4.4): a new trace; complexity fields are null in sub-questions. `ahead`: the same call,
 * started speculatively beside the planner; its result is applied here, in the graph's order, as if called now.
 */
export async function retrieveInitial(run: RagRun, group: StepGroup = null, ahead?: Speculative<RetrieveResult>): Promise<void> {
  run.step(steps.initialRetrievalStarted(), stampNow(run), group);
  run.audit.beginInvocation(group ? 'sub_question' : 'initial', run.question, stampNow(run));
  const result = ahead ? await ahead.use() : await callInitialRetrieval(run, group);
  run.retrieved(result.data, group ? 'sub_question' : 'initial');
  run.docs = result.data.docs;
  run.applyTrace(
    initialRetrievalFragment({
      query: run.question,
      docs: run.docs,
      complexity: run.complexity,
      complexityReason: run.complexityReason,
    }),
    result.traceFragment,
  );
  run.step(steps.initialRetrievalDone(result.data.meta, run.docs.length), stampNow(run), group);
}

/**
 * `grade_documents` (spec §4.5): the grader is not called when there is no evidence (spec §4.5.1). `ahead`: the same
 * grade, started speculatively beside the planner. At speculation level `answer` the answer draft runs beside the
 * grader and is kept only if the grade routes to `answer`.
 */
export async function gradeDocuments(run: RagRun, isSubAgent: boolean, group: StepGroup = null, ahead?: Speculative<GradeResult>): Promise<void> {
  run.step(steps.gradingStarted(), stampNow(run), group);
  const speculator = isSubAgent ? null : speculatorOf(run);
  const question = run.question;
  const docs = run.docs;
  if (speculator) speculateDraft(speculator, run, question, docs);
  if (speculator) speculateRewrite(speculator, run, question, docs);
  const graded = ahead ? await ahead.use() : docs.length === 0 ? null : await callGrader(run, docs, isSubAgent, group);
  const input = { docs, rewriteCount: run.rewriteCount, isSubAgent };
  const { data, traceFragment, producedBy } = graded ?? withGrade(gradeStep({ ...input, grade: gradeForNoDocs() }), gradeForNoDocs());
  noteModels(run, producedBy);
  speculator?.settleDraft(data.route);
  speculator?.settleRewrite(data.route);
  run.route = data.route;
  run.retrievalStatus = data.retrievalStatus;
  // Issue 32 §2: the documents offered, so that a person's pick can name one after the evidence is dropped.
  run.scopeCandidates = data.route === 'scope_select' ? scopeCandidates(run.docs) : [];
  run.docs = evidenceAfterRoute(data.route, run.docs);
  run.applyTrace(traceFragment);
  run.audit.graded(
    {
      route: data.route,
      retrievalStatus: data.retrievalStatus,
      relevance: data.grade.relevance,
      answerability: data.grade.answerability,
      confidence: data.grade.confidence,
      keptCount: run.docs.length,
      gradedBy: producedBy ?? null,
    },
    stampNow(run),
  );
  run.step(
    steps.graded(data.route, data.retrievalStatus, data.grade.confidence, data.update.hitl_prompt, data.grade.reason),
    stampNow(run),
    group,
  );
}

function withGrade(step: ReturnType<typeof gradeStep>, grade: ReturnType<typeof gradeForNoDocs>) {
  const { traceFragment, docs: _docs, ...rest } = step;
  return { data: { ...rest, grade }, traceFragment, producedBy: undefined };
}

/**
 * `rewrite_question` then `retrieve_rewritten` (spec §4.7–§4.8): one rewrite, after which the graph grades again. At
 * speculation level `rewrite` both may have started beside the grader; their results are applied here, in order.
 * Returns false when the budget was already spent (nothing retrieved, the run ends as no_knowledge).
 */
export async function rewriteAndRetrieve(run: RagRun): Promise<boolean> {
  if (run.rewriteCount >= 1) {
    // The defensive branch (spec §4.7.2): unreachable, since resolveRoute never rewrites twice; a terminal guard.
    run.step(steps.rewriteBudgetExhausted(), stampNow(run));
    run.route = 'no_knowledge';
    run.retrievalStatus = 'no_knowledge';
    run.docs = [];
    run.applyTrace(rewriteBudgetExhaustedFragment());
    return false;
  }
  run.step(steps.rewriteStarted(), stampNow(run));
  const speculative = speculatorOf(run)?.takeRewrite<RewriteAhead>(run.question) ?? null;
  const ahead = speculative ? await speculative.use() : null;
  const plan = ahead?.plan ?? (await callRewritePlan(run.question, run.rewriteCount));
  const rewrite = plan.data;
  noteModels(run, plan.producedBy);
  run.rewriteCount += 1;
  run.applyTrace(plan.traceFragment);
  run.step(steps.rewriteChosen(rewrite.rewrite_method), stampNow(run));

  run.step(steps.rewrittenRetrievalStarted(rewrite.rewrite_method), stampNow(run));
  run.audit.beginInvocation('rewritten', rewrite.rewritten_query, stampNow(run));
  const result = ahead ? await ahead.retrieved : await callRewrittenRetrieval(run, rewrite.rewritten_query);
  run.retrieved(result.data, 'rewritten');
  run.docs = result.data.docs;
  run.applyTrace(rewrittenRetrievalFragment(rewrite, run.docs), result.traceFragment);
  run.step(steps.rewrittenRetrievalDone(rewrite.rewrite_method, result.data.meta, run.docs.length), stampNow(run));
  return true;
}
