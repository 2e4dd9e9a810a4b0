import { Context } from '@temporalio/activity';
import { composeRewrite } from '../core/graph/compose-rewrite';
import { formatDocs } from '../core/graph/format-docs';
import { gradeStep } from '../core/graph/grade-step';
import { cleanComplexityResult } from '../core/graph/plan-complexity';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../core/schemas/model-outputs';
import { rewritePlanFragment } from '../core/trace/writers';
import type { GenerateAnswerInput, GradeEvidenceInput, PlanComplexityInput, PlanRewriteInput, RagActivities } from './contracts';
import { writeVerifiedAnswer } from './answer-writer';
import { parseModelOutput, rethrowAsModelOutput } from './model-output';
import type { ChatModels } from './ports';

const attempt = (): number => Context.current().info.attempt;

type Where = { model: string; schema: string; attempt: number };

/**
 * Calls the adapter. Its RagErrors become failures here: MODEL_OUTPUT_INVALID (an unreadable reply) counts against
 * the schema budget, MODEL_NOT_CONFIGURED and other terminal codes fail at once. Anything else (transport failures,
 * already ApplicationFailures) goes to Temporal's retry policy unchanged.
 */
async function callModel(call: () => Promise<unknown>, where: Where): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    return rethrowAsModelOutput(error, where);
  }
}

/**
 * The model activities (spec §4.2, §4.5, §4.7, and the answer node): call the model, validate its reply, apply the
 * core rules.
 */
export function modelActivities(models: ChatModels): Pick<RagActivities, 'planComplexity' | 'gradeEvidence' | 'planRewrite' | 'generateAnswer'> {
  return {
    async planComplexity({ question }: PlanComplexityInput) {
      const where = { model: models.describe, schema: 'complexity_result', attempt: attempt() };
      const result = parseModelOutput(ComplexityResult, await callModel(() => models.planComplexity(question), where), where);
      try {
        // The planner never writes the trace (spec §4.2, last line).
        return { data: cleanComplexityResult(result), traceFragment: { fields: {} }, producedBy: models.describe };
      } catch (error) {
        return rethrowAsModelOutput(error, where);
      }
    },

    async gradeEvidence({ question, docs, rewriteCount, isSubAgent }: GradeEvidenceInput) {
      const where = { model: models.describe, schema: 'evidence_grade', attempt: attempt() };
      const grade = parseModelOutput(
        EvidenceGrade,
        await callModel(() => models.gradeEvidence(question, formatDocs(docs), docs), where),
        where,
      );
      const { traceFragment, docs: _kept, ...decision } = gradeStep({ grade, docs, rewriteCount, isSubAgent });
      return { data: { ...decision, grade }, traceFragment, producedBy: models.describe };
    },

    async planRewrite({ question, rewriteCount }: PlanRewriteInput) {
      const where = { model: models.describe, schema: 'rewrite_plan', attempt: attempt() };
      const plan = parseModelOutput(RewritePlan, await callModel(() => models.planRewrite(question), where), where);
      try {
        const rewrite = composeRewrite(question, plan);
        return { data: rewrite, traceFragment: rewritePlanFragment(rewrite, rewriteCount), producedBy: models.describe };
      } catch (error) {
        return rethrowAsModelOutput(error, where);
      }
    },

    async generateAnswer(input: GenerateAnswerInput) {
      const answer = await writeVerifiedAnswer(models, input, attempt(), () => Date.now());
      // No trace fields: the answer sits beside the 59-field trace.
      return { data: answer, traceFragment: { fields: {} }, producedBy: models.describe };
    },
  };
}
