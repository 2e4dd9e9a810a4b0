import type { RagRun } from '../core/run/rag-run';

/*
 * The time a run's steps, audit events and speculation records are stamped with: workflow time, read the same live
 * and in replay, so that a live progress view equals the finished run's (the CI failure of 2026-12-04).
 *
 * Workflow time moves when a local activity resolves, and not the same way live and replayed: when a query reaches
 * the worker while a local activity runs, Temporal's core ends the workflow task early, and the result comes back
 * live in a new task, at that task's start time; a replay resolves it at its recorded completion time. So right
 * after a local activity, and until another event moves workflow time, stamps read the time the activity started at
 * plus the run time it measured itself (part of its recorded result).
 */

type Pin = { at: number; seen: number };
const pins = new WeakMap<RagRun, Pin>();

/** Workflow time for a stamp of `run`. */
export function stampNow(run: RagRun): number {
  const now = Date.now();
  const pin = pins.get(run);
  if (pin && pin.seen === now) return pin.at;
  pins.delete(run);
  return now;
}

/**
 * Runs a local activity and pins the run's stamps to its start plus the time it says it ran (`ranMsOf`; 0 when it
 * does not say, as results recorded before it did) until workflow time moves on.
 */
export async function afterLocalActivity<T>(run: RagRun, call: () => Promise<T>, ranMsOf: (result: T) => number | undefined = () => 0): Promise<T> {
  const startedAt = stampNow(run);
  const result = await call();
  pins.set(run, { at: startedAt + Math.max(0, Math.round(ranMsOf(result) ?? 0)), seen: Date.now() });
  return result;
}
