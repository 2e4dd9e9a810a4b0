import { setCurrentDetails, upsertMemo, upsertSearchAttributes } from '@temporalio/workflow';
import type { RagRun } from '../core/run/rag-run';
import { MEMO_MODELS_PATCH, patchedFor } from './start-patches';
import { RAG_COMPLEXITY, RAG_HITL_ROUNDS, RAG_ROUTE, RAG_STATUS } from './search-attributes';

/**
 * Keeps the run's search attributes and current details up to date, so the Temporal UI can list runs awaiting
 * input, by route or by complexity, and shows what a waiting run asked.
 */
export function publishState(run: RagRun): void {
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

/**
 * Notes which provider and models answered (DESIGN §6: visible in each run's memo), once per run: the first model
 * result carries it. Histories recorded before this existed replay without the memo command.
 */
export function noteModels(run: RagRun, producedBy: string | undefined): void {
  if (!producedBy || run.models === producedBy) return;
  run.models = producedBy;
  if (patchedFor(run, MEMO_MODELS_PATCH)) upsertMemo({ models: producedBy });
}
