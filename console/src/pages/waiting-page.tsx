import type { Api } from '../api';
import { hrefOf } from '../route';
import { type RunListView } from '../run-row';
import { useLoad } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { HitlForm } from '../parts/hitl-form';
import { formatTime } from '../parts/status-badge';

/**
 * The runs waiting for a person, each with its question back. An answer sent here resumes the run, and the console
 * goes to the run's page, which follows it to its next outcome.
 */
export function WaitingPage({ api }: { api: Api }) {
  const list = useLoad((signal) => api.runs<RunListView>(new URLSearchParams({ status: 'awaiting_input', limit: '50' }), signal), [api]);
  const runs = list.data?.runs ?? [];
  return (
    <section>
      <h1>Waiting for a person</h1>
      <ErrorLine error={list.error} />
      {list.data !== null && runs.length === 0 && <p className="muted">No run is waiting.</p>}
      <ul className="waiting">
        {runs.map((row) => (
          <li key={row.workflowId} data-workflow-id={row.workflowId}>
            <p><a href={hrefOf.run(row.workflowId)} lang="zh-CN">{row.question ?? row.workflowId}</a> <span className="muted">· {row.route ?? ''} · {row.session ?? ''} · {formatTime(row.startedAt)}</span></p>
            {row.hitl === null && <p className="muted">Its question did not arrive in time; <a href={hrefOf.run(row.workflowId)}>open the run</a> to answer it.</p>}
            <HitlForm
              api={api}
              workflowId={row.workflowId}
              hitl={row.hitl}
              onAnswered={() => (location.hash = hrefOf.run(row.workflowId))}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
