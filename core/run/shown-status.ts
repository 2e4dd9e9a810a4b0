import type { RagOutcome } from '../schemas/run-io';

/*
 * The word a person reads for a run's status (issue 43 §6), the same in the CLI and the console (which imports this
 * file: it imports types only, so no zod reaches the browser bundle).
 */

/** The error code an outcome carries when Temporal closed the run from outside (core/run/run-closure.ts). */
export const CLOSURE_CODES = { cancelled: 'CANCELLED', terminated: 'TERMINATED', timed_out: 'TIMED_OUT' } as const;

const ENDED_BY = new Map<string, string>(Object.entries(CLOSURE_CODES).map(([how, code]) => [code, how]));

/** "cancelled", "terminated" or "timed_out" for a run closed so, else its status. */
export function shownStatus(outcome: Pick<RagOutcome, 'status' | 'error'>): string {
  return (outcome.status === 'failed' && outcome.error && ENDED_BY.get(outcome.error.type)) || outcome.status;
}
