import { useState, type FormEvent } from 'react';
import type { RunComparison } from '../../../core/schemas/run-comparison';
import type { Api } from '../api';
import { hrefOf } from '../route';
import { useLoad } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { formatMs } from '../parts/status-badge';

const show = (value: string | number | boolean | null) => (value === null ? '—' : String(value));

function Pair({ comparison }: { comparison: RunComparison }) {
  const { a, b } = comparison;
  return (
    <table className="pair">
      <thead><tr><th scope="col"></th><th scope="col">A</th><th scope="col">B</th></tr></thead>
      <tbody>
        <tr><th scope="row">run</th><td><a href={hrefOf.run(a.workflowId)}>{a.workflowId}</a></td><td><a href={hrefOf.run(b.workflowId)}>{b.workflowId}</a></td></tr>
        <tr><th scope="row">question</th><td lang="zh-CN">{a.question ?? '—'}</td><td lang="zh-CN">{b.question ?? '—'}</td></tr>
        <tr><th scope="row">status · route</th><td>{a.status} · {a.route ?? '—'}</td><td>{b.status} · {b.route ?? '—'}</td></tr>
        <tr><th scope="row">path</th><td className="path">{a.path.join(' → ')}</td><td className="path">{b.path.join(' → ')}</td></tr>
        <tr><th scope="row">duration</th><td>{formatMs(a.durationMs)}</td><td>{formatMs(b.durationMs)}</td></tr>
      </tbody>
    </table>
  );
}

/** What changed between two runs: route and field changes, grades, evidence in and out, rank moves, timings. */
function ComparisonView({ comparison }: { comparison: RunComparison }) {
  const { evidence } = comparison;
  return (
    <div className="comparison">
      <Pair comparison={comparison} />
      <p className="summary">{comparison.sameQuestion ? 'Same question. ' : 'Different questions. '}{comparison.changed ? (comparison.routeChanged ? 'The route path changed.' : 'The route path is the same; other things changed.') : 'Nothing but timings differs.'}</p>
      <h2>Changes</h2>
      {comparison.changes.length === 0 ? <p className="muted">No field differs.</p> : (
        <table className="changes"><thead><tr><th scope="col">field</th><th scope="col">A</th><th scope="col">B</th></tr></thead>
          <tbody>{comparison.changes.map((change) => <tr key={change.field} data-field={change.field}><td>{change.field}</td><td lang="zh-CN">{show(change.a)}</td><td lang="zh-CN">{show(change.b)}</td></tr>)}</tbody>
        </table>
      )}
      <h2>Grades</h2>
      {comparison.grades.length === 0 ? <p className="muted">The grades are the same.</p> : comparison.grades.map((grade) => (
        <p key={grade.position}><strong>{grade.position}</strong>: {grade.changes.map((change) => `${change.field} ${show(change.a)} → ${show(change.b)}`).join(' · ')}</p>
      ))}
      <h2>Evidence</h2>
      <ul className="evidence-changes">
        {evidence.entered.map((ref) => <li key={`in-${ref.key}`} className="entered">entered: {ref.filename ?? ref.key} (B #{ref.rankB})</li>)}
        {evidence.left.map((ref) => <li key={`out-${ref.key}`} className="left">left: {ref.filename ?? ref.key} (A #{ref.rankA})</li>)}
        {evidence.moved.map((ref) => <li key={`mv-${ref.key}`}>moved: {ref.filename ?? ref.key} #{ref.rankA} → #{ref.rankB}</li>)}
        {evidence.entered.length + evidence.left.length + evidence.moved.length === 0 && <li className="muted">The final evidence is the same.</li>}
      </ul>
      <h2>Rank movements</h2>
      {comparison.ranks.length === 0 ? <p className="muted">No rank moved.</p> : comparison.ranks.map((leg) => (
        <details key={`${leg.retrieval}-${leg.leg}`}>
          <summary>{leg.retrieval} · {leg.leg}: {leg.moves.length} move(s)</summary>
          <ul>{leg.moves.map((move) => <li key={move.chunk_id}>{move.filename}: {move.rankA ?? '—'} → {move.rankB ?? '—'}{move.delta !== null ? ` (${move.delta > 0 ? '+' : ''}${move.delta})` : ''}</li>)}</ul>
        </details>
      ))}
      <h2>Timings</h2>
      <table className="timings"><thead><tr><th scope="col">stage</th><th scope="col">A</th><th scope="col">B</th><th scope="col">Δ</th></tr></thead>
        <tbody>{comparison.timings.map((timing) => <tr key={timing.type}><td>{timing.type}</td><td>{formatMs(timing.aMs)} ({timing.countA})</td><td>{formatMs(timing.bMs)} ({timing.countB})</td><td>{timing.deltaMs === null ? '—' : `${timing.deltaMs > 0 ? '+' : ''}${formatMs(Math.abs(timing.deltaMs)).replace(/^/, timing.deltaMs < 0 ? '−' : '')}`}</td></tr>)}</tbody>
      </table>
    </div>
  );
}

function Loaded({ api, a, b }: { api: Api; a: string; b: string }) {
  const loaded = useLoad((signal) => api.compare<RunComparison>(a, b, signal), [api, a, b]);
  return (
    <>
      <ErrorLine error={loaded.error} />
      {loaded.loading && loaded.data === null && <p>Comparing…</p>}
      {loaded.data && <ComparisonView comparison={loaded.data} />}
    </>
  );
}

export function ComparePage({ api, a, b }: { api: Api; a: string; b: string }) {
  const [first, setFirst] = useState(a);
  const [second, setSecond] = useState(b);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    location.hash = hrefOf.compare(first.trim(), second.trim());
  };
  return (
    <section>
      <h1>Compare two runs</h1>
      <form className="filters" onSubmit={submit}>
        <label>run A<input value={first} onChange={(event) => setFirst(event.target.value)} placeholder="workflow id" required /></label>
        <label>run B<input value={second} onChange={(event) => setSecond(event.target.value)} placeholder="workflow id" required /></label>
        <button type="submit">Compare</button>
      </form>
      {a && b && <Loaded api={api} a={a} b={b} />}
    </section>
  );
}
