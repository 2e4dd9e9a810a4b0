import type { SyncSourceStatus } from '../../client/sync-status';
import type { SyncPassReport, SyncProgress } from '../../core/sync/sync-io';

/* What `ragtime sync status` and `sync list` print (issue 46 §2, §4). */

/** One line of counts, the time and the commit of a pass. */
export function renderPassReport(report: SyncPassReport): string {
  const counts = `added ${report.added}, changed ${report.changed}, removed ${report.removed}, renamed ${report.renamed}, unchanged ${report.unchanged}, failed ${report.failed.length}`;
  const leaves = `leaves embedded ${report.leaves_embedded}, kept ${report.leaves_reused}`;
  const commit = report.commit === undefined ? '' : ` at ${report.commit.slice(0, 12)}`;
  const lines = [`${report.status}${commit} ${report.finished_at} (${(report.duration_ms / 1000).toFixed(1)} s): ${counts}; ${leaves}`];
  if (report.error) lines.push(`  ${report.error.type}: ${report.error.message}`);
  for (const failure of report.failed) lines.push(`  failed ${failure.path}: ${failure.type}: ${failure.message}`);
  return lines.join('\n');
}

/** A running pass's progress on one line. */
export function renderProgress(p: SyncProgress): string {
  const commit = p.commit ? ` at ${p.commit.slice(0, 12)}` : '';
  return `${p.stage}${commit}: ingested ${p.ingested}/${p.to_ingest}, removed ${p.removed}/${p.to_remove}, unchanged ${p.unchanged}, failed ${p.failed}${p.current.length ? ` — now ${p.current.join(', ')}` : ''}`;
}

export function renderSyncStatus(status: SyncSourceStatus): string {
  const { settings } = status;
  const what = settings.branch === undefined ? `folder ${settings.path}` : `git ${settings.path} at branch ${settings.branch}`;
  const globs = [...(settings.include ?? []).map((g) => `include ${g}`), ...(settings.exclude ?? []).map((g) => `exclude ${g}`)].join(', ');
  const lines = [
    `${status.source}: ${what} → knowledge base ${settings.kb ?? '(the worker default)'}${globs ? ` (${globs})` : ''}`,
    `  schedule:  ${status.scheduleId} every ${status.every}${status.paused ? ', PAUSED' : ''}${status.nextPassAt ? `, next ${status.nextPassAt}` : ''}`,
  ];
  if (status.running) {
    const p = status.running.progress;
    lines.push(p ? `  running:   ${renderProgress(p)}` : `  running:   ${status.running.workflowId}`);
  }
  const last = status.lastPass;
  if (!last) lines.push('  last pass: none yet');
  else if (last.report) lines.push(`  last pass: ${renderPassReport(last.report).replace(/\n/g, '\n  ')}`);
  else lines.push(`  last pass: failed: ${last.error ?? 'unknown'} (${last.workflowId})`);
  return lines.join('\n');
}
