import { extractJson } from '../../../core/model-output/extract-json';
import { OUTPUT_LADDER, nextOutputMode } from '../../../core/model-output/output-mode';
import { classifyRefusal } from '../../../core/model-output/refusal';
import { sendableSchema, structuredRequest } from '../../../core/model-output/structured-request';
import { knownTemperatureRefuser, plannedTemperature } from '../../../core/model-output/temperature';
import { buildReaskMessage } from '../../../core/prompts/structured-output-prompt';
import { describeWithPlans } from '../../../core/schemas/model-call';

/*
 * The pure rules of the structured-output ladder (issue 24 §1). The refusal texts are the providers' own, as the
 * openai SDK's APIError.message carries them ("<status> <message>"); docs/PROVIDERS.md gives the source of each.
 */

const SCHEMA = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
const MESSAGE = { role: 'user' as const, content: '问题' };

describe('the ladder', () => {
  test('strongest first, and nothing below a plain prompt', () => {
    expect(OUTPUT_LADDER).toEqual(['json_schema', 'tools', 'json_object', 'prompt']);
    expect(OUTPUT_LADDER.map(nextOutputMode)).toEqual(['tools', 'json_object', 'prompt', null]);
  });
});

describe('classifyRefusal: which parameter a provider refused', () => {
  test.each([
    ['OpenAI reasoning, temperature 0', 400, "400 Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", 'temperature', 'temperature'],
    ['OpenAI gpt-5.2, any temperature', 400, "400 Unsupported parameter: 'temperature' is not supported with this model.", 'temperature', 'temperature'],
    ['Moonshot Kimi K2.5 (no param)', 400, '400 invalid temperature: only 1 is allowed for this model', null, 'temperature'],
    ['DeepSeek json_schema', 400, '400 This response_format type is unavailable now', null, 'output_mode'],
    ['DeepSeek early 2025 (422, serde)', 422, '422 Failed to deserialize the JSON body into the target type: response_format: response_format.type `json_schema` is unavailable now at line 1 column 12440', null, 'output_mode'],
    ['DeepSeek thinking, forced tool_choice', 400, '400 Thinking mode does not support this tool_choice', null, 'output_mode'],
    ['Qwen thinking, json_object', 400, '400 <400> InternalError.Algo.InvalidParameter: Json mode response is not supported when enable_thinking is true', null, 'output_mode'],
    ['LM Studio json_object (bare string)', 400, `400 "'response_format.type' must be 'json_schema' or 'text'"`, null, 'output_mode'],
    ['Gemini additionalProperties', 400, `400 Invalid JSON payload received. Unknown name "additionalProperties" at 'generation_config.response_schema': Cannot find field.`, null, 'output_mode'],
    ['old vLLM (pydantic literal_error)', 400, `400 [{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'"}]`, null, 'output_mode'],
    ['llama.cpp (500 naming response_format)', 500, `500 1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type')}`, null, 'output_mode'],
    ['Zhipu GLM 1210 (names nothing)', 400, '400 API 调用参数有误，请检查文档。', null, 'unexplained'],
    ['a prompt too long: no rung fixes it', 400, "400 This model's maximum context length is 8192 tokens.", 'messages', null],
    ['a server error', 500, '500 upstream failed', null, null],
    ['a rate limit', 429, '429 Rate limit reached for requests', null, null],
  ])('%s', (_label, status, message, param, expected) => {
    expect(classifyRefusal({ status, message, param })).toBe(expected);
  });
});

