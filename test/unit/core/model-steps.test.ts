import { createOfflineChatModels } from '../../../activities/adapters/offline-chat-models';
import { withRuleSteps } from '../../../activities/adapters/rule-steps';
import type { ChatModels } from '../../../activities/ports';
import { parseConfig } from '../../../core/config';
import { LOCAL_MODEL_STEPS, MODEL_FOR_EVERY_STEP, parseModelSteps } from '../../../core/model-steps';
import { answeredBy } from '../../../core/run/answered-by';
import { ComplexityResult } from '../../../core/schemas/model-outputs';

// Issue 43 §2: a pipeline sized for the model — with MODEL_PROVIDER=local the rules plan, rewrite and condense, the
// grade is by probability (§1), and the model writes the answer; MODEL_STEPS says otherwise per step.
describe('MODEL_STEPS: which steps call the model', () => {
  test('defaults: every step the model for a hosted model; for the local one the grade by probability and the rest but the answer the rules', () => {
    expect(LOCAL_MODEL_STEPS).toMatchObject({ plan: 'rules', grade: 'probability', rewrite: 'rules', condense: 'rules' });
    expect(parseConfig({ MODEL_STEPS: 'grade=probability' }).models.steps.grade).toBe('probability');
    expect(() => parseConfig({ MODEL_STEPS: 'plan=probability' })).toThrow(/MODEL_STEPS entry "plan=probability"/);
    expect(parseConfig({}).models.steps).toEqual(MODEL_FOR_EVERY_STEP);
    expect(parseConfig({ MODEL_PROVIDER: 'local' }).models.steps).toEqual(LOCAL_MODEL_STEPS);
    expect(parseConfig({ MODEL_PROVIDER: 'local', MODEL_STEPS: 'grade=model' }).models.steps).toEqual({ ...LOCAL_MODEL_STEPS, grade: 'model' });
  });

  test('a malformed entry is a typed config error naming it', () => {
    const problems: string[] = [];
    parseModelSteps('grade=maybe,answer=rules', false, (message) => problems.push(message));
    expect(problems).toEqual([
      'MODEL_STEPS entry "grade=maybe" is not step=model|rules (grade=probability too) with a step of plan, grade, rewrite, condense, intent: e.g. MODEL_STEPS=grade=model,plan=rules',
      'MODEL_STEPS entry "answer=rules" is not step=model|rules (grade=probability too) with a step of plan, grade, rewrite, condense, intent: e.g. MODEL_STEPS=grade=model,plan=rules',
    ]);
    expect(() => parseConfig({ MODEL_STEPS: 'plan=never' })).toThrow(/MODEL_STEPS entry "plan=never"/);
  });

  test('the rules plan a plain question as one need, never four sub-questions; the model still writes; the record says who graded', async () => {
    const calls: string[] = [];
    const model: ChatModels = {
      describe: 'openai fast=local-1.5b grade=local-1.5b answer=local-1.5b @ 127.0.0.1:8766',
      answerModel: 'local-1.5b',
      planComplexity: async () => (calls.push('plan'), { complexity: 'complex', sub_questions: ['a', 'b', 'c', 'd'] }),
      gradeEvidence: async () => (calls.push('grade'), {}),
      planRewrite: async () => (calls.push('rewrite'), {}),
      writeAnswer: async () => (calls.push('answer'), { answer: 'x', citations: [] }),
    };
    // The grade by the rules alone (MODEL_STEPS grade=rules); the local default grades by probability (probability-grade.test.ts).
    const composed = withRuleSteps(model, createOfflineChatModels(), { ...LOCAL_MODEL_STEPS, grade: 'rules' });
    expect(ComplexityResult.parse(await composed.planComplexity('How do I POST a JSON body with curl?'))).toMatchObject({ complexity: 'simple', sub_questions: [] });
    await composed.writeAnswer({ question: 'q', context: '', evidence: [] });
    expect(calls).toEqual(['answer']);
    // Issue 44 §5: the rules reply to chit-chat too (the offline provider has no model reply).
    expect(composed.replyWithoutRetrieval).toBeUndefined();
    expect(composed.describe).toBe(`${model.describe} rules=plan,grade,rewrite,condense,intent by offline-policy v2`);
    expect(answeredBy(composed.describe, 'local-1.5b')).toMatchObject({ provider: 'openai', endpoint: '127.0.0.1:8766', grader: 'offline-policy v2', writer: 'local-1.5b' });
  });
});
