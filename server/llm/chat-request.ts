import { z } from 'zod';

/*
 * The part of OpenAI's chat-completions request the local model server answers (issue 34 §1): messages, streaming,
 * a token limit, the temperature, token log-probabilities (`logprobs`, `top_logprobs`), and structured output by JSON schema (`response_format` json_schema, or
 * json_object with a `schema`, as llama.cpp's server takes it). Tools are refused with a 400 that says so, so the
 * provider ladder (activities/adapters/openai-structured-call.ts) stays on — or steps to — a rung that works.
 */

const TextPart = z.object({ type: z.literal('text'), text: z.string() });

export const ChatMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(TextPart), z.null()]).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

const JsonSchemaFormat = z.object({
  type: z.literal('json_schema'),
  json_schema: z.object({ name: z.string().optional(), schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullish() }),
});
const JsonObjectFormat = z.object({ type: z.literal('json_object'), schema: z.record(z.string(), z.unknown()).optional() });
const TextFormat = z.object({ type: z.literal('text') });

export const ChatCompletionRequest = z.object({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  stream: z.boolean().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  response_format: z.union([JsonSchemaFormat, JsonObjectFormat, TextFormat]).nullish(),
  tools: z.array(z.unknown()).nullish(),
  /** Issue 43 §1: each generated token's log-probability, and the `top_logprobs` likeliest tokens at each step. */
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

/** A message's text: a string, or its text parts joined. */
export const textOf = (message: ChatMessage): string =>
  typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => part.text).join('');

/** The JSON schema the output must follow, if any (json_schema, or json_object with a schema); `{}` for any JSON object. */
export function outputSchemaOf(request: ChatCompletionRequest): Record<string, unknown> | null {
  const format = request.response_format;
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_schema') return format.json_schema.schema;
  return format.schema ?? { type: 'object' };
}

/** Keywords the grammar cannot enforce, dropped before it is built (the caller validates the reply anyway). */
const UNENFORCED = new Set(['$schema', '$id', 'title', 'default', 'examples', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);

/**
 * Length bounds a grammar holds only as a repetition of that many items: llama.cpp's grammar parser refuses long ones
 * ("Failed to parse grammar" for a `maxLength` of 2,000, which standalone_question has), so only small bounds stay.
 */
const MAX_GRAMMAR_REPEAT = 64;
const LENGTH_KEYS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

/** The schema without the keywords a grammar cannot hold (kept: types, properties, required, enum, const, items, …). */
export function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([key, value]) => !UNENFORCED.has(key) && !(LENGTH_KEYS.has(key) && typeof value === 'number' && value > MAX_GRAMMAR_REPEAT))
      .map(([key, value]) => [key, key === 'properties' || key === '$defs' || key === 'definitions' ? mapValues(value) : grammarSchema(value)]),
  );
}

const mapValues = (value: unknown): unknown =>
  value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, grammarSchema(item)])) : value;
