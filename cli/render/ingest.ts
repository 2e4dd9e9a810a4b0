import type { IngestBatchResult, IngestHeartbeat, IngestProgress, IngestWait } from '../../core/ingest/ingest-io';
import type { IngestAttempt } from '../ingest-attempts';

/** An ingest batch's result: a line per file, the totals, and the flush. */
export function renderIngestSummary(result: IngestBatchResult): string {
  const lines = result.files.map((file) =>
    file.status === 'ingested'
      ? `  ok      ${file.doc_id ?? file.filename}  L1 ${file.l1}  L2 ${file.l2}  L3 ${file.l3}${file.leaves_reused ? ` (${file.leaves_reused} vectors kept)` : ''}  ${file.duration_ms} ms`
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

/** An ingest batch still running: how far it is, what it works on and, per file, what it waits on (`attempts`). */
export function renderIngestProgress(progress: IngestProgress, attempts: readonly IngestAttempt[] = [], now = Date.now()): string {
  const lines = [`${progress.done}/${progress.total} file(s) done (${progress.ingested} ingested, ${progress.failed} failed)`];
  if (progress.running.length > 0) lines.push(`  working on ${progress.running.join(', ')}`);
  for (const file of progress.running) {
    const attempt = attempts.find((a) => a.file === file);
    if (attempt) lines.push(`    ${baseName(file)}: ${renderIngestAttempt(attempt, now)}`);
  }
  if (progress.flush?.status === 'running') lines.push('  flushing the leaves');
  return lines.join('\n');
}

const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);
const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/** What one wait is: "embedding batch 3/7 (request 2/2: 25 texts), waiting 12 s (gives up after 290 s) on http://127.0.0.1:8765/v1". */
function renderWait(wait: IngestWait, now: number): string {
  const waited = `waiting ${seconds(now - wait.since)}${wait.timeout_ms === undefined ? '' : ` (gives up after ${seconds(wait.timeout_ms)})`}`;
  const batch = wait.batch === undefined ? '' : ` batch ${wait.batch}/${wait.batches ?? '?'}`;
  switch (wait.on) {
    case 'embedding':
      return `embedding${batch} (${wait.part === undefined ? '' : `request ${wait.part}/${wait.parts ?? '?'}: `}${wait.texts ?? '?'} texts), ${waited}${wait.target ? ` on ${wait.target}` : ''}`;
    case 'inserting':
      return `inserting${batch} (${wait.texts ?? '?'} leaves) into Milvus${wait.target ? ` (knowledge base ${wait.target})` : ''}, ${waited}`;
    case 'writing_parents':
      return `writing ${wait.texts ?? '?'} parent chunks to the parent store, ${waited}`;
    case 'clearing':
      return `clearing the document's previous chunks from both stores, ${waited}`;
    case 'reading_vectors':
      return `reading the vectors of the document's stored leaves (kept where a leaf is unchanged), ${waited}`;
  }
}

/** The stage of a heartbeat with no wait in it (parsing, between batches). */
function renderStage(beat: IngestHeartbeat): string {
  if (beat.stage === 'parsing') return beat.pages_total > 0 ? `parsing page ${beat.pages_parsed}/${beat.pages_total}` : 'parsing';
  if (beat.stage === 'split') return `split into L1 ${beat.l1}, L2 ${beat.l2}, L3 ${beat.l3}`;
  return `${beat.leaves_inserted}/${beat.l3} leaves inserted`;
}

/** Why the previous attempt failed, short: the file's name and the budget arithmetic are left out. */
function failureReason(message: string | null): string {
  if (message === null) return 'a failure';
  if (/^[^:]*: embedding model .* timed out/.test(message)) return 'embedding timeout';
  const text = message.replace(/^[^:\s]+: /, '').replace(/ \(budget [^)]*\)/, '');
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/**
 * One ingestFile activity: what the attempt waits on, or that it waits to be retried (issue 14 §5), e.g.
 * "retrying after embedding timeout (attempt 2 of 5, in 4 s); 100 of 307 leaves kept".
 */
export function renderIngestAttempt(attempt: IngestAttempt, now = Date.now()): string {
  const beat = attempt.heartbeat;
  // The heartbeat's copy first: the server's own is cut to "Failure exceeds size limit." when long.
  const failed = failureReason(beat?.last_failure ?? attempt.lastFailure);
  const of = attempt.maximumAttempts > 0 ? ` of ${attempt.maximumAttempts}` : '';
  if (attempt.state === 'scheduled' && attempt.attempt > 1) {
    const when = attempt.nextAttemptAt === null ? '' : `, in ${seconds(attempt.nextAttemptAt - now)}`;
    const kept = beat && beat.leaves_inserted > 0 ? `; ${beat.leaves_inserted} of ${beat.l3} leaves kept` : '';
    return `retrying after ${failed} (attempt ${attempt.attempt}${of}${when})${kept}`;
  }
  const doing = beat === null ? 'starting' : beat.wait ? renderWait(beat.wait, now) : renderStage(beat);
  if (attempt.attempt <= 1) return doing;
  const resumed = beat?.resumed_leaves ? `, resumed after ${beat.resumed_leaves} leaves` : '';
  return `attempt ${attempt.attempt}${of} (after ${failed}${resumed}): ${doing}`;
}
