import { Context } from '@temporalio/activity';

/**
 * How often a waiting activity tells the server it is alive (issue 14 §1). The heartbeat timeout of the model and
 * retrieval activities (workflows/activity-options.ts, 10 s) is a few of these, so one late tick is not a death.
 */
export const HEARTBEAT_EVERY_MS = 2_000;

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
