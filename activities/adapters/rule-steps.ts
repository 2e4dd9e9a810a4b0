import { ruleSteps, type ModelSteps } from '../../core/model-steps';
import type { ChatModels } from '../ports';

/*
 * A model provider with some steps done by the offline policy's rules instead (issue 43 §2, MODEL_STEPS): the small
 * local model writes the answer; the rules plan, grade, rewrite and condense, in milliseconds and as measured in
 * docs/offline-policy.md. The description names the steps the rules do, so a run's record says who did what
 * (core/run/answered-by.ts reads it back).
 */

export function withRuleSteps(model: ChatModels, rules: ChatModels, steps: ModelSteps): ChatModels {
  const byRules = ruleSteps(steps);
  const pick = <K extends keyof ChatModels>(step: keyof ModelSteps, key: K): ChatModels[K] => (steps[step] === 'rules' ? rules[key] : model[key]);
  const condense = pick('condense', 'condenseQuestion');
  const reply = pick('intent', 'replyWithoutRetrieval');
  return {
    describe: `${model.describe} rules=${byRules.join(',')} by ${rules.describe}`,
    answerModel: model.answerModel,
    planComplexity: pick('plan', 'planComplexity').bind(steps.plan === 'rules' ? rules : model),
    gradeEvidence: pick('grade', 'gradeEvidence').bind(steps.grade === 'rules' ? rules : model),
    planRewrite: pick('rewrite', 'planRewrite').bind(steps.rewrite === 'rules' ? rules : model),
    writeAnswer: model.writeAnswer.bind(model),
    ...(condense ? { condenseQuestion: condense.bind(steps.condense === 'rules' ? rules : model) } : {}),
    ...(reply ? { replyWithoutRetrieval: reply.bind(steps.intent === 'rules' ? rules : model) } : {}),
    ...(model.plans ? { plans: model.plans.bind(model) } : {}),
    ...(model.probe ? { probe: model.probe.bind(model) } : {}),
  };
}
