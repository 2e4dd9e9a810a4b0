import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { RagError } from '../core/errors';

/*
 * Issue 14 §4: when the Temporal server goes away while `ask` or `answer` waits, the run itself survives (its
 * history is on the server's disk) but the call fails. The client calls again with the same workflow id and the
 * same update id — the server dedupes both — until the server is back or the window has passed.
 */

/** How long a caller waits for the server to come back before it is told (SERVICE_UNAVAILABLE, naming the run). */
export const REATTACH_WINDOW_MS = 60_000;
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 5_000;

/**
 * gRPC codes of a server that is unreachable or went away mid-call (UNAVAILABLE 14, DEADLINE_EXCEEDED 4,
 * CANCELLED 1); nothing else is worth calling again for.
 */
const GONE = new Set<number>([14, 4, 1]);

export function isServerGone(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number' && GONE.has(code)) return true;
  }
  return false;
}

export type ReattachOptions = { workflowId: string; windowMs?: number; sleep?: (ms: number) => Promise<void> };

/** Calls `call` until it succeeds, fails for another reason, or the server stays gone past the window. */
export async function reattaching<T>(call: () => Promise<T>, options: ReattachOptions): Promise<T> {
  const windowMs = options.windowMs ?? REATTACH_WINDOW_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + windowMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await call();
    } catch (error) {
      if (!isServerGone(error)) throw error;
      if (Date.now() + pause > deadline) {
        throw new RagError(
          'SERVICE_UNAVAILABLE',
          `the Temporal server went away during run "${options.workflowId}" and was not back within ${Math.round(windowMs / 1000)} s; ` +
            `the run itself is kept — read it once the server is back (ragtime trace ${options.workflowId})`,
          { cause: error },
        );
      }
      await sleep(pause);
    }
  }
}
