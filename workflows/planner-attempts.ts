import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { RagActivities } from '../activities/contracts';
import { MODEL_CALL, TERMINAL_ERRORS } from './activity-options';

const RETRY = MODEL_CALL.retry ?? {};
const MAX_ATTEMPTS = RETRY.maximumAttempts ?? 5;
const ONE_ATTEMPT = { ...MODEL_CALL, retry: { ...RETRY, maximumAttempts: 1 } };
const planner = proxyActivities<RagActivities>(ONE_ATTEMPT);

/** MODEL_CALL's backoff before attempt n + 1: 1 s, 2 s, 4 s, … up to 30 s. */
function backoffMs(attempt: number): number {
  const initial = 1_000;
  const maximum = 30_000;
  return Math.min(initial * 2 ** (attempt - 1), maximum);
}

/** Whether Temporal would have tried again after this failed attempt (MODEL_CALL's non-retryable types aside). */
function retryable(error: ActivityFailure): boolean {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) return !cause.nonRetryable && !TERMINAL_ERRORS.includes(cause.type ?? '');
  return true;
}

/**
 * The planner's call with MODEL_CALL's retry policy carried out by the workflow instead of the server: each attempt is
 * one activity execution, so the run sees the first failed attempt at once — where speculation beside the planner must
 * stop, before it sends model calls the failed planner would not have (issue 26 §5). The schema budget counts the
 * attempt passed in; the last failure is thrown as Temporal's retries would have thrown it.
 */
export async function planWithVisibleAttempts(question: string, onFailedAttempt: (error: ActivityFailure, attempt: number) => void) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await planner.planComplexity.executeWithOptions({ ...ONE_ATTEMPT, summary: 'classify_complexity' }, [{ question, attempt }]);
    } catch (error) {
      if (isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
      onFailedAttempt(error, attempt);
      if (!retryable(error) || attempt >= MAX_ATTEMPTS) throw error;
      await sleep(backoffMs(attempt));
    }
  }
}
