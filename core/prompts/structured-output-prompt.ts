import { fillTemplate, type UserMessage } from './user-message';

/*
 * The two texts the structured-output ladder adds (issue 24 §1). On the json_object and prompt rungs the model is not
 * given the schema by the API, so the one user message of the spec's prompt (spec §7) ends with it; the word "JSON"
 * is in it, which DeepSeek's and Qwen's json_object modes require. The re-ask is the one second turn ragtime ever
 * sends: a reply that broke its schema, quoted back with what was wrong.
 */

export const SCHEMA_INSTRUCTION_TEMPLATE = `

Reply with one JSON object and nothing else (no prose, no code fence). It must conform to the JSON Schema "{name}":
{schema}`;

export const REASK_TEMPLATE = `Your reply could not be used: {violation}
Reply again with one JSON object only, conforming to the JSON Schema "{name}" you were given.`;

/** The spec's prompt with the schema appended (json_object and prompt rungs). */
export function withSchemaInstruction(message: UserMessage, name: string, schema: object): UserMessage {
  const instruction = SCHEMA_INSTRUCTION_TEMPLATE.replace('{name}', () => name).replace('{schema}', () => JSON.stringify(schema));
  return { role: 'user', content: message.content + instruction };
}

/** The re-ask after an invalid reply, quoting the violation (one line). The schema is in the request already. */
export function buildReaskMessage(name: string, violation: string): UserMessage {
  return fillTemplate(REASK_TEMPLATE, { violation, name });
}

/** `ragtime doctor`'s probe (schema doctor_probe): the smallest structured call that still exercises the ladder. */
export const DOCTOR_PROBE_PROMPT = 'This is a connectivity check. Reply with the JSON object {"ok": true}.';