describe('the request of each rung', () => {
  const call = { model: 'm', name: 'doctor_probe', schema: SCHEMA, message: MESSAGE, temperature: 0 };

  test('$schema is never sent; every other keyword is', () => {
    expect(sendableSchema(SCHEMA)).toEqual({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false });
  });

  test('json_schema: strict response_format, the spec prompt untouched', () => {
    expect(structuredRequest('json_schema', call)).toEqual({
      model: 'm',
      messages: [MESSAGE],
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'doctor_probe', strict: true, schema: sendableSchema(SCHEMA) } },
    });
  });

  test('tools: one strict function, forced', () => {
    const body = structuredRequest('tools', { ...call, temperature: null });
    expect(body).toEqual({
      model: 'm',
      messages: [MESSAGE],
      tools: [{ type: 'function', function: { name: 'doctor_probe', description: 'Return the doctor_probe object.', parameters: sendableSchema(SCHEMA), strict: true } }],
      tool_choice: { type: 'function', function: { name: 'doctor_probe' } },
    });
    expect(body).not.toHaveProperty('temperature');
  });

  test('json_object and prompt: the schema (and the word JSON) at the end of the one user message', () => {
    const objectMode = structuredRequest('json_object', call);
    expect(objectMode.response_format).toEqual({ type: 'json_object' });
    expect(objectMode.messages).toHaveLength(1);
    expect(objectMode.messages[0]?.content).toBe(
      `问题\n\nReply with one JSON object and nothing else (no prose, no code fence). It must conform to the JSON Schema "doctor_probe":\n${JSON.stringify(sendableSchema(SCHEMA))}`,
    );
    const promptMode = structuredRequest('prompt', call);
    expect(promptMode).not.toHaveProperty('response_format');
    expect(promptMode.messages).toEqual(objectMode.messages);
  });

  test('a re-ask: the invalid reply and the violation as a second turn', () => {
    const reask = buildReaskMessage('doctor_probe', 'it violates the schema: ✖ Invalid input: expected boolean → at ok');
    const body = structuredRequest('json_schema', { ...call, followUp: [{ role: 'assistant', content: '{"ok":"yes"}' }, reask] });
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(reask.content).toMatchInlineSnapshot(`
"Your reply could not be used: it violates the schema: ✖ Invalid input: expected boolean → at ok
Reply again with one JSON object only, conforming to the JSON Schema "doctor_probe" you were given."
`);
  });
});

describe('extractJson: the object in a reply, never repaired', () => {
  test.each([
    ['plain', '{"ok":true}', { ok: true }],
    ['a code fence', '好的：\n```json\n{"ok":true}\n```', { ok: true }],
    ['a reasoning block first', '<think>想一想 {not this}</think>\n{"ok":true}', { ok: true }],
    ['prose around it, braces in strings', 'Here: {"a":"}{","ok":true} done', { a: '}{', ok: true }],
  ])('%s', (_label, text, value) => {
    expect(extractJson(text)).toEqual({ ok: true, value });
  });

  test.each([
    ['empty', '', 'returned an empty reply'],
    ["DeepSeek's blank json_object reply (spaces)", '   ', 'returned an empty reply'],
    ['only reasoning', '<think>…</think>', 'returned only a reasoning block'],
    ['not JSON', 'complexity: simple', 'replied with text that is not JSON'],
    ['a cut-off object', '{"ok": tr', 'replied with text that is not JSON'],
  ])('%s', (_label, text, why) => {
    const extracted = extractJson(text);
    expect(extracted.ok).toBe(false);
    expect(extracted.ok ? '' : extracted.why).toContain(why);
  });
});

describe('temperature: the spec\'s 0, except for models known to refuse it', () => {
  test.each([
    ['gpt-4o-mini', 0],
    ['o1', null],
    ['o3-mini', null],
    ['o4-mini', null],
    ['gpt-5-mini', null],
    ['openai/gpt-5.2', null],
    ['kimi-k2.5', null],
    ['deepseek-chat', 0],
    ['omni-model', 0],
  ])('%s', (model, temperature) => {
    expect(plannedTemperature(model, undefined).temperature).toBe(temperature);
  });

  test('MODEL_TEMPERATURE wins, even for a known refuser', () => {
    expect(plannedTemperature('gpt-5-mini', 1)).toEqual({ temperature: 1, reason: 'MODEL_TEMPERATURE=1' });
    expect(knownTemperatureRefuser('gpt-5-mini')?.models).toContain('gpt-5 family');
  });
});

test('the run memo names each model\'s rung and temperature', () => {
  const plan = { endpoint: 'h', variables: ['FAST_MODEL'], outputReason: 'r', temperatureReason: 't' };
  expect(
    describeWithPlans('openai fast=a grade=b answer=b @ h', [
      { ...plan, model: 'a', outputMode: 'tools', temperature: null },
      { ...plan, model: 'b', outputMode: 'json_schema', temperature: 0 },
    ]),
  ).toBe('openai fast=a grade=b answer=b @ h [a: tools, no temperature; b: json_schema, temperature 0]');
  expect(describeWithPlans('offline-policy v2', undefined)).toBe('offline-policy v2');
});
