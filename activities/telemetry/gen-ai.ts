import type { Attributes } from '@opentelemetry/api';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { UserMessage } from '../../core/prompts/user-message';
import type { SpanContentPolicy } from './spans';

/*
 * OpenTelemetry GenAI semantic conventions (opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/) for model
 * calls, written out rather than imported from @opentelemetry/semantic-conventions/incubating, whose exports may
 * change between releases. Prompts and completions are content: `gen_ai.input.messages` and
 * `gen_ai.output.messages` are set only with RAGTIME_OTEL_CONTENT=true.
 */

/** The span name the conventions ask for: "{gen_ai.operation.name} {gen_ai.request.model}". */
export const chatSpanName = (model: string): string => `chat ${model}`;

export function chatRequestAttributes(
  request: { model: string; schema: string; serverAddress: string; serverPort: number | undefined; message: UserMessage; temperature?: number | null },
  policy: SpanContentPolicy,
): Attributes {
  return {
    'gen_ai.system': 'openai',
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': request.model,
    // The temperature planned for the call (none: the model refuses one); the ladder updates it if it changes.
    ...(request.temperature === null ? {} : { 'gen_ai.request.temperature': request.temperature ?? 0 }),
    'gen_ai.output.type': 'json',
    'server.address': request.serverAddress,
    ...(request.serverPort === undefined ? {} : { 'server.port': request.serverPort }),
    // Which structured output was asked for: complexity_result, evidence_grade or rewrite_plan (spec §7).
    'ragtime.model.schema': request.schema,
    ...(policy.includeContent
      ? { 'gen_ai.input.messages': JSON.stringify([{ role: request.message.role, parts: [{ type: 'text', content: request.message.content }] }]) }
      : {}),
  };
}

export function chatResponseAttributes(completion: ChatCompletion, policy: SpanContentPolicy): Attributes {
  const choices = completion.choices ?? [];
  const usage = completion.usage;
  return {
    'gen_ai.response.id': completion.id,
    'gen_ai.response.model': completion.model,
    'gen_ai.response.finish_reasons': choices.map((choice) => String(choice.finish_reason)),
    ...(usage ? { 'gen_ai.usage.input_tokens': usage.prompt_tokens, 'gen_ai.usage.output_tokens': usage.completion_tokens } : {}),
    ...(policy.includeContent
      ? {
          'gen_ai.output.messages': JSON.stringify(
            choices.map((choice) => ({ role: 'assistant', parts: [{ type: 'text', content: choice.message.content ?? '' }], finish_reason: choice.finish_reason })),
          ),
        }
      : {}),
  };
}
