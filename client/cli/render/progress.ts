import type { RagStep } from '../../../core/progress/rag-step';

/** One line per progress step, as the original's stream shows them (spec §4.13). */
export function renderStep(step: RagStep): string {
  const group = step.group ? `[${step.group}] ` : '';
  const detail = step.detail ? `  ${step.detail}` : '';
  return `  ${String(step.elapsed_ms).padStart(6)} ms  ${group}${step.icon} ${step.label}${detail}`;
}

/**
 * Polls a run's progress while `pending` is unsettled and prints the new steps. Errors while polling (the run may
 * not exist for the first few ms) are ignored: the outcome decides success.
 */
export async function followProgress<T>(
  pending: Promise<T>,
  poll: () => Promise<RagStep[]>,
  print: (line: string) => void,
  intervalMs = 250,
): Promise<T> {
  let shown = 0;
  let done = false;
  const flush = async () => {
    const steps = await poll().catch(() => [] as RagStep[]);
    for (const step of steps.slice(shown)) print(renderStep(step));
    shown = Math.max(shown, steps.length);
  };
  const loop = (async () => {
    while (!done) {
      await flush();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  try {
    return await pending;
  } finally {
    done = true;
    await loop;
    await flush();
  }
}
