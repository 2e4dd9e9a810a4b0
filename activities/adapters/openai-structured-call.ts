import type OpenAI from 'openai';
import { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { RagError } from '../../core/errors';
import { AnswerFieldScanner } from '../../core/model-output/answer-field-scanner';
import type { AnswerTextListener } from '../../core/model-output/answer-text-event';
import { extractJson } from '../../core/model-output/extract-json';
import { nextOutputMode, type OutputMode } from '../../core/model-output/output-mode';
import { classifyRefusal, type Refused } from '../../core/model-output/refusal';
import { structuredRequest, type ChatMessage, type JsonSchema } from '../../core/model-output/structured-request';
import { buildReaskMessage } from '../../core/prompts/structured-output-prompt';
import type { UserMessage } from '../../core/prompts/user-message';
import type { ModelCallRecord, ModelCallStep } from '../../core/schemas/model-call';
import { activitySignal } from '../activity-signal';
import type { ModelCapabilities } from './model-capabilities';

/*
 * One structured call through the ladder (issue 24 §1): ask on the model's current rung at its current temperature;
 * a refusal naming the output parameters moves down one rung (auto only), one naming the temperature drops it
 * (MODEL_TEMPERATURE unset only), both remembered for the endpoint and model; a reply that is empty, not JSON or
 * invalid for the zod schema is re-asked once, quoting what was wrong. What comes back is still validated by the
 * activity with the same schema, so no rung changes what is accepted.
 *
 * With `stream` (the answer writer's listener, issue 25 §2) every request of the call, on every rung, is sent with
 * `stream: true`; one string field of the reply is decoded from the raw deltas as they come and told to the listener,
 * and the chunks are put back together into the completion the non-streamed path would have got, so the same checks,
 * re-ask, step-downs, errors and record follow. Before each request after the first the listener is told to restart.
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
  /** Closes the request when aborted; default: the cancellation signal of the activity the call runs in. */
  signal?: AbortSignal;
  /** Streams the reply and tells `onText` the text of its top-level string `field` as it is generated. */
  stream?: { field: string; onText: AnswerTextListener };
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
  // The activity's cancellation (a run cancelled, the activity timed out) closes the request (issue 43 §3).
  const signal = target.signal ?? activitySignal();
  // Bounded: at most three steps down, one temperature drop and one re-ask; only what worked is remembered.
  for (;;) {
    const body = structuredRequest(mode, { model, name: target.name, schema: target.jsonSchema, message: target.message, temperature, followUp });
    const last = steps.at(-1);
    if (target.stream && requests > 0 && last !== undefined) target.stream.onText({ kind: 'restart', reason: restartReason(last) });
    requests += 1;
    let completion: ChatCompletion;
    try {
      completion = target.stream
        ? await streamedCompletion(client, body, target.stream, signal)
        : await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal });
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

/** Why what a listener was shown is void: the step that makes the next request. */
function restartReason(step: ModelCallStep): string {
  if (step.kind === 'output_mode') return `${step.from} refused, asking again with ${step.to}: ${step.reason}`;
  if (step.kind === 'temperature') return `temperature ${step.from} refused, asking again without it: ${step.reason}`;
  return `the reply could not be used, asking once more: ${step.reason}`;
}

/*
 * One request sent with `stream: true`. No `stream_options: {include_usage: true}`: a provider that does not know the
 * option may refuse it with a 400 that names no output parameter, which the ladder would take for a refusal of the
 * rung; the usage is only a span attribute. The field's text comes from the tool call's arguments (tools rung) or the
 * content (every other rung, or a provider that ignored tool_choice), whichever yields text first.
 */
async function streamedCompletion(client: OpenAI, body: object, { field, onText }: { field: string; onText: AnswerTextListener }, signal: AbortSignal | undefined): Promise<ChatCompletion> {
  const chunks = await client.chat.completions.create({ ...body, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming, { signal });
  const scanners = { content: new AnswerFieldScanner(field), arguments: new AnswerFieldScanner(field) };
  let source: keyof typeof scanners | null = null;
  const scan = (from: keyof typeof scanners, fragment: string) => {
    if (source !== null && source !== from) return;
    const text = scanners[from].feed(fragment);
    if (text === '') return;
    source = from;
    onText({ kind: 'delta', text });
  };
  const reply = { content: null as string | null, refusal: null as string | null, finish: null as ChatCompletion.Choice['finish_reason'] | null, choices: 0 };
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  let head: ChatCompletionChunk | undefined;
  let usage: ChatCompletion['usage'];
  for await (const chunk of chunks) {
    head ??= chunk;
    usage = chunk.usage ?? usage;
    const choice = chunk.choices?.find((candidate) => candidate.index === 0);
    if (choice === undefined) continue;
    reply.choices = 1;
    // Typed as always there, but compatible servers send choices without a delta (Azure's content-filter chunks).
    const delta: Partial<ChatCompletionChunk.Choice.Delta> = choice.delta ?? {};
    if (typeof delta.content === 'string') {
      reply.content = (reply.content ?? '') + delta.content;
      scan('content', delta.content);
    }
    if (typeof delta.refusal === 'string') reply.refusal = (reply.refusal ?? '') + delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? 0; // typed as required; some servers leave it out of a single call
      calls[index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      const call = calls[index] as ChatCompletionMessageFunctionToolCall;
      if (part.id) call.id = part.id;
      call.function.name += part.function?.name ?? '';
      call.function.arguments += part.function?.arguments ?? '';
      if (index === 0 && part.function?.arguments) scan('arguments', part.function.arguments);
    }
    if (choice.finish_reason) reply.finish = choice.finish_reason;
  }
  const message = { role: 'assistant' as const, content: reply.content, refusal: reply.refusal, ...(calls.length > 0 ? { tool_calls: calls.filter(Boolean) } : {}) };
  return {
    id: head?.id ?? '',
    object: 'chat.completion',
    created: head?.created ?? 0,
    model: head?.model ?? '',
    choices: reply.choices === 0 ? [] : [{ index: 0, message, finish_reason: reply.finish ?? 'stop', logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/** The schema violation of a reply, on one line, or null when it is valid. */
function violationOf(schema: z.ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : `it violates the schema: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`;
}
