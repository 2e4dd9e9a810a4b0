import { withSchemaInstruction } from '../prompts/structured-output-prompt';
import type { UserMessage } from '../prompts/user-message';
import type { OutputMode } from './output-mode';

/*
 * The request body of one structured call on one rung (issue 24 §1): the messages and the parameters that ask for
 * the schema. Pure, so each provider test can compare what is sent byte for byte.
 */

export type ChatMessage = UserMessage | { role: 'assistant'; content: string };

/** A JSON Schema object as the SDK's zodResponseFormat makes it. */
export type JsonSchema = Record<string, unknown>;

export type StructuredRequest = {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  response_format?: { type: 'json_schema'; json_schema: { name: string; strict: true; schema: JsonSchema } } | { type: 'json_object' };
  tools?: { type: 'function'; function: { name: string; description: string; parameters: JsonSchema; strict: true } }[];
  tool_choice?: { type: 'function'; function: { name: string } };
};

/**
 * The schema as sent: without `$schema`, which names the draft and constrains nothing (Gemini's compatibility layer
 * refuses it: "Unknown name \"$schema\""). Every other keyword stays, so what the model is told means what zod checks.
 */
export function sendableSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _draft, ...rest } = schema;
  return rest;
}

export type StructuredCall = {
  model: string;
  /** The schema's name (evidence_grade, …): the json_schema name and the function name. */
  name: string;
  schema: JsonSchema;
  message: UserMessage;
  temperature: number | null;
  /** Earlier turns of this call (the invalid reply and the re-ask), after the first message. */
  followUp?: ChatMessage[];
};

export function structuredRequest(mode: OutputMode, call: StructuredCall): StructuredRequest {
  const schema = sendableSchema(call.schema);
  const first = mode === 'json_object' || mode === 'prompt' ? withSchemaInstruction(call.message, call.name, schema) : call.message;
  const body: StructuredRequest = { model: call.model, messages: [first, ...(call.followUp ?? [])] };
  if (call.temperature !== null) body.temperature = call.temperature;
  if (mode === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: call.name, strict: true, schema } };
  if (mode === 'json_object') body.response_format = { type: 'json_object' };
  if (mode === 'tools') {
    const description = `Return the ${call.name} object.`;
    body.tools = [{ type: 'function', function: { name: call.name, description, parameters: schema, strict: true } }];
    body.tool_choice = { type: 'function', function: { name: call.name } };
  }
  return body;
}
