import { ApplicationFailure, allHandlersFinished, condition, isCancellation, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { IngestActivities } from '../activities/ingest-activities';
import type { PlannedIngest, PlannedPass, SyncActivities } from '../activities/sync-activities';
import { describeZodError } from '../core/errors';
import { DocumentId } from '../core/knowledge/knowledge-base';
import { massDeleteReason } from '../core/sync/sync-plan';
import { SyncPassInput, type SyncFailure, type SyncPassReport, type SyncProgress } from '../core/sync/sync-io';
import { FLUSH_LEAVES, INGEST_FILE, SYNC_STEP } from './activity-options';
import { runErrorOf } from './failures';
import { syncProgressQuery } from './messages';

const sync = proxyActivities<SyncActivities>(SYNC_STEP);
const ingest = proxyActivities<IngestActivities>(INGEST_FILE);

const baseName = (relative: string): string => relative.slice(relative.lastIndexOf('/') + 1);
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * One pass of a synced source (issue 46), started by the source's Temporal Schedule (client/sync-sources.ts): plan
 * (list the source, compare hashes with the knowledge base), ingest the new, changed and renamed files through
 * ingestFile (a changed file's unchanged leaves keep their vectors; a renamed file reuses its old document's), remove
 * the documents whose files are gone (and a renamed file's old document once its new one is written), then record
 * the report. A file that fails is reported and left as it was, so the next pass tries it again. A source that is
 * gone, or a pass that would remove more than its share, fails before anything changes.
 */
export async function syncPassWorkflow(rawInput: SyncPassInput): Promise<SyncPassReport> {
  const parsed = SyncPassInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({ type: 'INVALID_INPUT', message: describeZodError('invalid syncPassWorkflow input', parsed.error), nonRetryable: true });
  }
  const input = parsed.data;
  const startedAt = Date.now();
  const progress: SyncProgress = { stage: 'listing', to_ingest: 0, ingested: 0, to_remove: 0, removed: 0, unchanged: 0, failed: 0, current: [] };
  const counts = { added: 0, changed: 0, renamed: 0, removed: 0, leaves_embedded: 0, leaves_reused: 0 };
  const failed: SyncFailure[] = [];

  // Message handlers
  setHandler(syncProgressQuery, () => progress);

  const report = (planned: Pick<PlannedPass, 'kb' | 'kind' | 'commit' | 'unchanged'>, error?: { type: string; message: string }): SyncPassReport => {
    const finishedAt = Date.now();
    return {
      source: input.source,
      kb: planned.kb,
      kind: planned.kind,
      ...(planned.commit === undefined ? {} : { commit: planned.commit }),
      status: error ? 'failed' : failed.length > 0 ? 'partial' : 'synced',
      ...(error ? { error } : {}),
      ...counts,
      unchanged: planned.unchanged,
      failed,
      started_at: iso(startedAt),
      finished_at: iso(finishedAt),
      duration_ms: finishedAt - startedAt,
      workflow_id: workflowInfo().workflowId,
    };
  };
  /** Records a pass that changed nothing and fails the run with its code (the schedule shows it failed). */
  const refuse = async (planned: Pick<PlannedPass, 'kb' | 'kind' | 'commit'>, error: { type: string; message: string }): Promise<never> => {
    progress.stage = 'reporting';
    await sync.finishSyncPass({ report: report({ ...planned, unchanged: 0 }, error), files: [] });
    throw ApplicationFailure.create({ type: error.type, message: `sync pass of ${input.source}: ${error.message}`, nonRetryable: true });
  };

  let planned: PlannedPass;
  try {
    planned = await sync.planSync.executeWithOptions({ ...SYNC_STEP, summary: `plan ${input.source}` }, [input]);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return refuse({ kb: input.kb ?? '', kind: input.branch === undefined ? 'folder' : 'git' }, runErrorOf(error));
  }
  Object.assign(progress, { stage: 'ingesting', commit: planned.commit, to_ingest: planned.ingest.length, to_remove: planned.remove.length, unchanged: planned.unchanged });
  const tooMany = input.allowMassDelete ? null : massDeleteReason(planned, input.maxDeleteShare);
  if (tooMany !== null) return refuse(planned, { type: 'MASS_DELETE_REFUSED', message: tooMany });

  // Renamed files whose new document could not be written keep their old one.
  const keep = new Set<string>();
  // A path that cannot be a document id (longer than 400 bytes with its source's name, "::" in it) fails alone.
  const queue = planned.ingest.filter((item) => {
    const id = DocumentId.safeParse(item.docId);
    if (id.success) return true;
    failed.push({ path: item.path, type: 'INVALID_INPUT', message: `${item.path} cannot be a document id (${id.error.issues[0]?.message ?? 'invalid'}); rename it or leave it out with --exclude` });
    if (item.from !== undefined) keep.add(item.from);
    return false;
  });
  progress.failed = failed.length;
  progress.to_ingest = queue.length;
  const ingestOne = async (item: PlannedIngest): Promise<void> => {
    progress.current.push(item.path);
    try {
      const file = { file: item.file, filename: baseName(item.path), docId: item.docId, kb: planned.kb, replace: true, ...(item.from === undefined ? {} : { reuseFrom: item.from }) };
      const data = await ingest.ingestFile.executeWithOptions({ ...INGEST_FILE, summary: item.docId }, [file]);
      counts[item.kind === 'add' ? 'added' : item.kind === 'change' ? 'changed' : 'renamed'] += 1;
      counts.leaves_reused += data.leaves_reused ?? 0;
      counts.leaves_embedded += data.l3 - (data.leaves_reused ?? 0); // resumed leaves were embedded by this pass too
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (item.from !== undefined) keep.add(item.from);
      const { type, message } = runErrorOf(error);
      failed.push({ path: item.path, type, message });
      progress.failed = failed.length;
    } finally {
      progress.current = progress.current.filter((path) => path !== item.path);
      progress.ingested += 1;
    }
  };
  const lane = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await ingestOne(item);
  };
  await Promise.all(Array.from({ length: input.concurrency }, lane));

  const renamedFrom = new Set(planned.ingest.flatMap((item) => (item.from === undefined ? [] : [item.from])));
  const remove = planned.remove.filter((docId) => !keep.has(docId));
  progress.stage = 'removing';
  progress.to_remove = remove.length;
  if (remove.length > 0) {
    await sync.removeSyncedDocuments.executeWithOptions({ ...SYNC_STEP, summary: `remove ${remove.length}` }, [{ kb: planned.kb, docIds: remove }]);
    counts.removed = remove.filter((docId) => !renamedFrom.has(docId)).length;
    progress.removed = remove.length;
  }
  // What the pass inserted is sealed once at the end, as an ingest batch does, so searches over it run at full speed.
  if (counts.added + counts.changed + counts.renamed > 0) {
    await ingest.flushLeaves.executeWithOptions({ ...FLUSH_LEAVES, summary: 'flush_leaves' }, [{ kb: planned.kb }]);
  }
  progress.stage = 'reporting';
  const result = report(planned);
  await sync.finishSyncPass({ report: result, files: planned.kind === 'git' ? planned.ingest.map((item) => item.file) : [] });
  progress.stage = 'done';
  await condition(allHandlersFinished);
  return result;
}
