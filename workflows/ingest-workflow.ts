import { ApplicationFailure, allHandlersFinished, condition, isCancellation, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { IngestActivities } from '../activities/ingest-activities';
import { describeZodError } from '../core/errors';
import { IngestBatch } from '../core/ingest/ingest-batch';
import { DEFAULT_INGEST_CONCURRENCY, IngestWorkflowInput, type IngestBatchResult } from '../core/ingest/ingest-io';
import { FLUSH_LEAVES, INGEST_FILE } from './activity-options';
import { runErrorOf } from './failures';
import { ingestProgressQuery } from './messages';

const ingest = proxyActivities<IngestActivities>(INGEST_FILE);

/** Patch id of the flush after a batch (batches recorded before it end with the last file). */
export const FLUSH_PATCH = 'ragtime-20261130-ingest-flush';
/**
 * Patch id of document ids (DESIGN §4b): a batch's files are told apart by id, not by base name (batches recorded
 * before it failed a second file of the same name without scheduling it).
 */
export const DOCUMENT_IDS_PATCH = 'ragtime-20261201-document-ids';

/**
 * Ingests a batch of files (spec §6.11), one ingestFile activity per file, a few at a time. A file that fails is
 * recorded with its typed error and the batch goes on; the result lists every file in input order, with totals.
 * The run survives worker and server restarts: each activity heartbeats and its retry resumes or starts over.
 */
export async function ingestWorkflow(rawInput: IngestWorkflowInput): Promise<IngestBatchResult> {
  const parsed = IngestWorkflowInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({ type: 'INVALID_INPUT', message: describeZodError('invalid ingestWorkflow input', parsed.error), nonRetryable: true });
  }
  const input = parsed.data;
  const ids = patched(DOCUMENT_IDS_PATCH) ? (input.ids ?? input.files) : null;
  const batch = new IngestBatch(input.files, Date.now(), input.batchLabel, ids, input.kb);
  const target = { ...(input.kb === undefined ? {} : { kb: input.kb }), ...(input.replace ? { replace: true } : {}), ...(input.reembed ? { reembed: true } : {}), ...(input.meta ? { meta: input.meta } : {}) };

  // Message handlers
  setHandler(ingestProgressQuery, () => batch.progress());

  // Each lane takes the next file until none is left; lanes run side by side.
  const lane = async (): Promise<void> => {
    for (let task = batch.take(Date.now()); task !== null; task = batch.take(Date.now())) {
      try {
        const file = { file: task.file, filename: task.filename, ...(task.docId === null ? {} : { docId: task.docId }), ...target };
        const data = await ingest.ingestFile.executeWithOptions({ ...INGEST_FILE, summary: task.docId ?? task.filename }, [file]);
        batch.succeed(task.index, data, Date.now());
      } catch (error) {
        if (isCancellation(error)) throw error; // the batch was cancelled: stop, do not fail the remaining files
        batch.fail(task.index, runErrorOf(error), Date.now());
      }
    }
  };
  await Promise.all(Array.from({ length: input.concurrency ?? DEFAULT_INGEST_CONCURRENCY }, lane));
  // What the batch inserted is sealed once at the end, so that searches over it run at full speed.
  if (batch.insertedLeaves() && patched(FLUSH_PATCH)) {
    batch.startFlush(Date.now());
    try {
      await ingest.flushLeaves.executeWithOptions({ ...FLUSH_LEAVES, summary: 'flush_leaves' }, [input.kb === undefined ? {} : { kb: input.kb }]);
      batch.finishFlush(Date.now());
    } catch (error) {
      if (isCancellation(error)) throw error;
      batch.finishFlush(Date.now(), runErrorOf(error));
    }
  }
  await condition(allHandlersFinished);
  return batch.result(Date.now());
}
