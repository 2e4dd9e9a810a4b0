import type { RunDetail } from '../schemas/run-detail';

/*
 * How the parts of two runs are paired: by the workflow they happened in (the run itself or its n-th sub-question,
 * whose ids differ between runs) and their order there, never by workflow id.
 */

/** "run" for the run's own workflow, "sub-<n>" for a sub-question child ("<parent>/sub-<n>"). */
export function roleOf(detail: RunDetail, workflowId: string): string {
  return workflowId === detail.outcome.workflowId ? 'run' : (workflowId.split('/').at(-1) ?? workflowId);
}

/** Keys items by "<base>#<n>": the n-th item with that base key ("run#1", "sub-2:sub_question#1"). */
export function byPosition<T>(items: T[], keyOf: (item: T) => string): Map<string, T> {
  const seen = new Map<string, number>();
  const keyed = new Map<string, T>();
  for (const item of items) {
    const base = keyOf(item);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    keyed.set(`${base}#${n}`, item);
  }
  return keyed;
}

/** Every key of either map, a's first, in their order. */
export const unionKeys = <T>(a: Map<string, T>, b: Map<string, T>): string[] => [...new Set([...a.keys(), ...b.keys()])];
