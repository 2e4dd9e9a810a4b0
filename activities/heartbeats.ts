import { Context } from '@temporalio/activity';

/**
 * How often a waiting activity tells the server it is alive (issue 14 §1). The heartbeat timeout of the model and
 * retrieval activities (workflows/activity-options.ts, 10 s) is many of these, so one late tick is not a death. The
 * answer to a heartbeat is also how an activity learns it was cancelled (issue 43 §6): 1 s, so that a cancelled run's
 * model calls end within about a second (was 2 s).
 */
export const HEARTBEAT_EVERY_MS = 1_000;

/**
 * The worker's longest heartbeat throttle (Worker option `maxHeartbeatThrottleInterval`, issue 43 §6). The SDK sends
 * an activity's first heartbeat at once and then at most one per 0.8 × heartbeatTimeout (8 s), so a run cancelled in
 * the middle of a model call had the call end up to 8 s later (measured: 5.0 s for a cancel 5 s into the call, twice).
 * Capped at the tick, every tick reaches the server.
 */
export const HEARTBEAT_THROTTLE_MS = HEARTBEAT_EVERY_MS;

type AsyncFunction = (...args: never[]) => Promise<unknown>;

/**
 * The same activities, each heartbeating while it runs: a model or embedding call gives no progress to report, but
 * a worker killed while it waits is then noticed after the heartbeat timeout rather than the start-to-close one
 * (60 s). Outside an activity (a test calling the function directly) there is nobody to heartbeat to.
 */
export function withHeartbeats<T extends Record<string, AsyncFunction>>(activities: T, everyMs = HEARTBEAT_EVERY_MS): T {
  const wrapped = Object.entries(activities).map(([name, run]) => [
    name,
    async (...args: never[]) => {
      const context = activityContext();
      const timer = context ? setInterval(() => context.heartbeat(), everyMs) : undefined;
      try {
        return await run(...args);
      } finally {
        clearInterval(timer);
      }
    },
  ]);
  return Object.fromEntries(wrapped) as T;
}

function activityContext(): Context | null {
  try {
    return Context.current();
  } catch {
    return null;
  }
}
