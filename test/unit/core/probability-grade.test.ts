import { createOfflineChatModels } from '../../../activities/adapters/offline-chat-models';
import { createModelCapabilities } from '../../../activities/adapters/model-capabilities';
import { withProbabilityGrade } from '../../../activities/adapters/probability-grade';
import type { YesNoReader } from '../../../activities/adapters/openai-yes-no';
import { withRuleSteps } from '../../../activities/adapters/rule-steps';
import type { ChatModels } from '../../../activities/ports';
import { LOCAL_MODEL_STEPS } from '../../../core/model-steps';
import { FITTED_DECISION } from '../../../core/grading/decision-coefficients';
import { combinedDecision, type ProbabilityDecision } from '../../../core/grading/probability-decision';
import { yesProbability } from '../../../core/grading/yes-probability';
import { buildAnswerPrompt } from '../../../core/prompts/answer-prompt';
import { formatDocs } from '../../../core/graph/format-docs';
import { buildYesNoGradePrompt } from '../../../core/prompts/yes-no-grade-prompt';
import { answeredBy } from '../../../core/run/answered-by';
import { describeModelPlan } from '../../../core/schemas/model-call';
import type { Chunk } from '../../../core/schemas/retrieved-chunk';

// Issue 43 §1: decisions a small model can make, read from token probabilities.

test('P(yes) from top_logprobs: yes-like tokens against no-like ones, renormalized; null when neither is there', () => {
  const top = [
    { token: 'Yes', logprob: Math.log(0.6) },
    { token: ' yes', logprob: Math.log(0.1) },
    { token: 'No', logprob: Math.log(0.2) },
    { token: 'Maybe', logprob: Math.log(0.1) },
  ];
  expect(yesProbability(top)).toBeCloseTo(0.7 / 0.9, 6);
  expect(yesProbability([{ token: '是', logprob: Math.log(0.3) }, { token: '否', logprob: Math.log(0.1) }])).toBeCloseTo(0.75, 6);
  expect(yesProbability([{ token: 'The', logprob: -0.1 }])).toBeNull();
});

test('the evidence is read once: each yes/no prompt extends the one before up to its question, and the answer prompt extends the last', () => {
  const evidence: Chunk[] = [
    { filename: 'warranty.md', text: 'The Aurora X2 router has a two-year warranty.' },
    { filename: 'setup.md', text: 'Plug the Aurora X2 router in and wait for the light.' },
    { filename: 'other.md', text: 'Unrelated.' },
  ];
  const question = 'How long is the warranty?';
  const [first, second] = [0, 1].map((index) => buildYesNoGradePrompt(question, evidence, index).content);
  const answer = buildAnswerPrompt(question, formatDocs(evidence)).content;
  const beforeAsking = (prompt: string) => prompt.slice(0, prompt.lastIndexOf('\n\nBefore you answer:'));
  expect(second!.startsWith(beforeAsking(first!))).toBe(true);
  expect(answer.startsWith(beforeAsking(second!))).toBe(true);
  expect(first).toMatch(/does snippet \[1\] contain the answer to the question\? Reply with one word, yes or no\.$/);
  expect(first).not.toContain('setup.md');
  expect(buildYesNoGradePrompt('保修期多长？', evidence, 1).content).toMatch(/片段 \[2\] 是否包含这个问题的答案？只回答一个词：是 或 否。$/);
});

const MODEL: ProbabilityDecision = { version: 't', candidates: 2, weights: [1, 2], intercept: 0, answerAt: 0.6, rewriteAt: 0.3, fittedOn: { sets: [], questions: 0, sha256: '', date: '', model: '' } };

