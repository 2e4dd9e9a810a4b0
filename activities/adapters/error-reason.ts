type ErrorLike = { message: string; cause?: unknown; code?: unknown; errors?: unknown };

/** Duck-typed: errors raised inside Node (undici, sockets) come from another realm under jest and some bundlers. */
const isErrorLike = (value: unknown): value is ErrorLike =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/**
 * The innermost readable reason: undici wraps socket errors as `TypeError('fetch failed', { cause })`, and a host
 * with several addresses fails with an AggregateError (empty message) of per-address errors.
 */
export function innermostReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isErrorLike(current); depth += 1) {
    const { cause } = current;
    const inner = isErrorLike(cause) && Array.isArray(cause.errors) && cause.message === '' ? cause.errors[0] : cause;
    if (!isErrorLike(inner)) break;
    current = inner;
  }
  if (!isErrorLike(current)) return String(current);
  return current.message || (current.code === undefined ? 'unknown error' : String(current.code));
}
