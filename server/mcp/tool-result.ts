import { isRagError } from '../../core/errors';
import { ApiFailure } from '../http/api-failure';

/** A tool failure an agent can act on: the closed code, then the message that states the rule and the fix. */
export function failure(error: unknown): Error {
  if (isRagError(error)) return new Error(`${error.code}: ${error.message}`, { cause: error });
  if (error instanceof ApiFailure) return new Error(`${error.code}: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** The closed code of a failure (RagError, ApiFailure), INTERNAL for anything else: what the audit keeps of it. */
export function failureCode(error: unknown): string {
  if (isRagError(error) || error instanceof ApiFailure) return error.code;
  return 'INTERNAL';
}

export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw failure(error);
  }
}

/** A structured result, with its JSON as text too (the MCP spec asks for both, for clients without structure). */
export const result = <T extends Record<string, unknown>>(structured: T) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(structured, null, 2) }],
  structuredContent: structured,
});
