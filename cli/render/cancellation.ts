import type { RunCancellation } from '../../core/schemas/run-cancellation';

/** What `ragtime cancel` prints (issue 43 §6): what the request did, the run's status now, and its sub-questions. */
export function renderCancellation(result: RunCancellation): string {
  const reason = result.reason ? ` (reason: "${result.reason}")` : '';
  const lines = [
    !result.cancelled
      ? `run ${result.workflowId} had already ended: ${result.status.replace('_', ' ')}${reason}; nothing was changed`
      : result.status === 'running'
        ? `cancellation of run ${result.workflowId} requested${reason}; it ends when a worker picks the request up (ragtime doctor checks one polls)`
        : `run ${result.workflowId} ${result.status === 'cancelled' ? 'cancelled' : `ended ${result.status.replace('_', ' ')}`}${reason}`,
  ];
  result.children.forEach((child) => lines.push(`  sub-question ${child.workflowId}: ${child.status.replace('_', ' ')}`));
  return lines.join('\n');
}
