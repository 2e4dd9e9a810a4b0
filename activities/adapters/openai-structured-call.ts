import type OpenAI from 'openai';
import { APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { RagError } from '../../core/errors';
import { extractJson } from '../../core/model-output/extract-json';
import { nextOutputMode, type OutputMode } from '../../core/model-output/output-mode';
import { classifyRefusal, type Refused } from '../../core/model-output/refusal';
import { structuredRequest, type ChatMessage, type JsonSchema } from '../../core/model-output/structured-request';
import { buildReaskMessage } from '../../core/prompts/structured-output-prompt';
import type { UserMessage } from '../../core/prompts/user-message';
import type { ModelCallRecord, ModelCallStep } from '../../core/schemas/model-call';
import type { ModelCapabilities } from './model-capabilities';

/*
 * One structured call through the ladder (issue 24 §1): ask on the model's current rung at its current temperature;
 * a refusal naming the output parameters moves down one rung (auto only), one naming the temperature drops it
 * (MODEL_TEMPERATURE unset only), both remembered for the endpoint and model; a reply that is empty, not JSON or
 * invalid for the zod schema is re-asked once, quoting what was wrong. What comes back is still validated by the
 * activity with the same schema, so no rung changes what is accepted.
 */

export type StructuredTarget = {
  client: OpenAI;
  capabilities: ModelCapabilities;
  /** The base URL (the key of what was learnt) and host[:port] (for records and messages). */
  baseUrl: string;
  host: string;
  model: string;
  name: string;
  schema: z.ZodType;
  jsonSchema: JsonSchema;
  message: UserMessage;
  /** Sees each accepted completion (the GenAI span's response attributes). */
  onCompletion?: (completion: ChatCompletion) => void;
  /** Receives the call's record once it ends, whichever way. */
  report?: (record: ModelCallRecord) => void;
};

/** The reply (parsed JSON, validated again by the activity) and the record of how it was got. */
export type StructuredOutcome = { reply: unknown; record: ModelCallRecord };

/** A reply's text on one rung: a tool call's arguments, else the message content (a provider may ignore tool_choice). */
function replyText(completion: ChatCompletion, who: string): string {
  const choice = completion.choices?.[0];
  const invalid = (why: string) => new RagError('MODEL_OUTPUT_INVALID', `${who} ${why}`);
  if (choice === undefined) throw invalid('returned no choices');
  const { content, refusal } = choice.message;
  if (refusal) throw invalid(`refused: ${excerpt(refusal)}`);
  if (choice.finish_reason === 'length') throw invalid('reply was cut off at the token limit (finish_reason "length")');
  if (choice.finish_reason === 'content_filter') throw invalid('reply was withheld by the content filter');
  const call = (choice.message.tool_calls ?? []).find((tool) => tool.type === 'function');
  if (call && call.type === 'function') return call.function.arguments ?? '';
  return content ?? '';
}

/** A reply to quote in an error: short, on one line. */
export const excerpt = (text: string) => JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** The error's status and message as classifyRefusal reads them; null for anything but an HTTP error. */
const refusalOf = (error: unknown) =>
  error instanceof APIError && error.status !== undefined
    ? classifyRefusal({ status: error.status, message: error.message, param: typeof error.param === 'string' ? error.param : null })
    : null;

const oneLine = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

export type RefusedCall = { error: unknown; refused: Refused | null; mode: OutputMode; temperature: number | null };

/** `fail` turns an SDK error the ladder cannot handle into ragtime's failure (openai-call-failure.ts). */
export async function structuredCall(target: StructuredTarget, fail: (call: RefusedCall) => Error): Promise<StructuredOutcome> {
  const { client, capabilities, baseUrl, model } = target;
  const plan = capabilities.planOf(baseUrl, model);
  let mode = plan.outputMode;
  let temperature = plan.temperature;
  const steps: ModelCallStep[] = [];
  let followUp: ChatMessage[] = [];
  let requests = 0;
  const record = (): ModelCallRecord => ({ schema: target.name, model, endpoint: target.host, outputMode: mode, temperature, requests, steps });
  // Bounded: at most three steps down, one temperature drop and one re-ask; only what worked is remembered.
  for (;;) {
    const body = structuredRequest(mode, { model, name: target.name, schema: target.jsonSchema, message: target.message, temperature, followUp });
    requests += 1;
    let completion: ChatCompletion;
    try {
      completion = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    } catch (error) {
      const refused = refusalOf(error);
      const why = oneLine(error instanceof Error ? error.message : String(error));
      const next = nextOutputMode(mode);
      // An unexplained 400 is tried one rung lower only from a rung that sends an output parameter.
      if ((refused === 'output_mode' || (refused === 'unexplained' && mode !== 'prompt')) && capabilities.mayStepDown && next !== null) {
        steps.push({ kind: 'output_mode', from: mode, to: next, reason: refused === 'unexplained' ? `unexplained 400, tried the next rung: ${why}` : why });
        mode = next;
        continue;
      }
      if (refused === 'temperature' && temperature !== null && capabilities.mayDropTemperature) {
        steps.push({ kind: 'temperature', from: String(temperature), to: 'omitted', reason: why });
        temperature = null;
        continue;
      }
      target.report?.(record());
      throw fail({ error, refused, mode, temperature });
    }
    target.onCompletion?.(completion);
    // The request was accepted: what it took to get here is remembered for this endpoint and model.
    if (mode !== plan.outputMode) capabilities.learn(baseUrl, model, { outputMode: mode, outputReason: steps.filter((step) => step.kind === 'output_mode').map((step) => `${step.from} refused: ${step.reason}`).join('; ') });
    if (temperature === null && plan.temperature !== null) capabilities.learn(baseUrl, model, { temperatureReason: `the endpoint refused temperature (${steps.find((step) => step.kind === 'temperature')?.reason ?? ''})` });
    let text: string;
    try {
      text = replyText(completion, model);
    } catch (error) {
      target.report?.(record());
      throw error;
    }
    const extracted = extractJson(text);
    const violation = extracted.ok ? violationOf(target.schema, extracted.value) : `${model} ${extracted.why}`;
    if (violation === null || steps.some((step) => step.kind === 'reask')) {
      target.report?.(record());
      if (!extracted.ok) throw new RagError('MODEL_OUTPUT_INVALID', `${model} ${extracted.why}${text.trim() === '' ? '' : `: ${excerpt(text)}`}`);
      return { reply: extracted.value, record: record() };
    }
    steps.push({ kind: 'reask', from: mode, to: mode, reason: oneLine(violation) });
    followUp = [...(text.trim() === '' ? [] : [{ role: 'assistant' as const, content: text }]), buildReaskMessage(target.name, oneLine(violation, 600))];
  }
}

/** The schema violation of a reply, on one line, or null when it is valid. */
function violationOf(schema: z.ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : `it violates the schema: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`;
}
