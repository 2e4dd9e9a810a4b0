import { z } from 'zod';
import type { RagOutcome } from '../schemas/run-io';
import { CLOSURE_CODES } from './shown-status';

/**
 * How Temporal closed a run from outside the run's own code (issue 43 §6): cancelled (`ragtime cancel`, the API, the
 * console, an MCP client), terminated (`temporal workflow terminate`, the Temporal UI) or timed out (an execution
 * timeout), with the reason Temporal recorded, if any. A terminated run's queries still report the state it was left
 * in ("running", "awaiting_input"); this is what the outcome then says instead.
 */
export const RunClosure = z.object({ how: z.enum(['cancelled', 'terminated', 'timed_out']), reason: z.string().nullable() });
export type RunClosure = z.infer<typeof RunClosure>;


const WHAT: Record<RunClosure['how'], string> = {
  cancelled: 'the run was cancelled before it finished',
  terminated: 'the run was terminated before it finished (by Temporal: `temporal workflow terminate` or the Temporal UI)',
  timed_out: 'the run reached its Temporal execution timeout before it finished',
};

/** One line: what closed the run, the reason when Temporal has one, and what to do. */
export function closureMessage(closure: RunClosure): string {
  return `${WHAT[closure.how]}${closure.reason ? `: "${closure.reason}"` : ''}; it takes no answers — ask again to start a new one`;
}

/**
 * The outcome of a run closed from outside: failed, with the closure's code and message; no pending question (it
 * takes no answer). What it had found stays (route, evidence, rounds, the resume snapshot).
 */
export function closedOutcome(outcome: RagOutcome, closure: RunClosure): RagOutcome {
  return {
    ...outcome,
    status: 'failed',
    hitl: null,
    error: { type: CLOSURE_CODES[closure.how], message: closureMessage(closure) },
    answer_null_reason: outcome.answer === null && outcome.answer_null_reason === 'pending' ? 'run_failed' : outcome.answer_null_reason,
  };
}
