import { patched } from '@temporalio/workflow';
import type { RagRun } from '../core/run/rag-run';

/*
 * The patches of the RAG run, and how a run decides them. Every patched() call records a marker and, in core, an
 * upsert of the TemporalChangeVersion search attribute: two history events and a visibility write each. Runs started
 * since ONE_PATCH record that one marker in their first activation and ask no other patch — every patch below counts
 * as taken (issue 36 §2: a fast run had five markers and five upserts for them). Runs recorded before it ask as they
 * did: PATCHES_AT_START decides two patches at start, the others are asked where they are used.
 */

/** Runs that record it take every patch below without a marker of their own. Asked first, before anything else. */
export const ONE_PATCH = 'ragtime-20261204-one-patch';

/**
 * Patch id that decides, in the run's first activation, the two patches of DECIDED_AT_START for the whole run. A
 * patched() call made right after a local activity fails replay when a loaded worker sent what followed the activity
 * in the next workflow task: the marker is not known while that point replays ("Non-deprecated patch marker
 * encountered", seen on a query of a closed run in make test; test/replay/split-task.test.ts).
 */
export const PATCHES_AT_START = 'ragtime-20261204-patches-at-start';

/** Patch id of the memo that names the models (added after the first recorded histories; workflows/publish-state.ts). */
export const MEMO_MODELS_PATCH = 'ragtime-20261130-memo-models';
/**
 * Patch id of the planner's attempts made by the workflow (issue 26 §5; workflows/planner-attempts.ts). Asked only by
 * runs that speculate ahead of the planner; the others keep Temporal's retries.
 */
export const PLANNER_ATTEMPTS_PATCH = 'ragtime-20261202-planner-attempts';
/** Patch id of the audit activity (added after the memo-models histories were recorded). */
export const AUDIT_PATCH = 'ragtime-20261130-audit';
/** Patch id of recording the audit as a local activity (added after the audit and encrypted histories). */
export const AUDIT_LOCAL_PATCH = 'ragtime-20261130-audit-local';
/** Patch id of speculative execution (issue 17 §2): asked only by runs whose input names a level other than off. */
export const SPECULATION_PATCH = 'ragtime-20261201-speculation';
/** Patch id of the answer node (added after the audit-local histories were recorded). */
export const ANSWER_PATCH = 'ragtime-20261201-answer';
/** Patch id of ending a cancelled run as CANCELLED with a `cancelled` audit event (added after the heartbeats histories). */
export const CANCELLED_PATCH = 'ragtime-20261201-cancelled';
/** Patch id of conversations (issue 25 §1): runs recorded before it neither read nor record session turns. */
export const SESSION_TURNS_PATCH = 'ragtime-20261202-session-turns';

/**
 * Patch id of the intent step (issue 44 §5): a greeting, a thanks or a question about the conversation is answered
 * without retrieval. Added after ONE_PATCH, so a run asks it itself, before its first local activity (openTurn) — and
 * only a run whose question the intent rules could answer without retrieval (decided from its input, so a replay asks
 * alike): every other run records the one marker of ONE_PATCH, as before.
 */
export const INTENT_PATCH = 'ragtime-20261205-intent';

/** Every patch ONE_PATCH takes. A patch added later gets its own id, asked before the first local activity. */
const TAKEN_BY_ONE_PATCH: ReadonlySet<string> = new Set([
  PATCHES_AT_START,
  MEMO_MODELS_PATCH,
  PLANNER_ATTEMPTS_PATCH,
  AUDIT_PATCH,
  AUDIT_LOCAL_PATCH,
  SPECULATION_PATCH,
  ANSWER_PATCH,
  CANCELLED_PATCH,
  SESSION_TURNS_PATCH,
]);

/** The patches PATCHES_AT_START decides, in runs recorded before ONE_PATCH. */
const DECIDED_AT_START: ReadonlySet<string> = new Set([PLANNER_ATTEMPTS_PATCH, MEMO_MODELS_PATCH]);

const takenByOnePatch = new WeakSet<RagRun>();
const decidedAtStart = new WeakSet<RagRun>();

/** Asked in the run's first activation, before any other patch and anything the run awaits. */
export function decideOnePatch(run: RagRun): void {
  if (patched(ONE_PATCH)) takenByOnePatch.add(run);
}

/**
 * Asked in the run's first activation, where runs recorded before ONE_PATCH asked it (after the speculation patch):
 * only those runs ask it.
 */
export function decidePatchesAtStart(run: RagRun): void {
  if (!takenByOnePatch.has(run) && patched(PATCHES_AT_START)) decidedAtStart.add(run);
}

/**
 * A sub-question's run whose parent recorded ONE_PATCH (its input says so: recorded in its history, so a replay
 * decides alike): it takes every patch without a marker of its own (issue 36 §2).
 */
export function takeOnePatchFromParent(run: RagRun): void {
  takenByOnePatch.add(run);
}

/** True for runs that recorded ONE_PATCH: they may issue fewer commands (workflows/publish-state.ts's memo). */
export const recordsOnePatch = (run: RagRun): boolean => takenByOnePatch.has(run);

/** patched(patchId) for one of the run's patches: true without a marker of its own when a start patch decided it. */
export function patchedFor(run: RagRun, patchId: string): boolean {
  if (!TAKEN_BY_ONE_PATCH.has(patchId)) throw new Error(`${patchId} is not one of the RAG run's patches`);
  if (takenByOnePatch.has(run)) return true;
  if (DECIDED_AT_START.has(patchId) && decidedAtStart.has(run)) return true;
  return patched(patchId);
}

const recognizesIntent = new WeakSet<RagRun>();

/**
 * Asked in the run's first activation, before openTurn (the first local activity), by a run whose question may need no
 * retrieval (core/intent/classify-intent.ts mayNeedNoRetrieval): whether openTurn decides its intent.
 */
export function decideIntentPatch(run: RagRun, mayNeedNoRetrieval: boolean): void {
  if (mayNeedNoRetrieval && patched(INTENT_PATCH)) recognizesIntent.add(run);
}

/** True for runs that took INTENT_PATCH: openTurn decides the question's intent (workflows/intent-node.ts). */
export const asksIntent = (run: RagRun): boolean => recognizesIntent.has(run);
