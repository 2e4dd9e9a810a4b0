import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import { isRagError } from '../core/errors';
import type { HierarchyChunk as CoreHierarchyChunk } from '../core/ingest/hierarchy';
import { IngestHeartbeat, type IngestFileData, type IngestFileInput } from '../core/ingest/ingest-io';
import type { Loaders } from './adapters/loaders';
import { prepareFile, type PreparedFile } from './ingest/prepare-file';
import { clearFile, resumePoint, storeFile, type StoreDeps } from './ingest/store-file';
import type { HierarchyChunk } from './ports';

/** What ingestion needs: the two stores, the embedder, and optionally other loaders (by extension). */
export type IngestDeps = StoreDeps & { loaders?: Loaders };

export interface IngestActivities {
  /** One file, end to end (spec §6.11 "Upload"); heartbeats its stage; resumable after a lost worker. */
  ingestFile(input: IngestFileInput): Promise<IngestFileData>;
  /** After a batch: makes the leaves it inserted fast to search (LeafStore.flush). */
  flushLeaves(): Promise<void>;
}

// core/ builds the chunks and the stores take them: the two declarations must stay the same shape.
const sameChunkShape: [CoreHierarchyChunk, HierarchyChunk] extends [HierarchyChunk, CoreHierarchyChunk] ? true : never = true;
void sameChunkShape;

/** Cancelled because the workflow asked: nothing will retry, so the partial file is removed. */
function cancelRequestedByWorkflow(context: Context): boolean {
  const details = context.cancellationDetails;
  return details !== undefined && details.cancelRequested && !details.workerShutdown && !details.timedOut && !details.notFound;
}

/** The failure Temporal records: typed (RagError code, or SERVICE_UNAVAILABLE for store/embedder errors), naming the file. */
function toFailure(error: unknown, filename: string, stage: string, note = ''): unknown {
  if (error instanceof CancelledFailure) return error;
  const named = (message: string) => (message.startsWith(`${filename}: `) ? message : `${filename}: ${message}`) + note;
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

/**
 * The ingestion activity. Bad files (unsupported, corrupt, empty) fail before any store is touched and are not
 * retried; store and embedder failures are retried by Temporal (workflows/activity-options.ts INGEST_FILE).
 */
export function ingestActivities(deps: IngestDeps | undefined): IngestActivities {
  let collectionReady: Promise<void> | null = null;
  const ensureCollection = (store: StoreDeps['leafStore']): Promise<void> => {
    collectionReady ??= store.ensureCollection().catch((error: unknown) => {
      collectionReady = null; // try again on the next file
      throw error;
    });
    return collectionReady;
  };

  const requireDeps = (): IngestDeps => {
    if (!deps) {
      throw ApplicationFailure.create({ type: 'INVALID_CONFIG', message: 'this worker has no knowledge store (leaf store, parent store, embedder); start it with one to ingest', nonRetryable: true });
    }
    return deps;
  };

  return {
    async flushLeaves(): Promise<void> {
      const { leafStore } = requireDeps();
      try {
        await leafStore.flush();
      } catch (error) {
        if (isRagError(error)) throw ApplicationFailure.create({ type: error.code, message: `flushing the leaves: ${error.message}`, nonRetryable: error.terminal, cause: error });
        const message = error instanceof Error ? error.message : String(error);
        throw ApplicationFailure.create({ type: 'SERVICE_UNAVAILABLE', message: `flushing the leaves failed: ${message}`, nonRetryable: false, cause: error instanceof Error ? error : undefined });
      }
    },

    async ingestFile({ file, filename }: IngestFileInput): Promise<IngestFileData> {
      const deps = requireDeps();
      const context = Context.current();
      const parsed = IngestHeartbeat.safeParse(context.info.heartbeatDetails);
      const previous = parsed.success && parsed.data.file === file ? parsed.data : null;
      let beat: IngestHeartbeat = { file, stage: 'parsing', fingerprint: '', pages_parsed: 0, pages_total: 0, l1: 0, l2: 0, l3: 0, leaves_embedded: 0, leaves_inserted: 0 };
      const progress = (update: Partial<IngestHeartbeat>): void => {
        beat = { ...beat, ...update };
        context.heartbeat(beat);
      };
      progress({});

      let prepared: PreparedFile;
      try {
        prepared = await prepareFile(file, filename, {
          loaders: deps.loaders,
          signal: context.cancellationSignal,
          onPage: (done, total) => progress({ pages_parsed: done, pages_total: total }),
          onWarning: (message) => log.warn(`${filename}: ${message}`),
        });
      } catch (error) {
        throw toFailure(error, filename, beat.stage);
      }
      const { l1, l2, l3 } = prepared;
      progress({ stage: 'split', fingerprint: prepared.fingerprint, l1, l2, l3 });

      let from = 0;
      try {
        await ensureCollection(deps.leafStore);
        from = await resumePoint(prepared, previous, deps);
        if (from > 0) {
          log.info(`${filename}: resuming after ${from} of ${l3} leaves inserted by attempt ${context.info.attempt - 1}`);
          progress({ stage: 'embedding', leaves_embedded: from, leaves_inserted: from });
        }
        await storeFile(prepared, from, deps, progress, context.cancellationSignal);
      } catch (error) {
        throw toFailure(error, filename, beat.stage, await cleanUpAfterFailure(error, prepared.filename, deps, context));
      }
      return { filename: prepared.filename, file_type: prepared.file_type, pages: prepared.pages, l1, l2, l3, resumed_leaves: from };
    },
  };
}

/**
 * After a failure in the store phase, removes the file's partial chunks so both stores agree (neither holds it),
 * unless the attempt was cut off by a worker shutdown or a heartbeat timeout: then a retry is coming (or already
 * running) and resumes or restarts on its own. Returns a note for the error message.
 */
async function cleanUpAfterFailure(error: unknown, filename: string, deps: StoreDeps, context: Context): Promise<string> {
  if (error instanceof CancelledFailure && !cancelRequestedByWorkflow(context)) return '';
  try {
    await clearFile(filename, deps);
    return '; its partial chunks were removed from both stores';
  } catch (cleanupError) {
    const reason = cleanupError instanceof Error ? cleanupError.message : String(cleanupError);
    log.error(`${filename}: removing partial chunks failed: ${reason}`);
    return `; removing its partial chunks failed too (${reason}): ingest the file again to replace them`;
  }
}
