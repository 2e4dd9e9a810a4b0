import { Context } from '@temporalio/activity';
import { composeRewrite } from '../core/graph/compose-rewrite';
import { formatDocs } from '../core/graph/format-docs';
import { gradeStep } from '../core/graph/grade-step';
import { cleanComplexityResult } from '../core/graph/plan-complexity';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../core/schemas/model-outputs';
import { rewritePlanFragment } from '../core/trace/writers';
import type { GenerateAnswerInput, GradeEvidenceInput, PlanComplexityInput, PlanRewriteInput, RagActivities } from './contracts';
import type { AnswerStreamStore } from './adapters/sql-answer-stream';
import { answerStreamPublisher } from './answer-stream-publisher';
import { writeVerifiedAnswer } from './answer-writer';
import { parseModelOutput, rethrowAsModelOutput } from './model-output';
import type { CallReport, ChatModels } from './ports';
import { describeWithPlans, type ModelCallRecord } from '../core/schemas/model-call';
import type { AnswerCheckAction } from '../core/schemas/answer';

const attempt = (): number => Context.current().info.attempt;

/** The run memo's models: the provider, and the rung and temperature each model uses after this call (issue 24). */
const producedBy = (models: ChatModels): string => describeWithPlans(models.describe, models.plans?.());

type Where = { model: string; schema: string; attempt: number };

/**
 * Calls the adapter. Its RagErrors become failures here: MODEL_OUTPUT_INVALID (an unreadable reply) counts against
 * the schema budget, MODEL_NOT_CONFIGURED and other terminal codes fail at once. Anything else (transport failures,
 * already ApplicationFailures) goes to Temporal's retry policy unchanged.
 */
async function callModel(call: (report: CallReport) => Promise<unknown>, where: Where, calls: ModelCallRecord[]): Promise<unknown> {
  try {
    return await call((record) => calls.push(record));
  } catch (error) {
    return rethrowAsModelOutput(error, where);
  }
}

/**
 * The model activities (spec §4.2, §4.5, §4.7, and the answer node): call the model, validate its reply, apply the
 * core rules.
 */
export function modelActivities(
  models: ChatModels,
  options: { answerCheck?: AnswerCheckAction; answerStream?: AnswerStreamStore } = {},
): Pick<RagActivities, 'planComplexity' | 'gradeEvidence' | 'planRewrite' | 'generateAnswer'> {
  return {
    async planComplexity({ question, attempt: workflowAttempt }: PlanComplexityInput) {
      const where = { model: models.describe, schema: 'complexity_result', attempt: workflowAttempt ?? attempt() };
      const modelCalls: ModelCallRecord[] = [];
      const result = parseModelOutput(ComplexityResult, await callModel((report) => models.planComplexity(question, report), where, modelCalls), where);
      try {
        // The planner never writes the trace (spec §4.2, last line).
        return { data: cleanComplexityResult(result), traceFragment: { fields: {} }, producedBy: producedBy(models), modelCalls };
      } catch (error) {
        return rethrowAsModelOutput(error, where);
      }
    },

    async gradeEvidence({ question, docs, rewriteCount, isSubAgent, scope }: GradeEvidenceInput) {
      const where = { model: models.describe, schema: 'evidence_grade', attempt: attempt() };
      const modelCalls: ModelCallRecord[] = [];
      const grade = parseModelOutput(
        EvidenceGrade,
        await callModel((report) => (scope ? models.gradeEvidence(question, formatDocs(docs), docs, report, { scope }) : models.gradeEvidence(question, formatDocs(docs), docs, report)), where, modelCalls),
        where,
      );
      const { traceFragment, docs: _kept, ...decision } = gradeStep({ grade, docs, rewriteCount, isSubAgent });
      return { data: { ...decision, grade }, traceFragment, producedBy: producedBy(models), modelCalls };
    },

    async planRewrite({ question, rewriteCount }: PlanRewriteInput) {
      const where = { model: models.describe, schema: 'rewrite_plan', attempt: attempt() };
      const modelCalls: ModelCallRecord[] = [];
      const plan = parseModelOutput(RewritePlan, await callModel((report) => models.planRewrite(question, report), where, modelCalls), where);
      try {
        const rewrite = composeRewrite(question, plan);
        return { data: rewrite, traceFragment: rewritePlanFragment(rewrite, rewriteCount), producedBy: producedBy(models), modelCalls };
      } catch (error) {
        return rethrowAsModelOutput(error, where);
      }
    },

    async generateAnswer(input: GenerateAnswerInput) {
      const modelCalls: ModelCallRecord[] = [];
      // Issue 25 §2: the text goes to the side channel as it is written, when the run names a generation for it.
      const workflowId = Context.current().info.workflowExecution?.workflowId;
      const publisher =
        input.stream && options.answerStream && workflowId
          ? answerStreamPublisher(options.answerStream, { workflowId, generation: input.stream.generation, attempt: attempt() })
          : null;
      let answer;
      try {
        answer = await writeVerifiedAnswer(models, input, attempt(), () => Date.now(), (record) => modelCalls.push(record), options.answerCheck, publisher?.onText);
      } finally {
        await publisher?.end();
      }
      // No trace fields: the answer sits beside the 59-field trace.
      return { data: answer, traceFragment: { fields: {} }, producedBy: producedBy(models), modelCalls };
    },
  };
}
