import type { WorkflowService } from '@temporalio/client';
import { RagError } from '../core/errors';
import { LIVE_POLLER_MS, mixedProviderRefusal, otherProviderPollers, type SeenPoller } from '../core/settings/task-queue-pollers';
import { describePollers } from './task-queue-pollers';

const RECHECK_MS = 5_000;

/**
 * Refuses to start a worker on a task queue that a worker of another model provider polls (issue 43 §5). A worker
 * stopped a moment ago (`scripts/services.sh restart worker` with another MODEL_PROVIDER) is still listed, for up to
 * LIVE_POLLER_MS: so when one is seen, the worker watches the queue until it is gone (it started) or polls again (it
 * is live: refuse), at most LIVE_POLLER_MS.
 */
export async function refuseMixedProviders(
  service: WorkflowService,
  where: { namespace: string; taskQueue: string; provider: string; allowMixed: boolean },
  log: (line: string) => void,
  recheckMs = RECHECK_MS,
): Promise<void> {
  if (where.allowMixed) return;
  const others = async () => otherProviderPollers(await describePollers(service, where), where.provider, Date.now());
  const first = await others().catch((error: unknown) => {
    // Not being allowed to describe the queue (a narrow API key) is no reason not to work: said, not fatal.
    log(`ragtime worker: cannot list task queue "${where.taskQueue}"'s pollers (${error instanceof Error ? error.message : String(error)}); not checking for workers of another provider`);
    return [];
  });
  if (first.length === 0) return;
  const seenAt = new Map(first.map((poller) => [poller.identity, poller.lastAccessMs]));
  const polledAgain = (poller: SeenPoller) => poller.lastAccessMs === null || poller.lastAccessMs > (seenAt.get(poller.identity) ?? -Infinity);
  log(`ragtime worker: a worker of another provider was seen on task queue "${where.taskQueue}" (${first.map((p) => p.identity).join(', ')}); waiting up to ${LIVE_POLLER_MS / 1000} s to see whether it still polls`);
  const deadline = Date.now() + LIVE_POLLER_MS;
  let now = first;
  while (now.length > 0 && !now.some(polledAgain) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, recheckMs));
    now = await others();
  }
  const refusal = mixedProviderRefusal(now, where);
  if (refusal !== null) throw new RagError('INVALID_CONFIG', refusal);
}
