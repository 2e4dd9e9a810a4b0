import { RagError } from '../errors';
import { pythonStrip } from '../python-text';
import { MAX_SUB_QUESTIONS, type ComplexityResult } from '../schemas/model-outputs';
import type { Complexity } from '../schemas/graph-values';

export type ComplexityPlan = { complexity: Complexity; complexityReason: string; subQuestions: string[] };

/** Trims sub-questions, drops blank ones, keeps the first 4 (spec §4.2 step 5, §4.3). */
export function cleanSubQuestions(subQuestions: readonly string[]): string[] {
  return subQuestions.map(pythonStrip).filter(Boolean).slice(0, MAX_SUB_QUESTIONS);
}

/**
 * Post-processes the planner's output (spec §4.2 steps 5–8). A complex plan with no usable sub-question is an
 * error (T25); a single sub-question is accepted (T26). A simple plan writes an empty list.
 */
export function cleanComplexityResult(result: ComplexityResult): ComplexityPlan {
  const complexity = pythonStrip(result.complexity).toLowerCase() || 'simple';
  if (complexity !== 'simple' && complexity !== 'complex') {
    throw new RagError('MODEL_OUTPUT_INVALID', `complexity planner returned complexity "${complexity}"; expected simple or complex`);
  }
  const subQuestions = cleanSubQuestions(result.sub_questions);
  if (complexity === 'complex' && subQuestions.length === 0) {
    throw new RagError('PLANNER_NO_SUB_QUESTIONS', 'Complexity planner returned no sub-questions');
  }
  return {
    complexity,
    complexityReason: pythonStrip(result.reason),
    subQuestions: complexity === 'complex' ? subQuestions : [],
  };
}
