import { useState, type FormEvent } from 'react';
import type { Route } from '../../../core/schemas/graph-values';
import type { RunStatus } from '../../../core/schemas/run-io';
import type { Api } from '../api';
import { hrefOf } from '../route';
import { isActive, type RunListView } from '../run-row';
import { useLoad, useReloadWhile } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { StatusBadge, formatMs, formatTime } from '../parts/status-badge';

// The filters' choices, checked against the API's enums (a value they lack would be a 400).
const STATUSES = ['', 'running', 'awaiting_input', 'completed', 'failed'] satisfies ('' | RunStatus)[];
const ROUTES = ['', 'answer', 'rewrite', 'clarify', 'scope_select', 'no_knowledge'] satisfies ('' | Route)[];
const REFRESH_MS = 2000;
const FILTERS = ['status', 'route', 'session', 'kb', 'since', 'until'] as const;

/** datetime-local holds local time without a zone; the API takes ISO 8601 instants. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');

/**
 * The tenant's runs, newest first, filtered in the URL (so a filtered list can be shared). While any listed run is
 * running, the list reloads every 2 s.
 */
export function RunsPage({ api, query }: { api: Api; query: URLSearchParams }) {
  const key = query.toString();
  const list = useLoad((signal) => {
    const sent = new URLSearchParams(query);
    for (const name of ['since', 'until'] as const) if (sent.get(name)) sent.set(name, toIso(sent.get(name) ?? ''));
    if (!sent.get('limit')) sent.set('limit', '50');
    return api.runs<RunListView>(sent, signal);
  }, [api, key]);
  const kbs = useLoad((signal) => api.kbs(signal), [api]);
  const runs = list.data?.runs ?? [];
  const active = runs.some(isActive);

  useReloadWhile(active, list.reload, REFRESH_MS);

  return (
    <section>
      <h1>Runs</h1>
      <Filters query={query} kbs={kbs.data?.kbs.map((kb) => kb.kb) ?? []} />
      <ErrorLine error={list.error} />
      <p className="muted" aria-live="polite">{list.loading && list.data === null ? 'Loading…' : `${runs.length} run(s)${active ? ' · refreshing while runs are active' : ''}`}</p>
      <div className="table-scroll">
        <table className="runs">
          <thead><tr><th scope="col">question</th><th scope="col">route path</th><th scope="col">status</th><th scope="col">duration</th><th scope="col">started</th><th scope="col">session</th></tr></thead>
          <tbody>
            {runs.map((row) => (
              <tr key={row.workflowId} data-workflow-id={row.workflowId}>
                <td lang="zh-CN"><a href={hrefOf.run(row.workflowId)}>{row.question ?? row.workflowId}</a></td>
                <td className="path">{row.path.length > 0 ? row.path.join(' → ') : (row.route ?? '—')}</td>
                <td><StatusBadge status={row.status ?? null} /></td>
                <td>{formatMs(row.durationMs)}</td>
                <td>{formatTime(row.startedAt)}</td>
                <td>{row.session ? <a href={hrefOf.session(row.session)}>{row.session}</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Filters({ query, kbs }: { query: URLSearchParams; kbs: string[] }) {
  const [values, setValues] = useState(() => Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])));
  const set = (name: string) => (event: { target: { value: string } }) => setValues((all) => ({ ...all, [name]: event.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(Object.entries(values).filter(([, value]) => value !== ''));
    location.hash = hrefOf.runs(next);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="filters">
      <label>status<select value={values.status} onChange={set('status')}>{STATUSES.map((s) => <option key={s} value={s}>{s || 'any'}</option>)}</select></label>
      <label>route<select value={values.route} onChange={set('route')}>{ROUTES.map((r) => <option key={r} value={r}>{r || 'any'}</option>)}</select></label>
      <label>session<input value={values.session} onChange={set('session')} placeholder="session id" /></label>
      {kbs.length > 0 && <label>knowledge base<select value={values.kb} onChange={set('kb')}>{['', ...kbs].map((kb) => <option key={kb} value={kb}>{kb || 'any'}</option>)}</select></label>}
      <label>since<input type="datetime-local" value={values.since} onChange={set('since')} /></label>
      <label>until<input type="datetime-local" value={values.until} onChange={set('until')} /></label>
      <button type="submit">Apply</button>
    </form>
  );
}
