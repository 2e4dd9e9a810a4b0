import { useEffect, useState } from 'react';
import type { Api, RagOutcome } from '../api';
import { loadConversation, type OpenRun, type ShownTurn } from '../load-conversation';
import { hrefOf } from '../route';
import { newSessionId } from '../session-id';
import { useAction } from '../use-action';
import { useLoad } from '../use-load';
import { ErrorLine } from '../parts/error-line';
import { LiveTurn } from '../parts/live-turn';
import { QuestionBox } from '../parts/question-box';
import { TurnView } from '../parts/turn-view';

/**
 * A conversation in one session (issue 25 §1): its earlier turns, the turn in progress, and the question box. Each
 * question is a run in the session (POST /api/runs with wait: false), so a follow-up ("它的价格呢？") is read with
 * the turns before it; its progress streams in, and a clarification is answered here.
 */
function Conversation({ api, sessionId }: { api: Api; sessionId: string }) {
  const kbs = useLoad((signal) => api.kbs(signal), [api]);
  const earlier = useLoad((signal) => loadConversation(api, sessionId, signal), [api, sessionId]);
  const [added, setAdded] = useState<ShownTurn[]>([]);
  const [live, setLive] = useState<OpenRun | null>(null);
  const { busy, error, run } = useAction();

  // A run of the session that had not settled when the page opened (a reload during a clarification) goes on here.
  const open = earlier.data?.open ?? null;
  useEffect(() => {
    if (open !== null) setLive((current) => current ?? open);
  }, [open]);

  const ask = async (question: string, kb: string | undefined, filters: Record<string, string[]> | undefined): Promise<boolean> => {
    let started = false;
    await run(async () => {
      const { workflowId } = await api.ask(question, { sessionId, ...(kb ? { kb } : {}), ...(filters ? { filters } : {}) });
      setLive({ workflowId, question });
      started = true;
    });
    return started;
  };
  const settled = (done: OpenRun, outcome: RagOutcome) => {
    setAdded((turns) => (turns.some((turn) => turn.workflowId === done.workflowId) ? turns : [...turns, { ...done, outcome, stored: null }]));
    setLive(null);
  };

  const loaded = earlier.data?.turns ?? [];
  const turns = [...loaded, ...added.filter((turn) => !loaded.some((known) => known.workflowId === turn.workflowId))];
  return (
    <section className="conversation-page" aria-labelledby="conversation-h">
      <header className="conversation-head">
        <h1 id="conversation-h">Ask</h1>
        <p className="muted">session <a href={hrefOf.session(sessionId)}><code>{sessionId}</code></a></p>
        <button type="button" className="quiet" onClick={() => (location.hash = hrefOf.ask(newSessionId()))}>New conversation</button>
      </header>
      <ErrorLine error={earlier.error} />
      {earlier.loading && earlier.data === null && <p className="muted">Loading the conversation…</p>}
      {earlier.data !== null && turns.length === 0 && live === null && <p className="muted">No turns yet: ask a question below. Follow-ups may refer to earlier answers.</p>}
      <ol className="conversation" role="log" aria-label="conversation" aria-live="polite">
        {turns.map((turn, i) => <li key={turn.workflowId}><TurnView turn={turn} number={i + 1} /></li>)}
      </ol>
      {live !== null && <LiveTurn key={live.workflowId} api={api} run={live} onSettled={settled} />}
      <QuestionBox kbs={(kbs.data?.kbs ?? []).map((k) => k.kb)} busy={busy || live !== null} onAsk={ask} />
      <ErrorLine error={error} />
    </section>
  );
}

/** The Ask page: a conversation whose session is in the URL (#/ask?session=…); without one, a new conversation. */
export function AskPage({ api, sessionId }: { api: Api; sessionId: string | null }) {
  // One new id per visit of "#/ask", kept in state: an effect may run twice (StrictMode in a development build), and
  // both runs must send the URL to the same session. replace, not assign: Back leaves the page instead of returning
  // to the "#/ask" that would make yet another session.
  const [fresh] = useState(newSessionId);
  useEffect(() => {
    if (sessionId === null) location.replace(hrefOf.ask(fresh));
  }, [sessionId, fresh]);
  return sessionId === null ? null : <Conversation api={api} sessionId={sessionId} />;
}
