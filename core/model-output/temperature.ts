/*
 * MODEL_TEMPERATURE (issue 24 §1). The spec calls every model at temperature 0; some models refuse any value but
 * their default, so for them ragtime sends none. Each entry says where the refusal is documented.
 */

export type KnownRefuser = { pattern: RegExp; models: string; source: string };

/** Models known to refuse temperature 0. Matched against the model name after any "vendor/" prefix. */
export const TEMPERATURE_REFUSERS: readonly KnownRefuser[] = [
  {
    pattern: /^o\d(-|$)/i,
    models: 'OpenAI o-series reasoning models (o1, o3, o3-mini, o4-mini)',
    source: "400 \"Unsupported value: 'temperature' does not support 0 with this model\" / \"Unsupported parameter: 'temperature'\"",
  },
  { pattern: /^gpt-5/i, models: 'OpenAI gpt-5 family (gpt-5, gpt-5-mini, gpt-5-nano, gpt-5.x)', source: 'the same 400 as the o-series' },
  { pattern: /^kimi-k2\.[5-9]|^kimi-k[3-9]|^kimi-k2-thinking/i, models: 'Moonshot Kimi K2.5 and later', source: '400 "invalid temperature: only 1 is allowed for this model"' },
];

/** The spec's temperature for every RAG model call (spec §7). */
export const SPEC_TEMPERATURE = 0;

export type TemperaturePlan = { temperature: number | null; reason: string };

/** The model name without a routing prefix ("openai/gpt-5-mini" → "gpt-5-mini"). */
const bareModel = (model: string) => model.slice(model.lastIndexOf('/') + 1);

export function knownTemperatureRefuser(model: string): KnownRefuser | null {
  return TEMPERATURE_REFUSERS.find(({ pattern }) => pattern.test(bareModel(model))) ?? null;
}

/**
 * What temperature a model is sent before any reply: MODEL_TEMPERATURE when set; else none for a known refuser and
 * the spec's 0 otherwise.
 */
export function plannedTemperature(model: string, setting: number | undefined): TemperaturePlan {
  if (setting !== undefined) return { temperature: setting, reason: `MODEL_TEMPERATURE=${setting}` };
  const refuser = knownTemperatureRefuser(model);
  if (refuser) return { temperature: null, reason: `omitted: ${refuser.models} refuse temperature 0` };
  return { temperature: SPEC_TEMPERATURE, reason: "the spec's 0, MODEL_TEMPERATURE unset" };
}
