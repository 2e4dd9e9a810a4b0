import type { RagStep } from '../core/progress/rag-step';

/** Reads of a settled run's last steps (and answer), when one fails: a query of a closed run replays it on a worker. */
export const FINAL_READS = 5;

/** Identifies a step across polls: the same step keeps its texts, group and times wherever it is listed. */
const stepKey = (step: RagStep): string => JSON.stringify([step.group ?? '', step.icon, step.label, step.detail, step.elapsed_ms]);

/**
 * One read of a run's progress: hands each step not in `seen` to `onStep` (and adds it). Steps are matched by
 * content, not position: while sub-questions run, their live steps follow the parent's, and once they finish the
 * parent lists them itself in its own order. Errors from `onStep` are ignored, and so are errors while polling (the
 * run may not exist for its first milliseconds), but the read then resolves false so a caller's last read can be
 * repeated: a failed query after the run settled (a busy worker replaying it) used to drop the last steps silently.
 */
export function stepFlusher(
  poll: () => Promise<RagStep[]>,
  onStep: (step: RagStep, count: number) => void | Promise<void>,
  seen = new Set<string>(),
): () => Promise<boolean> {
  return async () => {
    const steps = await poll().catch(() => null);
    if (steps === null) return false;
    for (const step of steps) {
      const key = stepKey(step);
      if (seen.has(key)) continue;
      seen.add(key);
      await Promise.resolve(onStep(step, seen.size)).catch(() => undefined);
    }
    return true;
  };
}

/**
 * Polls a run's progress (spec §4.13) while `pending` is unsettled and hands each step not seen yet to `onStep`
 * (stepFlusher). Pass the same `seen` set to a later call (the next round after an answer) to carry on where this
 * one stopped. For a run's steps together with its streaming answer, in order, use followRun (client/follow-run.ts).
 */
export async function followProgress<T>(
  pending: Promise<T>,
  poll: () => Promise<RagStep[]>,
  onStep: (step: RagStep, count: number) => void | Promise<void>,
  { intervalMs = 250, seen = new Set<string>() }: { intervalMs?: number; seen?: Set<string> } = {},
): Promise<T> {
  let done = false;
  const flush = stepFlusher(poll, onStep, seen);
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
    for (let tries = 1; !(await flush()) && tries < FINAL_READS; tries += 1) await new Promise((resolve) => setTimeout(resolve, intervalMs * 2 ** tries));
  }
}
