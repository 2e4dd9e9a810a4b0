import { RagError } from '../../../core/errors';
import { parseConfig } from '../../../core/config';

/* AUDIT_INCLUDE_CONTENT (issue 6 §1): privacy by default; only the exact words true and false are read. */

function configError(env: Record<string, string>): RagError {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof RagError) return error;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

test.each([
  [undefined, false],
  ['', false],
  ['  ', false],
  ['false', false],
  ['true', true],
  [' true ', true],
])('AUDIT_INCLUDE_CONTENT %j → includeContent %s', (value, expected) => {
  const env = value === undefined ? {} : { AUDIT_INCLUDE_CONTENT: value };
  expect(parseConfig(env).audit).toEqual({ includeContent: expected });
});

test.each(['TRUE', '1', 'yes', 'ture', 'on'])('AUDIT_INCLUDE_CONTENT %j is refused, not read as off or on', (value) => {
  const error = configError({ AUDIT_INCLUDE_CONTENT: value });
  expect(error.code).toBe('INVALID_CONFIG');
  expect(error.message).toContain(`AUDIT_INCLUDE_CONTENT="${value}" is not true or false: set one, or unset it to use the default false`);
});
