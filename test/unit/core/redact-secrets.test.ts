import { APIError } from 'openai';
import { modelCallFailure } from '../../../activities/adapters/openai-call-failure';
import { redactSecrets } from '../../../core/text/redact-secrets';

/* Issue 33 §5: a secret is masked where it stands whole, never inside a word (the key "x" made "comple***ity"). */

describe('redactSecrets', () => {
  test('a short key leaves the words that contain it alone, and is masked where it stands alone', () => {
    expect(redactSecrets('the complexity planner failed: bad key x', ['x'])).toBe('the complexity planner failed: bad key ***');
  });

  test('a key in a header, after "=", in a URL and at the ends of the text', () => {
    expect(redactSecrets('sk-e2e-1 Authorization: Bearer sk-e2e-1, key=sk-e2e-1. https://u:sk-e2e-1@host sk-e2e-1', ['sk-e2e-1'])).toBe(
      '*** Authorization: Bearer ***, key=***. https://u:***@host ***',
    );
  });

  test('part of a longer token is not the key; the longer of two secrets is masked first', () => {
    expect(redactSecrets('sk-abc sk-abcdef xsk-abc', ['sk-abc'])).toBe('*** sk-abcdef xsk-abc');
    expect(redactSecrets('pw pw-long', ['pw', 'pw-long'])).toBe('*** ***');
    expect(redactSecrets('nothing to hide', ['', 'absent'])).toBe('nothing to hide');
  });
});

test('a model call refused with the key "x": the endpoint\'s words come through whole, the key masked', () => {
  const error = APIError.generate(401, { error: { message: 'complexity planner: invalid key x' } }, undefined, new Headers());
  const failure = modelCallFailure(error, { model: 'm', modelVariable: 'FAST_MODEL', schema: 'complexity', host: 'h', timeoutMs: 1000, elapsedMs: 5, apiKey: 'x' });
  expect(failure.message).toContain('complexity planner: invalid key ***');
  expect(failure.message).not.toContain('comple***ity');
});