test('the combined decision: the model\'s confident yes lifts an unsure offline P; without any P(yes) the offline decision stands', () => {
  const lifted = combinedDecision(0.5, [0.95, 0.2], MODEL, FITTED_DECISION);
  // logit(0.5) = 0; 2 × logit(0.95) = 5.89 → P 0.997
  expect(lifted.p).toBeCloseTo(1 / (1 + Math.exp(-2 * Math.log(0.95 / 0.05))), 6);
  expect([lifted.answerAt, lifted.rewriteAt]).toEqual([0.6, 0.3]);
  expect(combinedDecision(0.5, [0.05], MODEL, FITTED_DECISION).p).toBeLessThan(0.01);
  expect(combinedDecision(0.42, [null, null], MODEL, FITTED_DECISION)).toMatchObject({ p: 0.42, answerAt: FITTED_DECISION.answerAt, rewriteAt: FITTED_DECISION.rewriteAt });
});

const EVIDENCE: Chunk[] = [
  { filename: 'warranty.md', text: 'The Aurora X2 router has a two-year warranty.' },
  { filename: 'setup.md', text: 'Plug the Aurora X2 router in and wait for the light.' },
  { filename: 'other.md', text: 'Unrelated.' },
];

function models(calls: string[]): ChatModels {
  return {
    describe: 'openai fast=m grade=m answer=m @ 127.0.0.1:8766',
    answerModel: 'm',
    planComplexity: async () => ({}),
    gradeEvidence: async () => (calls.push('structured grade'), { route: 'answer' }),
    planRewrite: async () => ({}),
    writeAnswer: async () => ({ answer: 'x', citations: [] }),
  };
}

function reader(answers: Array<number | null>, calls: string[], supported = () => true): YesNoReader {
  return {
    model: 'm',
    supported,
    yesProbability: async (_question, evidence, index) => (calls.push(`yes/no ${evidence[index]?.filename}`), answers.shift() ?? null),
  };
}

test('MODEL_STEPS grade=probability: the first candidates asked one by one, the rules grade with their P(yes), the record names both', async () => {
  const calls: string[] = [];
  const composed = withProbabilityGrade(withRuleSteps(models(calls), createOfflineChatModels(), LOCAL_MODEL_STEPS), createOfflineChatModels(), reader([0.9, 0.2], calls), 2);
  const grade = (await composed.gradeEvidence('How long is the Aurora X2 warranty?', '', EVIDENCE)) as { reason: string };
  expect(calls).toEqual(['yes/no warranty.md', 'yes/no setup.md']);
  // Without an embedding model the offline grade is v2's words (the combined decision needs v3's P): the grade is the rules'.
  expect(typeof grade.reason).toBe('string');
  expect(answeredBy(composed.describe, 'm')?.grader).toBe('m P(yes) with offline-policy v2');
});

test('a model whose endpoint returns no logprobs is graded by the spec\'s structured grade', async () => {
  const calls: string[] = [];
  let supported = true;
  const yesNo = reader([], calls, () => supported);
  yesNo.yesProbability = async () => {
    calls.push('yes/no refused');
    supported = false;
    return null;
  };
  const composed = withProbabilityGrade(models(calls), createOfflineChatModels(), yesNo, 2);
  expect(await composed.gradeEvidence('q', '', EVIDENCE)).toEqual({ route: 'answer' });
  expect(await composed.gradeEvidence('q', '', EVIDENCE)).toEqual({ route: 'answer' });
  expect(calls).toEqual(['yes/no refused', 'structured grade', 'structured grade']);
});

test('doctor shows what was learnt of logprobs per model', () => {
  const capabilities = createModelCapabilities({ outputMode: 'auto', temperature: undefined });
  const [untried] = capabilities.plans({ GRADE_MODEL: 'm' }, 'http://x/v1', 'x');
  expect(describeModelPlan(untried!)).toMatch(/, logprobs untried$/);
  capabilities.learnLogprobs('http://x/v1', 'm', true, 'top_logprobs returned');
  expect(describeModelPlan(capabilities.plans({ GRADE_MODEL: 'm' }, 'http://x/v1', 'x')[0]!)).toMatch(/, logprobs supported \(top_logprobs returned\)$/);
});
