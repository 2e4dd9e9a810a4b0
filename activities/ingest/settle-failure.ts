import { ApplicationFailure, CancelledFailure, log, type Context, type Info } from '@temporalio/activity';
import { isRagError } from '../../core/errors';
import type { IngestStage } from '../../core/ingest/ingest-io';
import type { KnowledgeStores } from '../knowledge/knowledge-stores';
import { clearDocument, type StoreDeps } from './store-file';

/*
 * What a failed ingestFile attempt records and leaves behind (issue 14 §5). When another attempt follows, the
 * document's partial chunks stay for it to resume after (no batch embedded twice); when none does, they are removed,
 * so that both stores agree: neither holds the document.
 */

/** The failure Temporal records: typed (RagError code, or SERVICE_UNAVAILABLE for store/embedder errors), naming the file. */
export function toFailure(error: unknown, filename: string, stage: string): unknown {
  if (error instanceof CancelledFailure) return error;
  const named = (message: string) => (message.startsWith(`${filename}: `) ? message : `${filename}: ${message}`);
  if (isRagError(error)) return ApplicationFailure.create({ type: error.code, message: named(error.message), nonRetryable: error.terminal, cause: error });
  if (error instanceof ApplicationFailure) {
    return ApplicationFailure.create({ type: error.type ?? 'SERVICE_UNAVAILABLE', message: named(error.message), nonRetryable: error.nonRetryable ?? false, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.create({
    type: 'SERVICE_UNAVAILABLE',
    message: named(`failed at stage "${stage}": ${message}`),
    nonRetryable: false,
    cause: error instanceof Error ? error : undefined,
  });
}

/** The failure with a note added to its message (what became of the partial document). */
export function withNote(failure: unknown, note: string): unknown {
  if (note === '' || !(failure instanceof ApplicationFailure)) return failure;
  const { type, nonRetryable, details, cause } = failure;
  return ApplicationFailure.create({ type: type ?? undefined, message: failure.message + note, nonRetryable: nonRetryable ?? false, details: details ?? undefined, cause });
}

/** How much of a failure's message a heartbeat carries (IngestHeartbeat.last_failure). */
const FAILURE_CHARS = 400;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Stages after which the stores hold part of the document's new version (the old one is gone). */
export const STORES_TOUCHED: ReadonlySet<IngestStage> = new Set<IngestStage>(['cleared', 'parents_written', 'embedding', 'inserted']);

/** Cancelled because the workflow asked: nothing will retry, so the partial file is removed. */
function cancelRequestedByWorkflow(context: Context): boolean {
  const details = context.cancellationDetails;
  return details !== undefined && details.cancelRequested && !details.workerShutdown && !details.timedOut && !details.notFound;
}

/**
 * Whether Temporal runs another attempt after this failure (INGEST_FILE's retry policy, as the server gave it).
 * Without a policy (a test calling the function directly) none is assumed.
 */
function retryFollows(failure: unknown, info: Info): boolean {
  if (!(failure instanceof ApplicationFailure) || failure.nonRetryable) return false;
  const policy = info.retryPolicy;
  if (!policy || policy.nonRetryableErrorTypes?.includes(failure.type ?? '')) return false;
  const maximum = policy.maximumAttempts ?? 0;
  return maximum === 0 || info.attempt < maximum;
}

/**
 * After a failure with the document partly written: an attempt cut off by a worker shutdown or a heartbeat timeout
 * leaves it to its retry (already coming); a retryable failure with attempts left keeps it too, after `keep` sent
 * the heartbeat the next attempt resumes from, with the failure's message in it (the server keeps only a short
 * failure of a pending activity: a longer one reads "Failure exceeds size limit."); anything else (terminal, the
 * last attempt, the workflow cancelling) `remove`s it. Returns a note for the error message.
 */
export async function settleFailure(failure: unknown, context: Context, partial: { inserted: number; keep: (reason: string) => void; remove: () => Promise<string> }): Promise<string> {
  if (failure instanceof CancelledFailure && !cancelRequestedByWorkflow(context)) return '';
  if (retryFollows(failure, context.info)) {
    partial.keep(cut(failure instanceof Error ? failure.message : String(failure), FAILURE_CHARS));
    const maximum = context.info.retryPolicy?.maximumAttempts;
    return `; attempt ${context.info.attempt}${maximum ? ` of ${maximum}` : ''} keeps the ${partial.inserted} leaves inserted so far, and the next attempt resumes after them`;
  }
  return partial.remove();
}

/** Removes a document's partial chunks from both stores (of knowledge base `kb`); returns the note for the error message. */
export async function removePartial(docId: string, stores: Pick<StoreDeps, 'leafStore' | 'parentStore'> | KnowledgeStores, kb?: string): Promise<string> {
  try {
    await clearDocument(docId, 'leafStore' in stores ? stores : await stores.open(kb));
    return '; its partial chunks were removed from both stores';
  } catch (cleanupError) {
    const reason = cleanupError instanceof Error ? cleanupError.message : String(cleanupError);
    log.error(`${docId}: removing partial chunks failed: ${reason}`);
    return `; removing its partial chunks failed too (${reason}): ingest the file again to replace them`;
  }
}
