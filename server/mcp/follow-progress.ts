import { followProgress as followSteps } from '../../client/follow-progress';
import type { RagStep } from '../../core/progress/rag-step';

/** A step as the message of an MCP progress notification: the spec's rag_step label and its detail. */
export const stepMessage = (step: RagStep): string => `${step.group_label ? `${step.group_label}: ` : ''}${step.icon} ${step.label}${step.detail ? ` — ${step.detail}` : ''}`;

/** Reports each new step of a run while `pending` is unsettled, counted from 1, as an MCP progress message. */
export function followProgress<T>(
  pending: Promise<T>,
  poll: () => Promise<RagStep[]>,
  report: (progress: number, message: string) => Promise<void>,
  intervalMs = 250,
): Promise<T> {
  return followSteps(pending, poll, (step, count) => report(count, stepMessage(step)), { intervalMs });
}
