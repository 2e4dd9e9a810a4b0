import OpenAI from 'openai';
import { buildYesNoGradePrompt } from '../../core/prompts/yes-no-grade-prompt';
import { TopLogprobs, yesProbability } from '../../core/grading/yes-probability';
import type { Chunk } from '../../core/schemas/retrieved-chunk';
import { activitySignal } from '../activity-signal';
import type { ModelCapabilities } from './model-capabilities';
import { normalizingFetch } from './normalize-error-body';

/*
 * The grade by probability's model call (issue 43 §1): one candidate of the evidence, one question, a one-token yes/no reply
 * with `logprobs` and `top_logprobs`, and P(yes) read from them (core/grading/yes-probability.ts). Whether the
 * endpoint returns log-probabilities is learnt for the model (model-capabilities.ts) and shown by doctor; a model
 * without them is graded by the spec's structured grade instead (activities/adapters/probability-grade.ts).
 */

export type YesNoReader = {
  readonly model: string;
  /** Whether the next call may ask for log-probabilities: not once the endpoint showed it does not return them. */
  supported(): boolean;
  /**
   * P(yes) that candidate `index` of the evidence answers the question; null when the reply said neither, or logprobs
   * are unsupported. The candidates before it are in the prompt too (core/prompts/yes-no-grade-prompt.ts).
   */
  yesProbability(question: string, evidence: readonly Chunk[], index: number): Promise<number | null>;
};

/** Alternatives read for the first token: "yes", " Yes", "YES" and their "no"s are among the first ten. */
const TOP_LOGPROBS = 10;

export function createOpenAiYesNo(options: { apiKey: string; baseUrl: string; model: string; timeoutMs: number; capabilities: ModelCapabilities }): YesNoReader {
  const { baseUrl, model, capabilities } = options;
  const client = new OpenAI({ apiKey: options.apiKey || 'none', baseURL: baseUrl, organization: null, project: null, adminAPIKey: null, webhookSecret: null, timeout: options.timeoutMs, maxRetries: 0, logLevel: 'warn', fetch: normalizingFetch() });
  return {
    model,
    supported: () => capabilities.planOf(baseUrl, model).logprobs !== 'unsupported',
    async yesProbability(question, evidence, index) {
      let completion;
      try {
        completion = await client.chat.completions.create(
          { model, messages: [buildYesNoGradePrompt(question, evidence, index)], max_tokens: 1, temperature: 0, logprobs: true, top_logprobs: TOP_LOGPROBS },
          { signal: activitySignal() },
        );
      } catch (error) {
        // A 400 naming logprobs: this endpoint or model has none. Anything else is the call's failure, not the capability's.
        if (error instanceof OpenAI.APIError && error.status === 400 && /logprob/i.test(error.message)) {
          capabilities.learnLogprobs(baseUrl, model, false, `refused: ${error.message.slice(0, 120)}`);
          return null;
        }
        throw error;
      }
      const top = TopLogprobs.safeParse(completion.choices[0]?.logprobs?.content?.[0]?.top_logprobs);
      if (!top.success || top.data.length === 0) {
        capabilities.learnLogprobs(baseUrl, model, false, 'the reply carried no top_logprobs');
        return null;
      }
      capabilities.learnLogprobs(baseUrl, model, true, 'top_logprobs returned');
      return yesProbability(top.data);
    },
  };
}
