import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { isRagError } from '../core/errors';
import { extensionOf } from '../core/ingest/supported-files';
import { planSyncPass, type SyncIngest, type SyncPlan } from '../core/sync/sync-plan';
import { SyncPassInput, SyncPassReport, type SyncPassSettings } from '../core/sync/sync-io';
import type { SyncPassStore } from './adapters/sql-sync-passes';
import { clearDocument } from './ingest/store-file';
import type { KnowledgeStores } from './knowledge/knowledge-stores';
import { listFolder, type SourceFile } from './sync/list-folder';
import { headCommit, listCommit, readBlobs } from './sync/list-git';

/*
 * The activities of a sync pass (issue 46): plan it (list the source, compare hashes with the knowledge base's
 * documents of the source), remove the documents whose files are gone, and record the report. The files themselves
 * are ingested by ingestFile (activities/ingest-activities.ts), which keeps the vectors of unchanged leaves. Each is
 * idempotent by document id, so a pass whose worker died repeats any of them without duplicating or half-removing.
 */

export type SyncDeps = {
  knowledge: KnowledgeStores;
  /** Where pass reports are kept; without it a report lives only in the pass's workflow result. */
  passes?: SyncPassStore;
  /** Where a git source's files to ingest are written for ingestFile (the worker's data dir/sync-files). */
  filesDir: string;
};

/** A file to ingest, with the path ingestFile reads. */
export type PlannedIngest = SyncIngest & { file: string };
export type PlannedPass = Omit<SyncPlan, 'ingest'> & { kb: string; kind: 'folder' | 'git'; commit?: string; listed: number; ingest: PlannedIngest[] };

export interface SyncActivities {
  /** Lists the source and plans the pass against what the knowledge base holds for it. */
  planSync(input: SyncPassInput): Promise<PlannedPass>;
  /** Removes documents with every leaf, parent and record; a document already gone counts as removed. */
  removeSyncedDocuments(input: { kb: string; docIds: string[] }): Promise<{ removed: number }>;
  /** Records the pass's report and removes the files written for it. */
  finishSyncPass(input: { report: SyncPassReport; files: string[] }): Promise<void>;
}

/** A RagError as Temporal carries it: its code as the type, terminal or retried as the code says. */
function asFailure(error: unknown, what: string): unknown {
  if (isRagError(error)) return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: error.terminal, cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.create({ type: 'SERVICE_UNAVAILABLE', message: `${what} failed: ${message}`, nonRetryable: false, cause: error instanceof Error ? error : undefined });
}

/** Writes bytes to `file` whole (a temp file renamed), unless it exists already: content-addressed, so it is the same. */
async function writeOnce(file: string, bytes: Buffer): Promise<void> {
  if (await stat(file).then(() => true, () => false)) return;
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, bytes);
  await rename(temp, file);
}

export function syncActivities(deps: SyncDeps | undefined): SyncActivities {
  const requireDeps = (): SyncDeps => {
    if (!deps) throw ApplicationFailure.create({ type: 'INVALID_CONFIG', message: 'this worker has no knowledge store to sync into; start it with one', nonRetryable: true });
    return deps;
  };

  const planGit = async (settings: SyncPassSettings, branch: string, held: Parameters<typeof planSyncPass>[2], filesDir: string) => {
    const commit = await headCommit(settings.path, branch);
    const files = await listCommit(settings.path, commit, settings);
    const plan = planSyncPass(settings.source, files, held);
    // ingestFile reads a file: the blobs to ingest are written out, named by their hash (same bytes, same file).
    const blobOf = new Map(files.map((file) => [file.path, file.blob]));
    const fileOf = (item: SyncIngest) => path.join(filesDir, settings.source, `${item.hash}${extensionOf(item.path)}`);
    const blobs = plan.ingest.map((item) => blobOf.get(item.path)!);
    const bytes: Buffer[] = [];
    await readBlobs(settings.path, blobs, (index, data) => (bytes[index] = Buffer.from(data)));
    for (const [index, item] of plan.ingest.entries()) await writeOnce(fileOf(item), bytes[index]!);
    return { commit, listed: files.length, plan, ingest: plan.ingest.map((item) => ({ ...item, file: fileOf(item) })) };
  };

  return {
    async planSync(rawInput) {
      const { knowledge, filesDir } = requireDeps();
      const settings = SyncPassInput.parse(rawInput);
      const context = Context.current();
      try {
        const { kb } = await knowledge.open(settings.kb, { create: true });
        const held = (await knowledge.documents.list(kb)).map(({ doc_id, content_hash }) => ({ doc_id, content_hash }));
        if (settings.branch !== undefined) {
          const { commit, listed, plan, ingest } = await planGit(settings, settings.branch, held, filesDir);
          return { kb, kind: 'git', commit, listed, remove: plan.remove, unchanged: plan.unchanged, held: plan.held, ingest };
        }
        const files: SourceFile[] = await listFolder(settings.path, settings, (done, total) => done % 200 === 0 && context.heartbeat({ listed: done, total }));
        const plan = planSyncPass(settings.source, files, held);
        const fileOf = new Map(files.map((file) => [file.path, file.file]));
        return { kb, kind: 'folder', listed: files.length, remove: plan.remove, unchanged: plan.unchanged, held: plan.held, ingest: plan.ingest.map((item) => ({ ...item, file: fileOf.get(item.path)! })) };
      } catch (error) {
        throw asFailure(error, 'listing the source');
      }
    },

    async removeSyncedDocuments({ kb, docIds }) {
      const { knowledge } = requireDeps();
      const context = Context.current();
      try {
        const stores = await knowledge.open(kb);
        let removed = 0;
        for (const docId of docIds) {
          // Leaves first (retrieval stops seeing the document), parents, then the record: a retry finishes the rest.
          await clearDocument(docId, stores);
          await knowledge.documents.remove(stores.kb, docId);
          removed += 1;
          context.heartbeat({ removed });
        }
        return { removed };
      } catch (error) {
        throw asFailure(error, 'removing documents');
      }
    },

    async finishSyncPass({ report, files }) {
      const { passes, filesDir } = requireDeps();
      try {
        await passes?.record(SyncPassReport.parse(report));
        // Only what the pass wrote itself: a folder source's own files are never touched.
        const written = files.filter((file) => path.resolve(file).startsWith(path.resolve(filesDir) + path.sep));
        await Promise.all(written.map((file) => rm(file, { force: true })));
      } catch (error) {
        throw asFailure(error, 'recording the pass');
      }
    },
  };
}
