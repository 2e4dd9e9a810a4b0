import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import { RagError, isRagError } from '../core/errors';
import type { DocumentRecord } from '../core/knowledge/knowledge-base';
import type { HierarchyChunk as CoreHierarchyChunk } from '../core/ingest/hierarchy';
import { IngestHeartbeat, type IngestFileData, type IngestFileInput } from '../core/ingest/ingest-io';
import type { Loaders } from './adapters/loaders';
import { prepareFile, type PreparedFile } from './ingest/prepare-file';
import { clearDocument, resumePoint, storeFile, type StoreDeps } from './ingest/store-file';
import type { KbStores, KnowledgeStores } from './knowledge/knowledge-stores';
import type { HierarchyChunk } from './ports';

/** What ingestion needs: the knowledge bases (stores, registry, embedder), and optionally other loaders (by extension). */
export type IngestDeps = { knowledge: KnowledgeStores; loaders?: Loaders };

export interface IngestActivities {
  /** One file, end to end (spec §6.11 "Upload"); heartbeats its stage; resumable after a lost worker. */
  ingestFile(input: IngestFileInput): Promise<IngestFileData>;
  /** After a batch: makes the leaves it inserted fast to search (LeafStore.flush). */
  flushLeaves(input?: { kb?: string }): Promise<void>;
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
  const requireDeps = (): IngestDeps => {
    if (!deps) {
      throw ApplicationFailure.create({ type: 'INVALID_CONFIG', message: 'this worker has no knowledge store (leaf store, parent store, embedder); start it with one to ingest', nonRetryable: true });
    }
    return deps;
  };

  return {
    async flushLeaves(input = {}): Promise<void> {
      const { knowledge } = requireDeps();
      try {
        const { leafStore } = await knowledge.open(input.kb, { create: true });
        await leafStore.flush();
      } catch (error) {
        if (isRagError(error)) throw ApplicationFailure.create({ type: error.code, message: `flushing the leaves: ${error.message}`, nonRetryable: error.terminal, cause: error });
        const message = error instanceof Error ? error.message : String(error);
        throw ApplicationFailure.create({ type: 'SERVICE_UNAVAILABLE', message: `flushing the leaves failed: ${message}`, nonRetryable: false, cause: error instanceof Error ? error : undefined });
      }
    },

    async ingestFile({ file, filename, docId = file, kb, replace = false }: IngestFileInput): Promise<IngestFileData> {
      const { knowledge, loaders } = requireDeps();
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
          docId,
          loaders,
          signal: context.cancellationSignal,
          onPage: (done, total) => progress({ pages_parsed: done, pages_total: total }),
          onWarning: (message) => log.warn(`${filename}: ${message}`),
        });
      } catch (error) {
        throw toFailure(error, filename, beat.stage);
      }
      const { l1, l2, l3 } = prepared;
      progress({ stage: 'split', fingerprint: prepared.fingerprint, l1, l2, l3 });

      let kbStores: KbStores;
      let adopted: DocumentRecord[];
      try {
        kbStores = await knowledge.open(kb, { create: true });
        adopted = await claimDocument(knowledge, kbStores.kb, prepared, replace);
      } catch (error) {
        throw toFailure(error, filename, beat.stage);
      }
      const deps: StoreDeps = { ...kbStores, embedder: knowledge.embedder };
      let from = 0;
      try {
        from = await resumePoint(prepared, previous, deps);
        if (from > 0) {
          log.info(`${filename}: resuming after ${from} of ${l3} leaves inserted by attempt ${context.info.attempt - 1}`);
          progress({ stage: 'embedding', leaves_embedded: from, leaves_inserted: from });
        }
        for (const old of adopted) {
          await clearDocument(old.doc_id, deps);
          await knowledge.documents.remove(kbStores.kb, old.doc_id);
        }
        await storeFile(prepared, from, deps, progress, context.cancellationSignal);
        await knowledge.documents.put(recordOf(kbStores.kb, prepared));
      } catch (error) {
        throw toFailure(error, filename, beat.stage, await cleanUpAfterFailure(error, prepared.docId, deps, context));
      }
      return {
        filename: prepared.filename,
        doc_id: prepared.docId,
        kb: kbStores.kb,
        ...(adopted.length > 0 ? { adopted: adopted.map((record) => record.doc_id) } : {}),
        file_type: prepared.file_type,
        pages: prepared.pages,
        l1,
        l2,
        l3,
        resumed_leaves: from,
      };
    },
  };
}

/**
 * Who the document id belongs to before this file is written (DESIGN §4b). The same id read from the same file is
 * the same document: it is replaced. The same id held by another file is refused unless `replace`. Documents of
 * this same file registered under another id before ids existed (content_hash '', ids were absolute paths) are
 * this document: returned, to be replaced by it.
 */
async function claimDocument(knowledge: KnowledgeStores, kb: string, prepared: PreparedFile, replace: boolean): Promise<DocumentRecord[]> {
  const existing = await knowledge.documents.get(kb, prepared.docId);
  if (existing && existing.source !== '' && existing.source !== prepared.source && !replace) {
    throw new RagError(
      'DOCUMENT_EXISTS',
      `document ${JSON.stringify(prepared.docId)} of knowledge base "${kb}" is ${existing.source}, not ${prepared.source}: ` +
        'ingest with --replace to replace it, or give this file another id (--id, --prefix)',
    );
  }
  const sameFile = await knowledge.documents.findBySource(kb, prepared.source);
  return sameFile.filter((record) => record.doc_id !== prepared.docId && record.content_hash === '');
}

/** The registry record of a document just written. */
function recordOf(kb: string, prepared: PreparedFile): DocumentRecord {
  const bytes = [...prepared.parents, ...prepared.leaves].reduce((total, chunk) => total + Buffer.byteLength(chunk.text, 'utf8'), 0);
  return {
    kb,
    doc_id: prepared.docId,
    filename: prepared.filename,
    source: prepared.source,
    file_type: prepared.file_type,
    pages: prepared.pages,
    l1: prepared.l1,
    l2: prepared.l2,
    l3: prepared.l3,
    bytes,
    content_hash: prepared.fingerprint,
    ingested_at: new Date().toISOString(),
  };
}

/**
 * After a failure in the store phase, removes the document's partial chunks so both stores agree (neither holds
 * it), unless the attempt was cut off by a worker shutdown or a heartbeat timeout: then a retry is coming (or
 * already running) and resumes or restarts on its own. Returns a note for the error message.
 */
async function cleanUpAfterFailure(error: unknown, docId: string, deps: StoreDeps, context: Context): Promise<string> {
  if (error instanceof CancelledFailure && !cancelRequestedByWorkflow(context)) return '';
  try {
    await clearDocument(docId, deps);
    return '; its partial chunks were removed from both stores';
  } catch (cleanupError) {
    const reason = cleanupError instanceof Error ? cleanupError.message : String(cleanupError);
    log.error(`${docId}: removing partial chunks failed: ${reason}`);
    return `; removing its partial chunks failed too (${reason}): ingest the file again to replace them`;
  }
}
