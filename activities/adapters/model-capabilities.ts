import { OUTPUT_LADDER, type OutputMode, type OutputModeSetting } from '../../core/model-output/output-mode';
import { plannedTemperature } from '../../core/model-output/temperature';
import type { ModelPlan } from '../../core/schemas/model-call';

/*
 * What the structured-output ladder has learnt about each (endpoint, model) this process called (issue 24 §1): the
 * rung and the temperature its next call uses, and why. Held for the life of the worker (or the CLI command), so a
 * refusal costs one extra request once, not one per call. A model only ever moves down the ladder.
 */

export type CapabilitySettings = {
  outputMode: OutputModeSetting;
  temperature: number | undefined;
  /** Told each time a model's rung or temperature changes (the worker logs it). */
  onLearn?: (line: string) => void;
};

type Learnt = {
  outputMode: OutputMode;
  outputReason: string;
  temperature: number | null;
  temperatureReason: string;
  /** Issue 43 §1: token log-probabilities, learnt from the first yes/no grade (or doctor's probe) that asked for them. */
  logprobs: 'untried' | 'supported' | 'unsupported';
  logprobsReason: string;
};

export type ModelCapabilities = {
  /** The plan of the next call to this model at this endpoint. */
  planOf(endpoint: string, model: string): Learnt;
  /** Whether a refused rung may be left for the next one (MODEL_OUTPUT_MODE=auto). */
  readonly mayStepDown: boolean;
  /** Whether a refused temperature may be dropped (MODEL_TEMPERATURE unset). */
  readonly mayDropTemperature: boolean;
  /**
   * After a call that succeeded on another rung or without the temperature: remembered for the next calls. Only what
   * worked is remembered, so a refusal that no rung fixes (a prompt too long, say) changes nothing.
   */
  learn(endpoint: string, model: string, learnt: { outputMode: OutputMode; outputReason: string } | { temperatureReason: string }): void;
  /** What a request for log-probabilities showed: the grade by probability is used while they are supported. */
  learnLogprobs(endpoint: string, model: string, supported: boolean, reason: string): void;
  /** The plan of each model the variables name, at `endpoint`, shown as `shownAs` (host[:port]). */
  plans(variables: Record<string, string | undefined>, endpoint: string, shownAs: string): ModelPlan[];
  readonly settings: CapabilitySettings;
};

export function createModelCapabilities(settings: CapabilitySettings): ModelCapabilities {
  const learnt = new Map<string, Learnt>();
  const keyOf = (endpoint: string, model: string) => `${endpoint}\u0000${model}`;
  const planOf = (endpoint: string, model: string): Learnt => {
    const key = keyOf(endpoint, model);
    const known = learnt.get(key);
    if (known) return known;
    const temperature = plannedTemperature(model, settings.temperature);
    const output =
      settings.outputMode === 'auto'
        ? { outputMode: 'json_schema' as const, outputReason: 'auto: the top rung until the endpoint refuses it' }
        : { outputMode: settings.outputMode, outputReason: `MODEL_OUTPUT_MODE=${settings.outputMode}` };
    const fresh: Learnt = { ...output, temperature: temperature.temperature, temperatureReason: temperature.reason, logprobs: 'untried', logprobsReason: '' };
    learnt.set(key, fresh);
    return fresh;
  };
  const rank = (mode: OutputMode) => OUTPUT_LADDER.indexOf(mode);
  return {
    settings,
    planOf,
    mayStepDown: settings.outputMode === 'auto',
    mayDropTemperature: settings.temperature === undefined,
    learn(endpoint, model, change) {
      const plan = planOf(endpoint, model);
      if ('outputMode' in change) {
        // Two calls refused at once both learn the same rung; a model never moves back up.
        if (rank(change.outputMode) <= rank(plan.outputMode)) return;
        settings.onLearn?.(`model ${model} at ${endpoint}: ${plan.outputMode} refused, using ${change.outputMode} from now on (${change.outputReason})`);
        plan.outputMode = change.outputMode;
        plan.outputReason = `auto: ${change.outputReason}`;
      } else if (plan.temperature !== null) {
        settings.onLearn?.(`model ${model} at ${endpoint}: temperature ${plan.temperature} refused, sending none from now on (${change.temperatureReason})`);
        plan.temperature = null;
        plan.temperatureReason = `omitted: ${change.temperatureReason}`;
      }
    },
    learnLogprobs(endpoint, model, supported, reason) {
      const plan = planOf(endpoint, model);
      const now = supported ? 'supported' : 'unsupported';
      if (plan.logprobs !== now) settings.onLearn?.(`model ${model} at ${endpoint}: logprobs ${now} (${reason})`);
      plan.logprobs = now;
      plan.logprobsReason = reason;
    },
    plans(variables, endpoint, shownAs) {
      const byModel = new Map<string, string[]>();
      for (const [variable, model] of Object.entries(variables)) {
        if (model) byModel.set(model, [...(byModel.get(model) ?? []), variable]);
      }
      return [...byModel].map(([model, names]) => {
        const { logprobsReason, ...plan } = planOf(endpoint, model);
        return { model, endpoint: shownAs, variables: names, ...plan, ...(logprobsReason ? { logprobsReason } : {}) };
      });
    },
  };
}
