import type { WorkflowService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { RagError } from '../core/errors';
import type { RagClient } from './rag-client';

const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;

/**
 * Refuses to start or answer a run that no worker would pick up: without one, `ask` would wait forever in silence.
 * Temporal lists the pollers it saw in the last few minutes, so a worker stopped a moment ago still counts; only an
 * empty list is certain, and only that fails.
 */
export async function assertWorkerPolling(rag: RagClient, where: { namespace: string; taskQueue: string; address: string }): Promise<void> {
  const reply = await rag.temporal.workflowService
    .describeTaskQueue({
      namespace: where.namespace,
      taskQueue: { name: where.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    })
    .catch((error: unknown) => {
      throw new RagError('SERVICE_UNAVAILABLE', `cannot ask Temporal at ${where.address} about task queue "${where.taskQueue}": ${(error as Error).message}`, { cause: error });
    });
  if (reply.pollers.length === 0) {
    throw new RagError(
      'SERVICE_UNAVAILABLE',
      `no ragtime worker polls task queue "${where.taskQueue}" on ${where.address}; start one with \`npx ragtime worker\` (\`make demo\` runs one in the background)`,
    );
  }
}

/**
 * Resolves once the task queue's workflow pollers include one (with `identity`, that one), or after `timeoutMs`
 * (default 10 s) with false. A worker polls a moment after it starts: a question asked before Temporal lists it
 * would meet assertWorkerPolling's "no ragtime worker polls" (`ragtime worker` waits for this before it says it is
 * ready; so do tests that start a worker in their own process).
 */
export async function untilWorkerPolls(
  service: WorkflowService,
  where: { namespace: string; taskQueue: string; identity?: string },
  timeoutMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reply = await service
      .describeTaskQueue({ namespace: where.namespace, taskQueue: { name: where.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW })
      .catch(() => null);
    if (reply?.pollers.some((poller) => where.identity === undefined || poller.identity === where.identity)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
