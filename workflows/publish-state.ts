import { setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { RagRun } from '../core/run/rag-run';
import { MEMO_MODELS_PATCH, patchedFor, recordsOnePatch } from './start-patches';
import { RAG_COMPLEXITY, RAG_HITL_ROUNDS, RAG_ROUTE, RAG_STATUS } from './search-attributes';

/**
 * Keeps the run's search attributes and current details up to date, so the Temporal UI can list runs awaiting
 * input, by route or by complexity, and shows what a waiting run asked.
 */
export function publishState(run: RagRun): void {
  publishMemo(run);
  upsertSearchAttributes([
    { key: RAG_STATUS, value: run.status },
    ...(run.route ? [{ key: RAG_ROUTE, value: run.route }] : []),
    ...(run.complexity ? [{ key: RAG_COMPLEXITY, value: run.complexity }] : []),
    { key: RAG_HITL_ROUNDS, value: run.rounds.filter((round) => round.answered_via !== 'resume_from').length },
  ]);
  setCurrentDetails(
    run.status === 'awaiting_input' && run.hitl
      ? `Waiting for an answer (round ${run.hitl.round}): ${run.hitl.prompt}${run.hitl.options.length ? `\nOptions: ${run.hitl.options.join('; ')}` : ''}`
      : `Status: ${run.status}${run.route ? `, route ${run.route}` : ''}`,
  );
}

/** Memo fields waiting for the run's next publishState (runs that record ONE_PATCH). */
const pendingMemo = new WeakMap<RagRun, Record<string, string>>();

/** Writes the memo fields noted since the last write, in one memo change (sub-questions call it as they end). */
export function publishMemo(run: RagRun): void {
  const memo = pendingMemo.get(run);
  if (!memo) return;
  upsertMemo(memo);
  pendingMemo.delete(run);
}

/**
 * Sets memo fields (the Temporal UI shows them with the run). Runs that record ONE_PATCH write them with the next
 * publishState — when the run parks, answers or ends — in one memo change instead of one per field (issue 36 §2);
 * older runs wrote each at once, and replay so.
 */
export function noteMemo(run: RagRun, fields: Record<string, string>): void {
  if (!recordsOnePatch(run)) {
    upsertMemo(fields);
    return;
  }
  pendingMemo.set(run, { ...(pendingMemo.get(run) ?? {}), ...fields });
}

/**
 * Notes which provider and models answered (DESIGN §6: visible in each run's memo), once per run: the first model
 * result carries it. Histories recorded before this existed replay without the memo command.
 */
export function noteModels(run: RagRun, producedBy: string | undefined): void {
  if (!producedBy || run.models === producedBy) return;
  run.models = producedBy;
  if (patchedFor(run, MEMO_MODELS_PATCH)) noteMemo(run, { models: producedBy });
}
