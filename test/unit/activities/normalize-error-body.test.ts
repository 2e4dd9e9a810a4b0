import { openAiErrorBody } from '../../../activities/adapters/normalize-error-body';

// The bodies of docs/PROVIDERS.md, as the providers send them.
describe('openAiErrorBody: provider error bodies in OpenAI\'s shape (issue 24)', () => {
  test("Gemini's array: the first error, its code and status kept", () => {
    const gemini = '[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \\"$schema\\" at \'generation_config.response_schema\': Cannot find field.","status":"INVALID_ARGUMENT","details":[]}}]';
    expect(openAiErrorBody(gemini)).toEqual({
      error: { message: 'Invalid JSON payload received. Unknown name "$schema" at \'generation_config.response_schema\': Cannot find field.', type: 'INVALID_ARGUMENT', param: null, code: 400 },
    });
  });

  test("old vLLM's flat body and FastAPI's detail", () => {
    expect(openAiErrorBody('{"object":"error","message":"bad response_format","type":"BadRequestError","param":null,"code":400}')).toEqual({
      error: { message: 'bad response_format', type: 'BadRequestError', param: null, code: 400 },
    });
    expect(openAiErrorBody('{"detail":[{"loc":["body","tools"],"msg":"extra fields not permitted"}]}')?.error.message).toBe('[{"loc":["body","tools"],"msg":"extra fields not permitted"}]');
  });

  test("untouched: OpenAI's own shape, LM Studio's bare string, text that is not JSON", () => {
    expect(openAiErrorBody('{"error":{"message":"x","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}')).toBeNull();
    expect(openAiErrorBody(`{"error":"'response_format.type' must be 'json_schema'"}`)).toBeNull();
    expect(openAiErrorBody('Failed to deserialize the JSON body')).toBeNull();
  });
});
