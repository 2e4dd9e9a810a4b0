import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { IngestProgress } from '../core/ingest/ingest-io';
import type { RagStep } from '../core/progress/rag-step';
import type { RagTrace } from '../core/schemas/rag-trace';
import type { Chunk } from '../core/schemas/retrieved-chunk';
import type { RagOutcome } from '../core/schemas/run-io';
import type { SyncProgress } from '../core/sync/sync-io';

/*
 * Every message of ragWorkflow, defined once; clients, workflows and tests import these constants.
 * The wire names are persisted in histories: add names, never rename one.
 */

/** Default task queue; deployments override it with TEMPORAL_TASK_QUEUE. */
export const TASK_QUEUE = 'ragtime';

/** An answer to the pending clarification question, fire-and-forget. A late or extra signal is dropped. */
export const hitlAnswerSignal = defineSignal<[answer: string]>('hitlAnswer');

/**
 * An answer to the pending clarification question that returns the run's next outcome. An update rather than a
 * signal because the caller wants the result and a clear rejection: its validator refuses an empty or oversized
 * answer, or any answer while the run is not waiting, and a rejected update leaves nothing in the history.
 */
export const submitHitlAnswerUpdate = defineUpdate<RagOutcome, [answer: string]>('submitHitlAnswer');

/** Returns when the run completes, fails or starts waiting for input. Used with update-with-start by `ask`. */
export const awaitOutcomeUpdate = defineUpdate<RagOutcome>('awaitOutcome');

export const outcomeQuery = defineQuery<RagOutcome>('outcome');
/** The normalized trace as it is now (spec §5.6); null before the first retrieval. */
export const traceQuery = defineQuery<RagTrace | null>('trace');
export const progressQuery = defineQuery<RagStep[]>('progress');
/**
 * Which answer generation listeners of a streaming answer are shown (issue 25 §2): the writer's call the run waits on
 * or the speculative draft it took, with the evidence it was written from; null before the run writes an answer.
 */
export const answerStreamQuery = defineQuery<AnswerStreamState>('answerStream');
export type AnswerStreamState = { generation: string | null; docs: Chunk[] };

/** Sub-question children are named after their parent, so a history reads as one tree. */
export function subQuestionWorkflowId(parentWorkflowId: string, index: number): string {
  return `${parentWorkflowId}/sub-${index}`;
}

/** ingestWorkflow: files done of total, the files being ingested now, and the results so far. */
export const ingestProgressQuery = defineQuery<IngestProgress>('ingestProgress');

/** syncPassWorkflow (issue 46 §4): the pass's stage and files done of those it ingests and removes. */
export const syncProgressQuery = defineQuery<SyncProgress>('syncProgress');
