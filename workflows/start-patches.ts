import { patched } from '@temporalio/workflow';
import type { RagRun } from '../core/run/rag-run';

/**
 * Patch id that decides, in the run's first activation, the patches below for the whole run. A patched() call made
 * right after a local activity fails replay when a loaded worker sent what followed the activity in the next workflow
 * task: the marker is not known while that point replays ("Non-deprecated patch marker encountered", seen on a query
 * of a closed run in make test; test/replay/split-task.test.ts). Runs that record this marker record none of the
 * patches below; runs recorded before it keep asking for each where they did.
 */
export const PATCHES_AT_START = 'ragtime-20261204-patches-at-start';

/** Patch id of the memo that names the models (added after the first recorded histories; workflows/publish-state.ts). */
export const MEMO_MODELS_PATCH = 'ragtime-20261130-memo-models';

/**
 * Patch id of the planner's attempts made by the workflow (issue 26 §5; workflows/planner-attempts.ts). Asked only by
 * runs that speculate ahead of the planner; the others keep Temporal's retries.
 */
export const PLANNER_ATTEMPTS_PATCH = 'ragtime-20261202-planner-attempts';

/** The patches PATCHES_AT_START decides. A patch added later gets its own id, asked before the first local activity. */
const DECIDED_AT_START: ReadonlySet<string> = new Set([PLANNER_ATTEMPTS_PATCH, MEMO_MODELS_PATCH]);

const decidedAtStart = new WeakSet<RagRun>();

/** Asked in the run's first activation, before anything it awaits. */
export function decidePatchesAtStart(run: RagRun): void {
  if (patched(PATCHES_AT_START)) decidedAtStart.add(run);
}

/** patched(patchId) for a patch PATCHES_AT_START decides: true without a marker of its own when decided at start. */
export function patchedFor(run: RagRun, patchId: string): boolean {
  if (!DECIDED_AT_START.has(patchId)) throw new Error(`${patchId} is not decided at start: ask patched() for it`);
  return decidedAtStart.has(run) || patched(patchId);
}
