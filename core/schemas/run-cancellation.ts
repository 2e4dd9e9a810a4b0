import { z } from 'zod';

/**
 * Asking a run to stop (issue 43 §6): `ragtime cancel --reason`, the body of POST /api/runs/{id}/cancel. The reason
 * is kept in the run's Temporal history in clear (not a payload: the codec does not seal it), so it names why, never
 * a secret.
 */
export const CancelRunInput = z.object({
  reason: z.string().trim().min(1, 'reason is empty; leave it out or say why the run is cancelled').max(500).optional(),
});
export type CancelRunInput = z.infer<typeof CancelRunInput>;

/** A workflow execution's status as Temporal reports it, in ragtime's words. */
export const ExecutionStatus = z.enum(['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out', 'continued_as_new']);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

/**
 * What a cancellation did. `cancelled`: this request asked the running run to stop (false: it had already closed, and
 * nothing changed). `status`: the run's status after the wait — `cancelled` once a worker has processed the request,
 * still `running` when none did within the wait (the request stands: the run ends when a worker picks it up).
 * `children`: its sub-question runs, cancelled with it.
 */
export const RunCancellation = z.object({
  workflowId: z.string(),
  cancelled: z.boolean(),
  status: ExecutionStatus,
  reason: z.string().nullable(),
  children: z.array(z.object({ workflowId: z.string(), status: ExecutionStatus })),
});
export type RunCancellation = z.infer<typeof RunCancellation>;
