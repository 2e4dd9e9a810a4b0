import { useEffect, useState } from 'react';
import type { Api, RagOutcome, RagStep, RunDetail } from '../api';
import { followProgress } from '../follow-progress';
import { hrefOf } from '../route';
import { useLoad } from '../use-load';
import { shownStatus } from '../../../core/run/shown-status';
import { AnswerView } from '../parts/answer-view';
import { CancelButton } from '../parts/cancel-button';
import { ErrorLine } from '../parts/error-line';
import { HitlForm } from '../parts/hitl-form';
import { ProgressList } from '../parts/progress-list';
import { RetrievalView } from '../parts/retrieval-view';
import { RouteGraph } from '../parts/route-graph';
import { StatusBadge, formatMs } from '../parts/status-badge';
import { Waterfall } from '../parts/waterfall';
import { GradesTable } from '../parts/grades-table';
import { ModelCallsTable } from '../parts/model-calls-table';

/**
 * The question as asked, and q* when a clarification refined it (the targeted retrieval's query). As asked: the run's
 * own question (its workflow input), not what it retrieved with — a comparison's first sub-question, a follow-up's
 * standalone form (issue 45 §3). A run resumed from a snapshot has none; its first retrieval's query stands in.
 */
function questions(detail: RunDetail): { asked: string | null; refined: string | null } {
  const asked =
    detail.question ??
    detail.retrievals.find((retrieval) => retrieval.purpose === 'initial' || retrieval.purpose === 'sub_question')?.query ??
    detail.trace?.query ??
    null;
  const targeted = detail.retrievals.filter((retrieval) => retrieval.purpose === 'hitl_targeted').at(-1)?.query ?? null;
  return { asked, refined: targeted !== null && targeted !== asked ? targeted : null };
}

/**
 * One run: why it ended as it did. While it runs, its progress streams in (SSE) and the page reloads the detail when
 * the stream ends; a waiting run takes its answer here, and the page follows the run to its next outcome.
 */
export function RunPage({ api, workflowId }: { api: Api; workflowId: string }) {
  const loaded = useLoad((signal) => api.detail(workflowId, signal), [api, workflowId]);
  const [steps, setSteps] = useState<RagStep[]>([]);
  const [live, setLive] = useState(false);
  const [streamError, setStreamError] = useState<Error | null>(null);
  const status = loaded.data?.outcome.status;
  const rounds = loaded.data?.outcome.rounds.length;

  // The progress stream, read again whenever the run's state changes: a settled run sends its steps at once, a
  // running one as they happen (live), and when a running run's stream ends the detail is read again.
  useEffect(() => {
    if (status === undefined) return;
    const abort = new AbortController();
    const received: RagStep[] = [];
    setLive(status === 'running');
    followProgress(api, workflowId, { onStep: (step) => { received.push(step); setSteps([...received]); }, onOutcome: () => undefined }, abort.signal)
      .catch((failure: unknown) => {
        if (!abort.signal.aborted) setStreamError(failure instanceof Error ? failure : new Error(String(failure)));
      })
      .finally(() => {
        if (abort.signal.aborted) return;
        setLive(false);
        if (status === 'running') loaded.reload();
      });
    return () => abort.abort();
  }, [api, workflowId, status, rounds, loaded.reload]);

  const detail = loaded.data;
  if (detail === null) return <section><h1>Run</h1>{loaded.loading ? <p>Loading…</p> : null}<ErrorLine error={loaded.error} /></section>;
  const { outcome } = detail;
  const { asked, refined } = questions(detail);
  const onAnswered = (_next: RagOutcome) => loaded.reload();

  return (
    <article className="run" aria-busy={loaded.loading}>
      <header className="run-head">
        <h1 lang="zh-CN">{asked ?? workflowId}</h1>
        {refined && <p className="refined" lang="zh-CN">q*: {refined}</p>}
        <p className="meta">
          <StatusBadge status={shownStatus(outcome)} /> route <strong>{outcome.route ?? '—'}</strong> · {formatMs(detail.durationMs)} · session{' '}
          <a href={hrefOf.session(outcome.sessionId)}>{outcome.sessionId}</a>{outcome.kb ? ` · kb ${outcome.kb}` : ''} · <code>{workflowId}</code>
          {detail.temporalUiUrl && <> · <a href={detail.temporalUiUrl} target="_blank" rel="noreferrer noopener">open in Temporal UI</a></>}
        </p>
        {outcome.degraded && <p className="error">degraded: {outcome.degraded.component} — {outcome.degraded.reason}</p>}
        {outcome.error && <p className="error">{outcome.error.type}: {outcome.error.message}</p>}
        {(outcome.status === 'running' || outcome.status === 'awaiting_input') && <CancelButton api={api} workflowId={workflowId} onCancelled={() => loaded.reload()} />}
      </header>
      <ErrorLine error={loaded.error ?? streamError} />
      {outcome.status === 'awaiting_input' && <HitlForm api={api} workflowId={workflowId} hitl={outcome.hitl} onAnswered={onAnswered} />}
      <section aria-labelledby="progress-h">
        <h2 id="progress-h">Progress</h2>
        {/* Issue 44 §5: a run answered without retrieval says why (its trace's intent and needs_retrieval). */}
        {detail.trace?.intent && (
          <p className="meta intent">
            intent <strong>{detail.trace.intent.intent}</strong> ({detail.trace.intent.decided_by}) · needs retrieval <strong>{detail.trace.needs_retrieval === false ? 'no' : 'yes'}</strong>
          </p>
        )}
        <ProgressList steps={steps} live={live} />
      </section>
      <section aria-labelledby="answer-h"><h2 id="answer-h">Answer</h2><AnswerView outcome={outcome} /></section>
      <section aria-labelledby="path-h"><h2 id="path-h">Route path</h2><RouteGraph path={detail.path} /></section>
      <section aria-labelledby="grades-h"><h2 id="grades-h">Grades</h2><GradesTable grades={detail.grades} /></section>
      <section aria-labelledby="models-h"><h2 id="models-h">Model calls</h2><ModelCallsTable calls={detail.modelCalls ?? []} /></section>
      <section aria-labelledby="retrieval-h">
        <h2 id="retrieval-h">Retrieval</h2>
        {detail.retrievals.length === 0 ? <p className="muted">No retrieval yet.</p> : detail.retrievals.map((retrieval, i) => <RetrievalView key={`${retrieval.workflowId}-${i}`} retrieval={retrieval} />)}
      </section>
      <section aria-labelledby="timing-h"><h2 id="timing-h">Timing</h2><Waterfall stages={detail.timings} durationMs={detail.durationMs} /></section>
      <p><a href={`${hrefOf.compare(workflowId, '')}`}>Compare this run with another…</a></p>
    </article>
  );
}
