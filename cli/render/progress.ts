import type { RagStep } from '../../core/progress/rag-step';

/** One line per progress step, as the original's stream shows them (spec §4.13). */
export function renderStep(step: RagStep): string {
  const group = step.group ? `[${step.group}] ` : '';
  const detail = step.detail ? `  ${step.detail}` : '';
  return `  ${String(step.elapsed_ms).padStart(6)} ms  ${group}${step.icon} ${step.label}${detail}`;
}

/** Identifies a step across polls: the same step keeps its texts, group and times wherever it is listed. */
const stepKey = (step: RagStep): string => JSON.stringify([step.group ?? '', step.icon, step.label, step.detail, step.elapsed_ms]);

/**
 * Polls a run's progress while `pending` is unsettled and prints the steps not printed yet. Steps are matched by
 * content, not position: while sub-questions run, their live steps follow the parent's, and once they finish the
 * parent lists them itself in its own order. Pass the same `printed` set to a later call (the next round after an
 * answer) to carry on where this one stopped. Errors while polling (the run may not exist for the first few ms)
 * are ignored: the outcome decides success.
 */
export async function followProgress<T>(
  pending: Promise<T>,
  poll: () => Promise<RagStep[]>,
  print: (line: string) => void,
  { intervalMs = 250, printed = new Set<string>() }: { intervalMs?: number; printed?: Set<string> } = {},
): Promise<T> {
  let done = false;
  const flush = async () => {
    const steps = await poll().catch(() => [] as RagStep[]);
    for (const step of steps) {
      const key = stepKey(step);
      if (printed.has(key)) continue;
      printed.add(key);
      print(renderStep(step));
    }
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
