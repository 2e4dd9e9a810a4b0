import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { PROBABILITY_DECISION } from '../../core/grading/probability-coefficients';
import { describeProbabilityGrade } from '../../core/run/answered-by';
import type { ChatModels } from '../ports';
import type { YesNoReader } from './openai-yes-no';

/*
 * MODEL_STEPS grade=probability (issue 43 §1; the default with MODEL_PROVIDER=local): the model is asked of each of
 * the first candidates whether it answers the question, one token each, its P(yes) read from the log-probabilities;
 * the offline policy combines them with its own signals into the grade (core/grading/probability-decision.ts). A model
 * whose endpoint returns no log-probabilities (learnt by model-capabilities.ts, shown by doctor) is graded by the
 * spec's structured grade: the model's own gradeEvidence.
 */

export function withProbabilityGrade(models: ChatModels, rules: ChatModels, yesNo: YesNoReader, candidates = PROBABILITY_DECISION.candidates): ChatModels {
  const combine = rules.gradeWithYesProbabilities?.bind(rules);
  if (!combine) throw new Error('the grade by probability needs the offline policy (gradeWithYesProbabilities)');
  return {
    ...models,
    describe: describeProbabilityGrade(models.describe, yesNo.model, rules.describe),
    async gradeEvidence(question, context, evidence: Chunk[], report, options) {
      if (!yesNo.supported()) return models.gradeEvidence(question, context, evidence, report, options);
      const yes: Array<number | null> = [];
      // One after another: the local server runs one call at a time, and each prompt extends the last (its KV cache).
      for (let index = 0; index < Math.min(candidates, evidence.length); index += 1) {
        yes.push(await yesNo.yesProbability(question, evidence, index));
        if (!yesNo.supported()) return models.gradeEvidence(question, context, evidence, report, options);
      }
      return combine(question, evidence, yes, options);
    },
    // doctor: one yes/no first, so the plans it prints say whether the grade model returns logprobs.
    ...(models.probe
      ? {
          probe: async () => {
            await yesNo.yesProbability('Is the sky blue?', [{ filename: 'doctor', text: 'The sky is blue.' }], 0).catch(() => null);
            return (models.probe as NonNullable<ChatModels['probe']>)();
          },
        }
      : {}),
  };
}
