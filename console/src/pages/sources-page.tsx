import type { TenantSyncSource } from '../../../core/schemas/sync-source';
import type { Api } from '../api';
import { useAction } from '../use-action';
import { useLoad, useReloadWhile } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { StatusBadge, formatMs, formatTime } from '../parts/status-badge';

const REFRESH_MS = 2000;

/** One line of a pass's counts. */
function counts(report: NonNullable<NonNullable<TenantSyncSource['lastPass']>['report']>): string {
  return `added ${report.added}, changed ${report.changed}, removed ${report.removed}, renamed ${report.renamed}, unchanged ${report.unchanged}, failed ${report.failed.length}; leaves embedded ${report.leaves_embedded}, kept ${report.leaves_reused}`;
}

function SourceRow({ api, source, onRun }: { api: Api; source: TenantSyncSource; onRun: () => void }) {
  const action = useAction();
  const report = source.lastPass?.report ?? null;
  const progress = source.running?.progress ?? null;
  return (
    <li data-source={source.source}>
      <h2>{source.source}</h2>
      <p className="muted">
        {source.kind === 'git' ? `git, branch ${source.branch ?? ''}` : 'folder'} → {source.kb} · every {source.every}
        {source.paused ? ' · paused' : ''}{source.nextPassAt ? ` · next ${formatTime(source.nextPassAt)}` : ''}
      </p>
      {source.running && (
        <p className="sync-running">
          <StatusBadge status="running" />{' '}
          {progress ? `${progress.stage}: ingested ${progress.ingested}/${progress.to_ingest}, removed ${progress.removed}/${progress.to_remove}, failed ${progress.failed}${progress.current.length ? ` — now ${progress.current.join(', ')}` : ''}` : 'starting'}
        </p>
      )}
      {report && (
        <div className="sync-last">
          <p><StatusBadge status={report.status} /> {formatTime(report.finished_at)} ({formatMs(report.duration_ms)}){report.commit ? ` at ${report.commit.slice(0, 12)}` : ''}</p>
          <p className="sync-counts">{counts(report)}</p>
          {report.error && <p className="error">{report.error.type}: {report.error.message}</p>}
          {report.failed.length > 0 && (
            <ul className="sync-failed">
              {report.failed.map((failure) => <li key={failure.path}>{failure.path}: {failure.type}: {failure.message}</li>)}
            </ul>
          )}
        </div>
      )}
      {!report && source.lastPass?.error && <p className="error">last pass failed: {source.lastPass.error}</p>}
      {!source.lastPass && !source.running && <p className="muted">No pass yet.</p>}
      <button type="button" disabled={action.busy} onClick={() => void action.run(async () => { await api.runSource(source.source); onRun(); })}>Run now</button>
      <ErrorLine error={action.error} />
    </li>
  );
}

/**
 * The synced sources of the tenant's knowledge bases (issue 46 §2): each with its schedule, the running pass's progress
 * and the last pass's report, and "Run now". While a pass runs (or was just asked for), the page reloads every 2 s.
 */
export function SourcesPage({ api }: { api: Api }) {
  const list = useLoad((signal) => api.sources(signal), [api]);
  const sources = list.data?.sources ?? [];
  const active = sources.some((source) => source.running !== null);
  useReloadWhile(active, list.reload, REFRESH_MS);
  return (
    <section>
      <h1>Sources</h1>
      <ErrorLine error={list.error} />
      {list.data !== null && sources.length === 0 && <p className="muted">No synced source keeps your knowledge bases; the operator adds them with <code>ragtime sync add</code>.</p>}
      <ul className="sources">
        {sources.map((source) => <SourceRow key={source.source} api={api} source={source} onRun={() => { list.reload(); setTimeout(list.reload, 1000); }} />)}
      </ul>
    </section>
  );
}
