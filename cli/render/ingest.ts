import type { IngestBatchResult, IngestProgress } from '../../core/ingest/ingest-io';

/** An ingest batch's result: a line per file, the totals, and the flush. */
export function renderIngestSummary(result: IngestBatchResult): string {
  const lines = result.files.map((file) =>
    file.status === 'ingested'
      ? `  ok      ${file.doc_id ?? file.filename}  L1 ${file.l1}  L2 ${file.l2}  L3 ${file.l3}  ${file.duration_ms} ms`
      : `  FAILED  ${file.doc_id ?? file.filename}  ${file.error?.type}: ${file.error?.message}`,
  );
  if (result.kb !== undefined) lines.unshift(`knowledge base ${result.kb}:`);
  const t = result.totals;
  lines.push(`${t.ingested}/${t.files} file(s) ingested, ${t.failed} failed; chunks L1 ${t.l1}, L2 ${t.l2}, L3 ${t.l3}; ${t.duration_ms} ms`);
  const flush = result.flush;
  if (flush?.status === 'flushed') lines.push(`leaves flushed (sealed for fast search) in ${flush.duration_ms} ms`);
  if (flush?.status === 'failed') lines.push(`WARNING  flushing the leaves failed (${flush.error?.type}: ${flush.error?.message}); they are searchable, only slower, until the next batch flushes`);
  return lines.join('\n');
}

/** An ingest batch still running: how far it is and what it works on. */
export function renderIngestProgress(progress: IngestProgress): string {
  const lines = [`${progress.done}/${progress.total} file(s) done (${progress.ingested} ingested, ${progress.failed} failed)`];
  if (progress.running.length > 0) lines.push(`  working on ${progress.running.join(', ')}`);
  if (progress.flush?.status === 'running') lines.push('  flushing the leaves');
  return lines.join('\n');
}
