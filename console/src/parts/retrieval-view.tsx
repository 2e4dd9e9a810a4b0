import type { LegCandidate, RetrievalDiagnostics } from '../../../core/schemas/retrieval-diagnostics';
import type { RunRetrieval } from '../../../core/schemas/run-detail';
import { formatMs } from './status-badge';

const score = (value: number | null | undefined, digits = 4) => (value === null || value === undefined ? '—' : value.toFixed(digits));

function LegTable({ title, candidates }: { title: string; candidates: LegCandidate[] | null }) {
  if (candidates === null) return null;
  return (
    <section className="leg" aria-label={title}>
      <h4>{title} <span className="muted">({candidates.length})</span></h4>
      <table>
        <thead><tr><th scope="col">rank</th><th scope="col">score</th><th scope="col">source</th></tr></thead>
        <tbody>
          {candidates.map((candidate) => (
            <tr key={`${candidate.chunk_id}-${candidate.rank}`} title={candidate.text_preview}>
              <td>{candidate.rank}</td><td>{score(candidate.score)}</td><td>{candidate.filename}<div className="preview">{candidate.text_preview}</div></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Fused({ diagnostics }: { diagnostics: RetrievalDiagnostics }) {
  if (diagnostics.fused.length === 0) return null;
  return (
    <section className="leg wide" aria-label="fused (RRF)">
      <h4>Fused (RRF, k = 60)</h4>
      <table>
        <thead><tr><th scope="col">rank</th><th scope="col">RRF score</th><th scope="col">dense rank</th><th scope="col">BM25 rank</th><th scope="col">source</th></tr></thead>
        <tbody>
          {diagnostics.fused.map((candidate) => (
            <tr key={candidate.chunk_id}>
              <td>{candidate.rank}</td><td>{score(candidate.rrf_score, 5)}</td><td>{candidate.dense_rank ?? '—'}</td><td>{candidate.bm25_rank ?? '—'}</td>
              <td>{candidate.filename}<div className="preview">{candidate.text_preview}</div></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function MergeAndRerank({ diagnostics }: { diagnostics: RetrievalDiagnostics }) {
  return (
    <>
      {diagnostics.merge_groups.length > 0 && (
        <section className="leg wide" aria-label="auto-merge groups">
          <h4>Auto-merge groups</h4>
          <ul>
            {diagnostics.merge_groups.map((group) => (
              <li key={group.parent_chunk_id}><code>{group.parent_chunk_id}</code> (level {group.level}) ← {group.child_count} children: {group.child_chunk_ids.join(', ')}</li>
            ))}
          </ul>
        </section>
      )}
      {diagnostics.reranked.length > 0 && (
        <section className="leg wide" aria-label="rerank">
          <h4>Rerank</h4>
          <table>
            <thead><tr><th scope="col">before</th><th scope="col">after</th><th scope="col">rerank score</th><th scope="col">source</th></tr></thead>
            <tbody>
              {diagnostics.reranked.map((candidate) => (
                <tr key={candidate.chunk_id}>
                  <td>{candidate.before_rank ?? '—'}</td><td>{candidate.rank}{moved(candidate.before_rank, candidate.rank)}</td><td>{score(candidate.rerank_score)}</td><td>{candidate.filename}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

const moved = (before: number | null, after: number) => (before === null || before === after ? '' : before > after ? ` ▲${before - after}` : ` ▼${after - before}`);

/** One retrieval: the query, the legs' candidates, fusion, merge, rerank, threshold cuts, attempts and stage times. */
export function RetrievalView({ retrieval }: { retrieval: RunRetrieval }) {
  const { meta, diagnostics } = retrieval;
  return (
    <article className="retrieval" data-purpose={retrieval.purpose}>
      <h3>{retrieval.purpose} <span className="muted">· {meta.retrieval_mode ?? '—'}</span></h3>
      <p className="query">{retrieval.query}</p>
      <p className="funnel" aria-label="candidate counts">
        recalled {meta.recall_count ?? '—'} → after merge {meta.post_merge_candidate_count ?? '—'} → after rerank {meta.post_rerank_count ?? '—'} → after threshold {meta.post_threshold_count ?? '—'}
        {meta.rerank_min_score !== null && meta.rerank_min_score !== undefined ? ` (min score ${meta.rerank_min_score})` : ''} · kept {retrieval.docs.length}
        {meta.rerank_error ? <span className="error"> · rerank error: {meta.rerank_error}</span> : null}
      </p>
      {diagnostics === null ? (
        <p className="muted">This retrieval was recorded before diagnostics existed.</p>
      ) : (
        <>
          {diagnostics.embedding_error && <p className="error">embedding failed: {diagnostics.embedding_error}</p>}
          <table className="attempts" aria-label="attempts">
            <thead><tr><th scope="col">attempt</th><th scope="col">candidates</th><th scope="col">top score</th><th scope="col">usable</th><th scope="col">time</th><th scope="col">error</th></tr></thead>
            <tbody>
              {diagnostics.attempts.map((attempt) => (
                <tr key={attempt.name}><td>{attempt.name}</td><td>{attempt.candidate_count}</td><td>{score(attempt.top_score)}</td><td>{attempt.usable ? 'yes' : 'no'}</td><td>{formatMs(attempt.duration_ms)}</td><td>{attempt.error ?? ''}</td></tr>
              ))}
            </tbody>
          </table>
          <div className="legs">
            <LegTable title="Dense" candidates={diagnostics.legs.dense} />
            <LegTable title="BM25" candidates={diagnostics.legs.bm25} />
            <LegTable title="Dense fallback" candidates={diagnostics.legs.dense_fallback} />
          </div>
          <Fused diagnostics={diagnostics} />
          <MergeAndRerank diagnostics={diagnostics} />
          <p className="stage-times" aria-label="stage times">
            {(['embed', 'dense', 'bm25', 'fuse', 'merge', 'rerank'] as const).map((stage) => `${stage} ${formatMs(diagnostics.timing_ms[stage])}`).join(' · ')} · total {formatMs(diagnostics.timing_ms.total)}
          </p>
        </>
      )}
    </article>
  );
}
