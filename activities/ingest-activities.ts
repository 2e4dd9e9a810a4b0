import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { RagError, isRagError } from '../core/errors';
import type { DocumentRecord } from '../core/knowledge/knowledge-base';
import type { HierarchyChunk as CoreHierarchyChunk } from '../core/ingest/hierarchy';
import { IngestHeartbeat, type IngestFileData, type IngestFileInput } from '../core/ingest/ingest-io';
import type { Loaders } from './adapters/loaders';
import { prepareFile, type PreparedFile } from './ingest/prepare-file';
import { removePartial, settleFailure, STORES_TOUCHED, toFailure, withNote } from './ingest/settle-failure';
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

/**
 * How often the attempt repeats its heartbeat while it waits (an embedding batch may take minutes on a busy CPU):
 * the server then sees it alive within INGEST_FILE's heartbeat timeout, and `ragtime ingest` reads fresh progress.
 */
export const INGEST_HEARTBEAT_EVERY_MS = 2_000;

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

    async ingestFile(input: IngestFileInput): Promise<IngestFileData> {
      const context = Context.current();
      // The last heartbeat is repeated while the attempt waits (see INGEST_HEARTBEAT_EVERY_MS).
      let latest: IngestHeartbeat | undefined;
      const ticker = setInterval(() => latest && context.heartbeat(latest), INGEST_HEARTBEAT_EVERY_MS);
      try {
        return await ingestOne(requireDeps(), input, context, (beat) => {
          latest = beat;
          context.heartbeat(beat);
        });
      } finally {
        clearInterval(ticker);
      }
    },
  };
}

async function ingestOne(
  { knowledge, loaders }: IngestDeps,
  { file, filename, docId = file, kb, replace = false, reembed = false, reuseFrom, meta }: IngestFileInput,
  context: Context,
  heartbeat: (beat: IngestHeartbeat) => void,
): Promise<IngestFileData> {
  const parsed = IngestHeartbeat.safeParse(context.info.heartbeatDetails);
  const previous = parsed.success && parsed.data.file === file ? parsed.data : null;
  let beat: IngestHeartbeat = {
    file,
    stage: 'parsing',
    fingerprint: '',
    pages_parsed: 0,
    pages_total: 0,
    l1: 0,
    l2: 0,
    l3: 0,
    leaves_embedded: 0,
    leaves_inserted: 0,
    ...(previous?.last_failure === undefined ? {} : { last_failure: previous.last_failure }),
  };
  const progress = (update: Partial<IngestHeartbeat>): void => {
    beat = { ...beat, ...update };
    heartbeat(beat);
  };
  progress({});
  // Before this attempt writes anything, the stores hold a partial version only if an earlier attempt left one.
  const failedBeforeStoring = async (error: unknown) => {
    const failure = toFailure(error, filename, beat.stage);
    if (!previous || !STORES_TOUCHED.has(previous.stage)) return failure;
    // Kept: the earlier attempt's record goes back to the server, so the next attempt can still resume from it.
    const keep = (reason: string) => heartbeat({ ...previous, last_failure: reason });
    return withNote(failure, await settleFailure(failure, context, { inserted: previous.leaves_inserted, keep, remove: () => removePartial(docId, knowledge, kb) }));
  };

  let prepared: PreparedFile;
  try {
    prepared = await prepareFile(file, filename, {
      docId,
      ...(meta === undefined ? {} : { meta }),
      loaders,
      signal: context.cancellationSignal,
      onPage: (done, total) => progress({ pages_parsed: done, pages_total: total }),
      onWarning: (message) => log.warn(`${filename}: ${message}`),
    });
  } catch (error) {
    throw await failedBeforeStoring(error);
  }
  const { l1, l2, l3 } = prepared;
  progress({ stage: 'split', fingerprint: prepared.fingerprint, l1, l2, l3 });

  let kbStores: KbStores;
  let adopted: DocumentRecord[];
  let registered: boolean;
  try {
    kbStores = await knowledge.open(kb, { create: true });
    ({ adopted, registered } = await claimDocument(knowledge, kbStores.kb, prepared, replace));
  } catch (error) {
    throw await failedBeforeStoring(error);
  }
  const deps: StoreDeps = { ...kbStores, embedder: knowledge.embedder, kb: kbStores.kb };
  let from = 0;
  let reused = 0;
  try {
    from = await resumePoint(prepared, previous, deps);
    if (from > 0) {
      log.info(`${filename}: resuming after ${from} of ${l3} leaves inserted by attempt ${context.info.attempt - 1}`);
      progress({ stage: 'embedding', leaves_embedded: from, leaves_inserted: from, resumed_leaves: from });
    }
    for (const old of adopted) {
      await clearDocument(old.doc_id, deps);
      await knowledge.documents.remove(kbStores.kb, old.doc_id);
    }
    // Vectors to keep exist only where the document was written before: registered, or by an earlier attempt.
    const stored = registered || (previous !== null && STORES_TOUCHED.has(previous.stage));
    ({ reused } = await storeFile(prepared, from, deps, progress, { signal: context.cancellationSignal, reuse: (stored || reuseFrom !== undefined) && !reembed, reuseFrom }));
    await knowledge.documents.put(recordOf(kbStores.kb, prepared));
  } catch (error) {
    const failure = toFailure(error, filename, beat.stage);
    const keep = (reason: string) => progress({ wait: undefined, last_failure: reason }); // what the next attempt resumes from
    throw withNote(failure, await settleFailure(failure, context, { inserted: beat.leaves_inserted, keep, remove: () => removePartial(prepared.docId, deps) }));
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
    ...(reused > 0 ? { leaves_reused: reused } : {}),
  };
}

/**
 * Who the document id belongs to before this file is written (DESIGN §4b). The same id read from the same file is
 * the same document: it is replaced. The same id held by another file is refused unless `replace`. Documents of
 * this same file registered under another id before ids existed (content_hash '', ids were absolute paths) are
 * this document: returned (`adopted`), to be replaced by it. `registered`: the id has a record already.
 */
async function claimDocument(knowledge: KnowledgeStores, kb: string, prepared: PreparedFile, replace: boolean): Promise<{ adopted: DocumentRecord[]; registered: boolean }> {
  const existing = await knowledge.documents.get(kb, prepared.docId);
  if (existing && existing.source !== '' && existing.source !== prepared.source && !replace) {
    throw new RagError(
      'DOCUMENT_EXISTS',
      `document ${JSON.stringify(prepared.docId)} of knowledge base "${kb}" is ${existing.source}, not ${prepared.source}: ` +
        'ingest with --replace to replace it, or give this file another id (--id, --prefix)',
    );
  }
  const sameFile = await knowledge.documents.findBySource(kb, prepared.source);
  return { adopted: sameFile.filter((record) => record.doc_id !== prepared.docId && record.content_hash === ''), registered: existing !== null };
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
    meta: prepared.meta,
  };
}
