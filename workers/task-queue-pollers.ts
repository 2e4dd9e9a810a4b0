import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { WorkflowService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { SeenPoller } from '../core/settings/task-queue-pollers';

const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;

/** The workflow pollers Temporal lists for a task queue, each with when it last polled. */
export async function describePollers(service: WorkflowService, where: { namespace: string; taskQueue: string }): Promise<SeenPoller[]> {
  const reply = await service.describeTaskQueue({
    namespace: where.namespace,
    taskQueue: { name: where.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return reply.pollers.map((poller) => ({ identity: poller.identity ?? '?', lastAccessMs: optionalTsToMs(poller.lastAccessTime) ?? null }));
}
