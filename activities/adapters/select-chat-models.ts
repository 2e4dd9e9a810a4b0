import type { RagConfig } from '../../core/config';
import type { ChatModels } from '../ports';
import { createOpenAiChatModels, type OpenAiChatModelsOptions } from './openai-chat-models';
import { withRuleSteps } from './rule-steps';
import { createModelCapabilities } from './model-capabilities';
import { createOpenAiYesNo } from './openai-yes-no';
import { withProbabilityGrade } from './probability-grade';
import { ruleSteps } from '../../core/model-steps';

export type ChatModelsChoice = { provider: 'openai' | 'offline'; models: ChatModels };

/** True when the OpenAI-compatible provider has what every RAG call needs: a key, FAST_MODEL and GRADE_MODEL. */
export function openAiConfigured(models: RagConfig['models']): boolean {
  return Boolean(models.apiKey && models.fastModel && models.gradeModel);
}

/**
 * MODEL_PROVIDER (issue 5): `openai` or `offline` as set; unset (`auto`) → openai when a key and both models are
 * configured, else the offline policy. parseConfig has already refused `openai` without them. The offline
 * provider is built by the caller's factory (`providers.offline`), and only when chosen.
 */
export function selectChatModels(
  config: Pick<RagConfig, 'models' | 'telemetry'>,
  providers: { offline: () => ChatModels; openai?: Pick<OpenAiChatModelsOptions, 'timeoutMs' | 'maxRetries' | 'onLearn'> },
): ChatModelsChoice {
  const { provider, apiKey, baseUrl, fastModel, gradeModel, answerModel, outputMode, temperature } = config.models;
  const useOpenAi = provider === 'openai' || provider === 'local' || (provider === 'auto' && openAiConfigured(config.models));
  if (!useOpenAi) return { provider: 'offline', models: providers.offline() };
  const capabilities = createModelCapabilities({ outputMode: outputMode ?? 'auto', temperature, onLearn: providers.openai?.onLearn });
  const model = createOpenAiChatModels({
    apiKey,
    baseUrl,
    fastModel,
    gradeModel,
    answerModel,
    outputMode,
    temperature,
    telemetry: { includeContent: config.telemetry.includeContent },
    timeoutMs: config.models.timeoutMs,
    ...providers.openai,
    // Shared with the grade by probability's reader: what it learns of logprobs shows in the plans doctor prints.
    capabilities,
  });
  // MODEL_STEPS (issue 43 §2): the steps the offline rules do instead of the model (with the local model: all but the answer).
  const { steps } = config.models;
  if (ruleSteps(steps).length === 0 && steps.grade !== 'probability') return { provider: 'openai', models: model };
  const rules = providers.offline();
  const composed = ruleSteps(steps).length > 0 ? withRuleSteps(model, rules, steps) : model;
  if (steps.grade !== 'probability' || !gradeModel) return { provider: 'openai', models: composed };
  // MODEL_STEPS grade=probability (issue 43 §1): the grade model's yes/no per candidate, read from its logprobs.
  const yesNo = createOpenAiYesNo({ apiKey: apiKey ?? '', baseUrl: baseUrl ?? 'https://api.openai.com/v1', model: gradeModel, timeoutMs: providers.openai?.timeoutMs ?? config.models.timeoutMs ?? 45_000, capabilities });
  return { provider: 'openai', models: withProbabilityGrade(composed, rules, yesNo) };
}
