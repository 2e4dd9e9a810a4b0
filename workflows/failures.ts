import { ApplicationFailure, TemporalFailure } from '@temporalio/workflow';
import { isRagError } from '../core/errors';
import type { RunError } from '../core/schemas/run-io';

/** What the outcome of a cancelled run reports (its Temporal status is CANCELLED). */
export const cancelledRunError = (): RunError => ({ type: 'CANCELLED', message: 'the run was cancelled before it finished; ask again to start a new one' });

/** The innermost ApplicationFailure of a failure chain (activity → child workflow → …), if any. */
function innermostApplicationFailure(error: unknown): ApplicationFailure | null {
  let found: ApplicationFailure | null = null;
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) found = current;
    current = current instanceof TemporalFailure ? current.cause : undefined;
  }
  return found;
}

/** What an app is told when a run fails: the closed error code and its message. */
export function runErrorOf(error: unknown): RunError {
  if (isRagError(error)) return { type: error.code, message: error.message };
  const failure = innermostApplicationFailure(error);
  if (failure) return { type: failure.type ?? 'INTERNAL', message: failure.message };
  return { type: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

/** A terminal failure of the run carrying the same code, so the Temporal UI shows why it failed. */
export function terminalFailure(error: RunError, cause?: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: true,
    cause: cause instanceof Error ? cause : undefined,
  });
}
