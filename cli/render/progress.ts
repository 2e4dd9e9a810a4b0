import { followProgress as followSteps } from '../../client/follow-progress';
import { shownStep, type RagStep } from '../../core/progress/rag-step';

/** One line per progress step, as the original's stream shows them (spec §4.13), in the question's language. */
export function renderStep(step: RagStep): string {
  const group = step.group ? `[${step.group}] ` : '';
  const { label, detail } = shownStep(step);
  return `  ${String(step.elapsed_ms).padStart(6)} ms  ${group}${step.icon} ${label}${detail ? `  ${detail}` : ''}`;
}

/**
 * Polls a run's progress while `pending` is unsettled and prints the steps not printed yet (client/follow-progress.ts).
 * Pass the same `printed` set to a later call (the next round after an answer) to carry on where this one stopped.
 */
export function followProgress<T>(
  pending: Promise<T>,
  poll: () => Promise<RagStep[]>,
  print: (line: string) => void,
  { intervalMs = 250, printed = new Set<string>() }: { intervalMs?: number; printed?: Set<string> } = {},
): Promise<T> {
  return followSteps(pending, poll, (step) => print(renderStep(step)), { intervalMs, seen: printed });
}
