/*
 * Which request parameter a provider refused (issue 24 §1), read from the status and the message of its error. The
 * message is the one field every provider's error fills: OpenAI's own body, DeepSeek's, DashScope's, LM Studio's bare
 * string, Gemini's array and old vLLM's flat body all end up there (docs/PROVIDERS.md has each one and its source).
 */

/**
 * `unexplained`: a 400 that names no parameter at all, as Zhipu GLM's "API 调用参数有误，请检查文档。" (code 1210):
 * the ladder may try the next rung, and keeps it only if that one works.
 */
export type Refused = 'temperature' | 'output_mode' | 'unexplained';

/** 400s that no rung fixes: the prompt's size, a filter. */
const NOT_A_RUNG = /context length|context_length|too many tokens|maximum.*tokens|max_tokens|content[_ ](policy|filter)|safety|api key|model.*not (found|exist)/i;

/** Statuses a parameter refusal comes with: 400 from most, 422 from serde/pydantic validators, 500 from llama.cpp. */
const REFUSAL_STATUSES = new Set([400, 422, 500]);

/** Names of the structured-output parameters (and the schema keywords Gemini refuses inside them). */
const OUTPUT_PARAMETER =
  /response_format|json_schema|json_object|json mode|response_schema|response_mime_type|structured output|tool_choice|\btools?\b|tools\[|function_declarations|function[_ ]call|additionalProperties|\$schema|'json'/i;
const TEMPERATURE = /temperature/i;

/**
 * `temperature` when the error names the temperature (and no output parameter), `output_mode` when it names
 * response_format, json_schema, tools or a schema keyword, `unexplained` for a 400 that names nothing; null for
 * anything else (a prompt too long, a real server error), which is not the ladder's to handle.
 */
export function classifyRefusal(error: { status: number; message: string; param?: string | null }): Refused | null {
  if (!REFUSAL_STATUSES.has(error.status)) return null;
  const param = error.param ?? '';
  if (param === 'temperature') return 'temperature';
  if (OUTPUT_PARAMETER.test(param)) return 'output_mode';
  const names = { output: OUTPUT_PARAMETER.test(error.message), temperature: TEMPERATURE.test(error.message) };
  // A 500 is a parameter refusal only when it names one (llama.cpp's validation errors); any other 500 is transient.
  if (names.output) return 'output_mode';
  if (names.temperature && error.status !== 500) return 'temperature';
  if (error.status === 400 && !NOT_A_RUNG.test(error.message)) return 'unexplained';
  return null;
}
