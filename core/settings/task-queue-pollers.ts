import { workerProviderOf } from './worker-identity';

/*
 * The pollers Temporal lists for a task queue (DescribeTaskQueue) include workers that stopped minutes ago. A live
 * worker long-polls for 60 s and polls again at once, so its last access is never much older than that: one seen
 * within LIVE_POLLER_MS still polls (issue 43 §5: `doctor` counted stopped workers as polling). Pure: the time
 * comes in as an argument.
 */

/** A poller last seen longer ago than this has stopped: a 60 s long poll, and 10 s of slack. */
export const LIVE_POLLER_MS = 70_000;

/** A poller as Temporal lists it: its identity, and when it last polled (ms since the epoch; null when not said). */
export type SeenPoller = { identity: string; lastAccessMs: number | null };

/** The pollers seen within LIVE_POLLER_MS of `nowMs`; one whose last access Temporal does not say counts as live. */
export function livePollers(pollers: readonly SeenPoller[], nowMs: number): SeenPoller[] {
  return pollers.filter((poller) => poller.lastAccessMs === null || nowMs - poller.lastAccessMs <= LIVE_POLLER_MS);
}

/** The live pollers whose identity names a provider other than `provider` (one that names none is not counted). */
export function otherProviderPollers(pollers: readonly SeenPoller[], provider: string, nowMs: number): SeenPoller[] {
  return livePollers(pollers, nowMs).filter((poller) => {
    const theirs = workerProviderOf(poller.identity);
    return theirs !== null && theirs !== provider;
  });
}

/**
 * Why a worker of `provider` must not join the task queue, or null when it may: a question on a shared queue goes
 * to whichever worker polls first, so a `local` worker beside an `offline` one answers some questions by the rules
 * and says nothing of it (issue 43). `allowMixed` (the worker's --allow-mixed-providers) lets it join anyway.
 */
export function mixedProviderRefusal(
  others: readonly SeenPoller[],
  where: { provider: string; taskQueue: string; allowMixed: boolean },
): string | null {
  if (others.length === 0 || where.allowMixed) return null;
  const shown = others.slice(0, 3).map((poller) => `${poller.identity} (provider ${workerProviderOf(poller.identity) ?? '?'})`).join(', ');
  return (
    `task queue "${where.taskQueue}" is polled by a worker of another model provider: ${shown}; this worker's provider is ${where.provider}. ` +
    `Questions would go to either, and the answer would not say which: stop that worker (\`scripts/services.sh down worker\`), ` +
    `or give this one its own queue (TEMPORAL_TASK_QUEUE=…, and the same for the ask), or pass --allow-mixed-providers to share it anyway`
  );
}
