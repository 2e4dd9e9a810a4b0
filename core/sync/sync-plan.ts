import type { DocumentRecord } from '../knowledge/knowledge-base';
import { syncDocumentId, syncPathOf, type ListedFile } from './sync-io';

/*
 * What a pass must do (issue 46 §1), from the files the source lists and the documents the knowledge base holds for
 * it: pure, so a pass retried after a crash plans the same from the same state. A file is unchanged when its
 * document's content hash (sha256 of the bytes, core/ingest: DocumentRecord.content_hash) equals the file's.
 */

/** A file to ingest: new, changed, or renamed (`from`: the document of the same bytes at its old path). */
export type SyncIngest = { path: string; docId: string; hash: string; kind: 'add' | 'change' | 'rename'; from?: string };

export type SyncPlan = { ingest: SyncIngest[]; remove: string[]; unchanged: number; held: number };

type Held = Pick<DocumentRecord, 'doc_id' | 'content_hash'>;

/** The plan of a pass of `source` over `listed`, against the knowledge base's documents `held` (any source's). */
export function planSyncPass(source: string, listed: readonly ListedFile[], held: readonly Held[]): SyncPlan {
  const mine = new Map<string, string>(); // doc id → content hash, of this source's documents
  for (const record of held) if (syncPathOf(source, record.doc_id) !== null) mine.set(record.doc_id, record.content_hash);
  const listedIds = new Set(listed.map((file) => syncDocumentId(source, file.path)));
  // Documents whose path is gone, by hash: a new path with the same bytes is their rename (each used once).
  const goneByHash = new Map<string, string[]>();
  for (const [docId, hash] of mine) {
    if (!listedIds.has(docId) && hash !== '') goneByHash.set(hash, [...(goneByHash.get(hash) ?? []), docId]);
  }
  const ingest: SyncIngest[] = [];
  const renamed = new Set<string>();
  let unchanged = 0;
  for (const file of [...listed].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const docId = syncDocumentId(source, file.path);
    const stored = mine.get(docId);
    if (stored === file.hash) unchanged += 1;
    else if (stored !== undefined) ingest.push({ path: file.path, docId, hash: file.hash, kind: 'change' });
    else {
      const from = goneByHash.get(file.hash)?.shift();
      if (from !== undefined) renamed.add(from);
      ingest.push({ path: file.path, docId, hash: file.hash, ...(from === undefined ? { kind: 'add' as const } : { kind: 'rename' as const, from }) });
    }
  }
  const remove = [...mine.keys()].filter((docId) => !listedIds.has(docId)).sort();
  return { ingest, remove, unchanged, held: mine.size };
}

/**
 * Why a plan must not run (issue 46 §3), or null: removing more than `maxShare` of the source's documents looks like
 * a source that vanished (an unmounted folder, an emptied checkout), not like edits. Renames do not count: their
 * documents live on under the new path.
 */
export function massDeleteReason(plan: SyncPlan, maxShare: number): string | null {
  const renamedAway = plan.ingest.filter((item) => item.kind === 'rename').length;
  const removed = plan.remove.length - renamedAway;
  if (plan.held === 0 || removed === 0 || removed / plan.held <= maxShare) return null;
  const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
  return (
    `the pass would remove ${removed} of the source's ${plan.held} documents (${percent(removed / plan.held)}), more than ${percent(maxShare)}; ` +
    'if the source is unmounted or emptied by mistake, restore it; if the removal is meant, run the pass with --allow-mass-delete (or raise --max-delete-share)'
  );
}
