import type { Api, SessionTraceView } from '../api';
import { hrefOf } from '../route';
import { useLoad } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { formatMs, formatTime } from '../parts/status-badge';

type Entry = { at: string; workflowId: string; what: string; detail: string; failed: boolean };

/** The audit's events and knowledge-tool invocations of a session, on one time line (oldest first). */
function timeline(trace: SessionTraceView): Entry[] {
  const events = trace.events.map((event) => ({
    at: event.createdAt,
    workflowId: event.workflowId,
    what: event.eventType,
    detail: Object.entries(event.detail).map(([key, value]) => `${key}=${String(value)}`).join(' '),
    failed: event.eventType.includes('fail'),
  }));
  const tools = trace.toolInvocations.map((call) => ({
    at: call.createdAt,
    workflowId: call.workflowId,
    what: `${call.toolName} (${call.step})`,
    detail: `${call.retrievalDetails.search_mode ?? ''} · ${call.evidenceCount} evidence of ${call.candidateCount} · relevance ${call.relevanceLevel ?? '—'} · ${formatMs(call.durationMs)}${call.errorMessage ? ` · ${call.errorMessage}` : ''}`,
    failed: !call.success,
  }));
  return [...events, ...tools].sort((a, b) => a.at.localeCompare(b.at));
}

export function SessionPage({ api, sessionId }: { api: Api; sessionId: string }) {
  const loaded = useLoad((signal) => api.sessionTrace(sessionId, signal), [api, sessionId]);
  const trace = loaded.data;
  return (
    <section>
      <h1>Session <code>{sessionId}</code></h1>
      <ErrorLine error={loaded.error} />
      {trace && (
        <>
          <h2>Runs</h2>
          <ul>
            {trace.runs.map((run) => (
              <li key={run.runId}><a href={hrefOf.run(run.workflowId)}>{run.workflowId}</a> · {run.status ?? '—'} · {run.route ?? '—'} · {formatTime(run.startedAt)}</li>
            ))}
          </ul>
          <h2>Timeline</h2>
          <ol className="timeline">
            {timeline(trace).map((entry, i) => (
              <li key={i} className={entry.failed ? 'failed' : undefined}>
                <time dateTime={entry.at}>{formatTime(entry.at)}</time> <strong>{entry.what}</strong> <span className="muted">{entry.workflowId}</span>
                <div className="detail">{entry.detail}</div>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
