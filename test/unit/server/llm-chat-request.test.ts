import { ChatCompletionRequest, grammarSchema, outputSchemaOf, textOf } from '../../../server/llm/chat-request';

// The local model service's reading of an OpenAI chat-completions request (issue 34 §1; server/llm/chat-request.ts).

const base = { model: 'm', messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'a' }, { type: 'text' as const, text: 'b' }] }] };

test('text parts are joined; json_schema, json_object with a schema, and plain json_object give the schema to enforce', () => {
  const request = ChatCompletionRequest.parse(base);
  expect(textOf(request.messages[0]!)).toBe('ab');
  expect(outputSchemaOf(request)).toBeNull();
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  expect(outputSchemaOf(ChatCompletionRequest.parse({ ...base, response_format: { type: 'json_schema', json_schema: { name: 'x', schema, strict: true } } }))).toEqual(schema);
  expect(outputSchemaOf(ChatCompletionRequest.parse({ ...base, response_format: { type: 'json_object', schema } }))).toEqual(schema);
  expect(outputSchemaOf(ChatCompletionRequest.parse({ ...base, response_format: { type: 'json_object' } }))).toEqual({ type: 'object' });
});

test('the grammar keeps structure (types, properties, required, enum, items) and drops what it cannot enforce', () => {
  expect(
    grammarSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { confidence: { type: 'number', minimum: 0, maximum: 1 }, route: { enum: ['answer', 'clarify'] }, ids: { type: 'array', items: { type: 'string', pattern: '^d' } }, pattern: { type: 'string' } },
      required: ['confidence', 'route'],
      additionalProperties: false,
    }),
  ).toEqual({
    type: 'object',
    properties: { confidence: { type: 'number' }, route: { enum: ['answer', 'clarify'] }, ids: { type: 'array', items: { type: 'string' } }, pattern: { type: 'string' } },
    required: ['confidence', 'route'],
    additionalProperties: false,
  });
});

test('a request without messages, or with an unknown role, is refused by the schema', () => {
  expect(ChatCompletionRequest.safeParse({ model: 'm', messages: [] }).success).toBe(false);
  expect(ChatCompletionRequest.safeParse({ model: 'm', messages: [{ role: 'oracle', content: 'x' }] }).success).toBe(false);
});

test('long length bounds are dropped (llama.cpp refuses a grammar repeating 2,000 times); short ones stay', () => {
  expect(grammarSchema({ type: 'object', properties: { q: { type: 'string', minLength: 1, maxLength: 2000 }, ids: { type: 'array', maxItems: 20 } } })).toEqual({
    type: 'object',
    properties: { q: { type: 'string', minLength: 1 }, ids: { type: 'array', maxItems: 20 } },
  });
});
